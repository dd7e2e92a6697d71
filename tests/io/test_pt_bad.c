/* The .pt reader on hostile input: missing, empty and foreign files; the refused fixtures;
 * hand-made pickles with absurd sizes, shapes and views; malformed pickles and zip archives;
 * and every truncation and many corruptions of real files. Every one must give an error with
 * a message (or, for a corruption that leaves the file valid, a tensor whose every element can
 * be read), never a crash: run this under ASan/UBSan. */
#include "test_pt_support.h"

#include <inttypes.h>

#include "io/pickle.h"
#include "io/zip.h"
#include "precheck/io/pt.h"

static int setup(void **state)
{
    pc_error_clear();
    return 0;
}

/* ---- building pickles and archives by hand ---- */

typedef struct pk {
    unsigned char b[8192];
    size_t n;
} pk;

static void op(pk *p, int c)
{
    p->b[p->n++] = (unsigned char)c;
}

static void raw(pk *p, const void *d, size_t n)
{
    memcpy(p->b + p->n, d, n);
    p->n += n;
}

static void le32(pk *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        op(p, (int)((v >> (8 * i)) & 0xFF));
}

static void global(pk *p, const char *module, const char *name)
{
    op(p, 'c');
    raw(p, module, strlen(module));
    op(p, '\n');
    raw(p, name, strlen(name));
    op(p, '\n');
}

static void str(pk *p, const char *s)
{
    op(p, 'X');
    le32(p, (uint32_t)strlen(s));
    raw(p, s, strlen(s));
}

static void integer(pk *p, int64_t v)
{
    if (v >= 0 && v < 256) {
        op(p, 'K');
        op(p, (int)v);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        op(p, 'J');
        le32(p, (uint32_t)(int32_t)v);
    } else {
        op(p, 0x8a);
        op(p, 8);
        for (int i = 0; i < 8; i++)
            op(p, (int)(((uint64_t)v >> (8 * i)) & 0xFF));
    }
}

static void int_tuple(pk *p, const int64_t *v, int n)
{
    op(p, '(');
    for (int i = 0; i < n; i++)
        integer(p, v[i]);
    op(p, 't');
}

typedef struct spec {
    const char *storage; /* class name in module torch */
    int64_t numel;
    int64_t offset;
    int rank, stride_rank;
    int64_t size[20], stride[20];
} spec;

/* torch's stream for _rebuild_tensor_v2 with the given fields (no memo opcodes). */
static void tensor_pickle(pk *p, const spec *s)
{
    p->n = 0;
    op(p, 0x80);
    op(p, 2);
    global(p, "torch._utils", "_rebuild_tensor_v2");
    op(p, '(');
    op(p, '(');
    str(p, "storage");
    global(p, "torch", s->storage);
    str(p, "0");
    str(p, "cpu");
    integer(p, s->numel);
    op(p, 't');
    op(p, 'Q');
    integer(p, s->offset);
    int_tuple(p, s->size, s->rank);
    int_tuple(p, s->stride, s->stride_rank);
    op(p, 0x89);
    global(p, "collections", "OrderedDict");
    op(p, ')');
    op(p, 'R');
    op(p, 't');
    op(p, 'R');
    op(p, '.');
}

/* An archive "archive/" with data.pkl and data/0 (nbytes of a pattern), malloc'ed. */
static unsigned char *make_pt(const pk *p, size_t nbytes, size_t *size)
{
    pc_byte_sink sink = {.fd = -1, .origin = "test"};
    pc_zip_writer w;
    pc_zip_writer_init(&w, &sink);
    unsigned char *data = malloc(nbytes + 1);
    for (size_t i = 0; i < nbytes; i++)
        data[i] = (unsigned char)(i * 13 + 1);
    assert_int_equal(pc_zip_writer_add(&w, "archive/data.pkl", p->b, p->n), PC_OK);
    assert_int_equal(pc_zip_writer_add(&w, "archive/data/0", data, nbytes), PC_OK);
    assert_int_equal(pc_zip_writer_finish(&w), PC_OK);
    pc_zip_writer_free(&w);
    free(data);
    return (unsigned char *)pc_strbuf_finish(&sink.mem, size);
}

/* Loads a hand-made pickle over nbytes of storage; expects status and a message part. */
static void expect_pickle(const pk *p, size_t nbytes, pc_status status, const char *part)
{
    size_t n;
    unsigned char *file = make_pt(p, nbytes, &n);
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_pt_read_buffer(file, n, "crafted.pt", &t, NULL);
    if (st != status)
        fail_msg("status %d (%s), expected %d; message: %s", st, pc_status_name(st), status,
                 pc_error_message());
    if (st == PC_OK)
        pc_tensor_free(&t);
    else
        tf_assert_message_has(part);
    assert_true(pc_tensor_is_null(&t));
    free(file);
}

static spec plain(void)
{
    spec s = {.storage = "FloatStorage", .numel = 6, .rank = 2, .stride_rank = 2};
    s.size[0] = 2;
    s.size[1] = 3;
    s.stride[0] = 3;
    s.stride[1] = 1;
    return s;
}

/* ---- files that are not .pt files ---- */

static void test_missing_empty_foreign(void **state)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_pt_read_file("/nonexistent/x.pt", &t, NULL), PC_ERR_NOT_FOUND);
    assert_string_equal(pc_error_message(),
                        "/nonexistent/x.pt: cannot open: No such file or directory");
    char dir[4096], path[8192];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    assert_int_equal(pc_pt_read_file(dir, &t, NULL), PC_ERR_INVALID);
    tf_assert_message_has("not a regular file");
    snprintf(path, sizeof path, "%s/empty.pt", dir);
    tf_write_all(path, "", 0);
    assert_int_equal(pc_pt_read_file(path, &t, NULL), PC_ERR_FORMAT);
    tf_assert_message_has("empty.pt: the file is empty, so it is not a .pt file");
    unlink(path);
    rmdir(dir);

    assert_int_equal(pc_pt_read_buffer("hello world, not a zip", 22, "x.pt", &t, NULL),
                     PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(),
                        "x.pt: not a .pt file: it is not a zip archive (it starts with bytes 68 "
                        "65 6c 6c, a torch.save file with 50 4b 03 04)");
    assert_int_equal(pc_pt_read_buffer("\x93NUMPY\x01\x00", 8, "x.pt", &t, NULL), PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(), "x.pt: this is a .npy file, not a .pt file");
    assert_int_equal(pc_pt_read_buffer("\x80\x02N.", 4, "x.pt", &t, NULL), PC_ERR_UNSUPPORTED);
    tf_assert_message_has("bare pickle");
    assert_int_equal(pc_pt_read_buffer("", 0, NULL, &t, NULL), PC_ERR_FORMAT);
    tf_assert_message_has("<memory>: not a .pt file");
    assert_true(pc_tensor_is_null(&t));
}

typedef struct bad_file {
    const char *name;
    pc_status status;
    const char *message; /* after "<path>: " */
} bad_file;

static const bad_file bad_files[] = {
    {"bad_compressed.pt", PC_ERR_UNSUPPORTED,
     "zip member 'archive/data.pkl' is compressed (method 8, deflate); torch.save stores members "
     "uncompressed and precheck reads only stored members"},
    {"bad_legacy.pt", PC_ERR_UNSUPPORTED,
     "this is the legacy torch.save format (torch before 1.6, or "
     "_use_new_zipfile_serialization=False), which precheck does not read; load it with torch "
     "and save it again with torch.save(t, path)"},
    {"bad_dict.pt", PC_ERR_UNSUPPORTED,
     "archive/data.pkl: the file holds a dict, not a single tensor"},
    {"bad_list.pt", PC_ERR_UNSUPPORTED,
     "archive/data.pkl: the file holds a list, not a single tensor"},
    {"bad_missing_storage.pt", PC_ERR_FORMAT,
     "the tensor's storage record 'archive/data/0' is missing: the file is incomplete"},
    {"bad_short_storage.pt", PC_ERR_FORMAT,
     "the storage of 12 float32 elements needs 48 bytes but its record 'archive/data/0' holds 44"},
    {"bad_no_pickle.pt", PC_ERR_FORMAT,
     "the zip archive has no 'archive/data.pkl' record: not a torch.save file"},
    {"bad_byteorder.pt", PC_ERR_FORMAT,
     "the byteorder record holds 'middle', not 'little' or 'big'"},
    {"bad_quantized.pt", PC_ERR_UNSUPPORTED,
     "archive/data.pkl: the file holds a quantized tensor, which precheck does not support"},
};

static void test_refused_fixtures(void **state)
{
    for (size_t i = 0; i < sizeof bad_files / sizeof *bad_files; i++) {
        char rel[512], path[4096], want[8192];
        snprintf(rel, sizeof rel, "pt/%s", bad_files[i].name);
        tf_fixture(path, sizeof path, rel);
        pc_tensor t = PC_TENSOR_NULL;
        pc_status st = pc_pt_read_file(path, &t, NULL);
        if (st != bad_files[i].status)
            fail_msg("%s: status %s: %s", bad_files[i].name, pc_status_name(st),
                     pc_error_message());
        snprintf(want, sizeof want, "%s: %s", path, bad_files[i].message);
        assert_string_equal(pc_error_message(), want);
        /* the same through the buffer entry point */
        size_t n;
        unsigned char *bytes = tf_read_all(path, &n);
        assert_int_equal(pc_pt_read_buffer(bytes, n, "b.pt", &t, NULL), bad_files[i].status);
        tf_assert_message_has(bad_files[i].message);
        free(bytes);
        assert_true(pc_tensor_is_null(&t));
    }
}

/* ---- absurd sizes, shapes and views: refused before anything is allocated ---- */

static void test_absurd_sizes(void **state)
{
    pk p;
    spec s = plain();
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_OK, "");

    /* a storage of 10^15 elements over 24 bytes */
    s.numel = 1000000000000000;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT,
                  "crafted.pt: the storage of 1000000000000000 float32 elements needs "
                  "4000000000000000 bytes but its record 'archive/data/0' holds 24");
    /* a storage whose byte size overflows */
    s.numel = INT64_MAX;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "needs more than 2^64 bytes");
    /* a tensor of 10^15 elements on a storage of 6 */
    s = plain();
    s.rank = s.stride_rank = 1;
    s.size[0] = 1000000000000000;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_RANGE,
                  "crafted.pt: archive/data.pkl: tensor of shape [1000000000000000] dtype float32 "
                  "needs 4000000000000000 bytes, more than precheck's limit");
    /* element count overflowing 64 bits */
    s = plain();
    s.size[0] = (int64_t)1 << 62;
    s.size[1] = 8;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_RANGE, "has more elements than fit in 64 bits");
    /* a view that leaves its storage */
    s = plain();
    s.offset = 5;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT,
                  "crafted.pt: archive/data.pkl: the tensor (size [2, 3], stride [3, 1], offset 5) "
                  "reaches elements beyond its storage of 6 elements");
    s = plain();
    s.stride[0] = INT64_MAX / 2;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "reaches elements beyond its storage");
    /* negative numbers */
    s = plain();
    s.size[1] = -3;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "the tensor's size is negative (-3) in dimension 1");
    s = plain();
    s.stride[0] = -1;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "the tensor's stride is negative (-1) in dimension 0");
    s = plain();
    s.offset = -1;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "the storage offset is not an integer of 0 or more");
    s = plain();
    s.numel = -6;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "the storage size is not an integer of 0 or more");
    /* ranks */
    s = plain();
    s.rank = s.stride_rank = 17;
    for (int i = 0; i < 17; i++) {
        s.size[i] = 1;
        s.stride[i] = 1;
    }
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_UNSUPPORTED,
                  "the tensor has 17 dimensions; precheck supports up to 16");
    s = plain();
    s.stride_rank = 1;
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "the tensor's size has 2 dimensions but its stride has 1");
    /* storage classes */
    s = plain();
    s.storage = "UInt16Storage";
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_UNSUPPORTED,
                  "storage class torch.UInt16Storage is not one precheck supports (dtype unknown)");
    s.storage = "QInt8Storage";
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_UNSUPPORTED, "holds a quantized tensor");
    s = plain();
    s.storage = "HalfStorage";
    tensor_pickle(&p, &s);
    expect_pickle(&p, 24, PC_ERR_FORMAT, "needs 12 bytes but its record 'archive/data/0' holds 24");
    expect_pickle(&p, 12, PC_OK, "");
}

/* The pickle names something other than a tensor: nothing is called, the file is refused. */
static void test_not_a_tensor(void **state)
{
    pk p = {.n = 0};
    op(&p, 0x80);
    op(&p, 2);
    global(&p, "os", "system");
    str(&p, "echo hacked");
    op(&p, 0x85);
    op(&p, 'R');
    op(&p, '.');
    expect_pickle(&p, 0, PC_ERR_UNSUPPORTED,
                  "crafted.pt: archive/data.pkl: the file holds a call of os.system, not a tensor");

    p.n = 0;
    op(&p, 0x80);
    op(&p, 2);
    integer(&p, 7);
    op(&p, '.');
    expect_pickle(&p, 0, PC_ERR_UNSUPPORTED, "the file holds an int, not a single tensor");

    /* _rebuild_tensor_v2 with five arguments */
    p.n = 0;
    op(&p, 0x80);
    op(&p, 2);
    global(&p, "torch._utils", "_rebuild_tensor_v2");
    op(&p, '(');
    for (int i = 0; i < 5; i++)
        op(&p, 'N');
    op(&p, 't');
    op(&p, 'R');
    op(&p, '.');
    expect_pickle(&p, 0, PC_ERR_FORMAT,
                  "torch._utils._rebuild_tensor_v2 is called with 5 arguments, which is not what "
                  "torch writes");

    /* a storage argument that is not a persistent id */
    p.n = 0;
    op(&p, 0x80);
    op(&p, 2);
    global(&p, "torch._utils", "_rebuild_tensor_v2");
    op(&p, '(');
    for (int i = 0; i < 6; i++)
        op(&p, 'N');
    op(&p, 't');
    op(&p, 'R');
    op(&p, '.');
    expect_pickle(&p, 0, PC_ERR_FORMAT, "the tensor's first argument is not a storage");

    /* a storage class from another module */
    spec s = plain();
    tensor_pickle(&p, &s);
    unsigned char *at = NULL;
    for (size_t i = 0; i + 19 <= p.n && !at; i++)
        if (memcmp(p.b + i, "torch\nFloatStorage\n", 19) == 0)
            at = p.b + i;
    assert_non_null(at);
    memcpy(at, "numpy\nFloatStorage\n", 19);
    expect_pickle(&p, 24, PC_ERR_FORMAT,
                  "the storage class is the global numpy.FloatStorage, not a torch storage class");
}

/* ---- malformed pickles ---- */

typedef struct bad_pickle {
    const char *bytes;
    size_t len;
    pc_status status;
    const char *message;
} bad_pickle;

#define BP(lit, st, msg)                                                                           \
    {                                                                                              \
        lit, sizeof lit - 1, st, msg                                                               \
    }

static const bad_pickle bad_pickles[] = {
    BP("\x80\x02\xff", PC_ERR_FORMAT,
       "offset 2: unknown pickle opcode 0xff ('?'): not a pickle or a damaged one"),
    BP("\x80\x02I1\n.", PC_ERR_UNSUPPORTED,
       "offset 2: INT is not supported (torch.save writes pickle protocol 2)"),
    BP("\x80\x02N", PC_ERR_FORMAT, "the pickle ends at offset 3 without STOP: truncated pickle"),
    BP("\x80\x02h\x05.", PC_ERR_FORMAT,
       "offset 2: BINGET of memo entry 5, which was never stored: malformed pickle"),
    BP("\x80\x02Nt.", PC_ERR_FORMAT, "offset 3: TUPLE without a MARK before it: malformed pickle"),
    BP("\x80\x02N\x86.", PC_ERR_FORMAT,
       "offset 3: TUPLE2 pops more items than the stack holds: malformed pickle"),
    BP("\x80\x06N.", PC_ERR_UNSUPPORTED, "offset 0: PROTO 6 is newer than pickle protocol 5"),
    BP("\x80\x02X\x00\xca\x9a\x3b", PC_ERR_FORMAT,
       "offset 2: BINUNICODE claims 1000000000 bytes but the pickle ends after 0: truncated "
       "pickle"),
    BP("\x80\x02Nr\x00\x00\x00\x80.", PC_ERR_FORMAT,
       "offset 3: LONG_BINPUT memo index is out of range: malformed pickle"),
    BP("\x80\x02J\x01\x02", PC_ERR_FORMAT,
       "offset 2: BININT needs 4 bytes but the pickle ends after 2: truncated pickle"),
    BP("\x80\x02.", PC_ERR_FORMAT, "offset 2: STOP pops more items than the stack holds"),
    BP("\x80\x02"
       "cos\nsystem",
       PC_ERR_FORMAT, "offset 2: GLOBAL has no end of line: truncated pickle"),
    BP("\x80\x02]Ns.", PC_ERR_FORMAT, "offset 4: SETITEM pops more items than the stack holds"),
    BP("\x80\x02NNNs.", PC_ERR_FORMAT, "offset 5: SETITEM on None: malformed pickle"),
    BP("\x80\x02(Ne.", PC_ERR_FORMAT, "offset 4: APPENDS has no object below its MARK"),
    BP("\x80\x02N)b0\x95\xff\x00\x00\x00\x00\x00\x00\x00.", PC_ERR_FORMAT,
       "offset 6: FRAME is longer than the rest of the pickle: truncated pickle"),
    BP("\x80\x02\x97.", PC_ERR_UNSUPPORTED, "offset 2: NEXT_BUFFER is not supported"),
    BP("\x80\x02NN\x93.", PC_ERR_FORMAT, "offset 4: STACK_GLOBAL needs two strings"),
    BP("\x80\x02NNR.", PC_ERR_FORMAT, "offset 4: REDUCE needs a tuple of arguments"),
};

static void test_malformed_pickles(void **state)
{
    for (size_t i = 0; i < sizeof bad_pickles / sizeof *bad_pickles; i++) {
        const bad_pickle *b = &bad_pickles[i];
        pc_pickle *pickle;
        pc_pk_value *top;
        pc_status st = pc_pickle_load(&pickle, &top, b->bytes, b->len, "p");
        if (st != b->status)
            fail_msg("case %zu: status %s: %s", i, pc_status_name(st), pc_error_message());
        char want[512];
        snprintf(want, sizeof want, "p: %s", b->message);
        if (strncmp(pc_error_message(), want, strlen(want)) != 0)
            fail_msg("case %zu: message \"%s\", expected \"%s\"", i, pc_error_message(), want);
    }
    /* STOP takes the item above an open mark; the mark is harmless, as in Python */
    pc_pickle *pickle;
    pc_pk_value *top;
    assert_int_equal(pc_pickle_load(&pickle, &top, "\x80\x02(N.", 5, "p"), PC_OK);
    assert_int_equal(top->kind, PC_PK_NONE);
    pc_pickle_free(pickle);
    /* a pickle beyond the size limit is refused before it is read */
    assert_int_equal(pc_pickle_load(&pickle, &top, "", PC_PICKLE_MAX_BYTES + 1, "p"), PC_ERR_RANGE);
    tf_assert_message_has("is larger than precheck reads");
    /* deep nesting does not recurse: 100000 nested lists */
    size_t n = 2 + 100000 * 2 + 1;
    char *deep = malloc(n);
    deep[0] = (char)0x80;
    deep[1] = 2;
    memset(deep + 2, ']', 100000);
    memset(deep + 2 + 100000, 'a', 99999);
    deep[n - 2] = 'N'; /* leaves [..] and None; STOP takes None */
    deep[n - 1] = '.';
    assert_int_equal(pc_pickle_load(&pickle, &top, deep, n, "deep"), PC_OK);
    assert_int_equal(top->kind, PC_PK_NONE);
    pc_pickle_free(pickle);
    free(deep);
}

/* Protocol 4 opcodes, memo variants, wrappers and a metadata argument, all in one stream. */
static void test_pickle_opcode_coverage(void **state)
{
    pk p = {.n = 0};
    op(&p, 0x80);
    op(&p, 4);
    op(&p, 0x95); /* FRAME: the rest */
    size_t frame_at = p.n;
    for (int i = 0; i < 8; i++)
        op(&p, 0);
    /* _rebuild_from_type_v2(<_rebuild_tensor_v2>, torch.Tensor, (args), {}) */
    op(&p, 0x8c);
    op(&p, 13);
    raw(&p, "torch._tensor", 13);
    op(&p, 0x94);
    op(&p, 0x8c);
    op(&p, 21);
    raw(&p, "_rebuild_from_type_v2", 21);
    op(&p, 0x94);
    op(&p, 0x93); /* STACK_GLOBAL */
    op(&p, 0x94);
    op(&p, '(');
    global(&p, "torch._utils", "_rebuild_tensor_v2");
    op(&p, 'r');
    le32(&p, 100); /* LONG_BINPUT */
    global(&p, "torch", "Tensor");
    op(&p, '('); /* args of _rebuild_tensor_v2 */
    op(&p, '(');
    op(&p, 0x8c);
    op(&p, 7);
    raw(&p, "storage", 7);
    global(&p, "torch", "DoubleStorage");
    op(&p, 0x8c);
    op(&p, 1);
    op(&p, '0');
    op(&p, 'N'); /* DUP and POP around the location */
    op(&p, '2');
    op(&p, '0');
    op(&p, '0');
    op(&p, 'X');
    le32(&p, 5);
    raw(&p, "cuda:", 5);
    op(&p, 0x8a); /* LONG1 24 */
    op(&p, 2);
    op(&p, 24);
    op(&p, 0);
    op(&p, 't');
    op(&p, 'Q');
    op(&p, 'M'); /* BININT2 offset 2 */
    op(&p, 2);
    op(&p, 0);
    int_tuple(&p, (const int64_t[]){1, 2, 1, 3, 2}, 5);
    int_tuple(&p, (const int64_t[]){22, 6, 6, 2, 1}, 5);
    op(&p, 0x88); /* requires_grad True */
    op(&p, '}');
    op(&p, '}'); /* metadata dict with one item */
    op(&p, '(');
    op(&p, 0x8c);
    op(&p, 3);
    raw(&p, "key", 3);
    op(&p, 'G');
    raw(&p, "\x3f\xf0\x00\x00\x00\x00\x00\x00", 8);
    op(&p, 'u');
    op(&p, 't');
    op(&p, '}'); /* the state */
    op(&p, 't');
    op(&p, 'R');
    op(&p, '}');
    op(&p, 'b'); /* BUILD with an empty state */
    op(&p, 'j');
    le32(&p, 100); /* LONG_BINGET: leaves a global on top... */
    op(&p, '0');   /* ...that POP removes */
    op(&p, '.');
    uint64_t frame = p.n - frame_at - 8;
    for (int i = 0; i < 8; i++)
        p.b[frame_at + (size_t)i] = (unsigned char)(frame >> (8 * i));

    size_t n;
    unsigned char *file = make_pt(&p, 24 * 8, &n);
    pc_tensor t = PC_TENSOR_NULL;
    pc_pt_info info;
    if (pc_pt_read_buffer(file, n, "p4.pt", &t, &info) != PC_OK)
        fail_msg("%s", pc_error_message());
    assert_int_equal(t.dtype, PC_DTYPE_F64);
    assert_int_equal(t.rank, 5);
    assert_int_equal(t.shape[3], 3);
    assert_int_equal(t.strides[0], 22);
    assert_int_equal(t.offset, 2);
    assert_true(info.requires_grad);
    assert_string_equal(info.location, "cuda:");
    assert_int_equal(info.storage_numel, 24);
    /* element [0,1,0,2,1] = storage[2 + 6 + 4 + 1] = bytes 13*8.. of the pattern */
    const unsigned char *e = pc_tensor_element_ptr(&t, (const int64_t[]){0, 1, 0, 2, 1});
    assert_int_equal(e[0], (unsigned char)(13 * 8 * 13 + 1));
    pc_tensor_free(&t);
    free(file);

    /* _rebuild_parameter around it, with the parameter's requires_grad */
    spec s = plain();
    tensor_pickle(&p, &s);
    pk q = {.n = 0};
    op(&q, 0x80);
    op(&q, 2);
    global(&q, "torch._utils", "_rebuild_parameter");
    op(&q, '(');
    raw(&q, p.b + 2, p.n - 3); /* the tensor's stream without PROTO and STOP */
    op(&q, 0x88);
    global(&q, "collections", "OrderedDict");
    op(&q, ')');
    op(&q, 'R');
    op(&q, 't');
    op(&q, 'R');
    op(&q, '.');
    file = make_pt(&q, 24, &n);
    assert_int_equal(pc_pt_read_buffer(file, n, "param.pt", &t, &info), PC_OK);
    assert_true(info.requires_grad);
    pc_tensor_free(&t);
    free(file);
}

/* ---- malformed zip archives (edits of a good file) ---- */

static unsigned char *good_file(size_t *n)
{
    pk p;
    spec s = plain();
    tensor_pickle(&p, &s);
    return make_pt(&p, 24, n);
}

static void expect_zip(unsigned char *file, size_t n, pc_status status, const char *part)
{
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_pt_read_buffer(file, n, "z.pt", &t, NULL);
    if (st != status)
        fail_msg("status %s, expected %s: %s", pc_status_name(st), pc_status_name(status),
                 pc_error_message());
    if (st == PC_OK)
        pc_tensor_free(&t);
    else
        tf_assert_message_has(part);
    free(file);
}

static void test_malformed_zips(void **state)
{
    size_t n;
    unsigned char *f;
    /* The writer's layout: members, central directory, zip64 end (56), locator (20), end (22). */
#define END(f, n)   ((f) + (n)-22)
#define END64(f, n) ((f) + (n)-22 - 20 - 56)

    f = good_file(&n);
    expect_zip(f, n, PC_OK, "");

    f = good_file(&n);
    pc_put_le64(END64(f, n) + 32, 1000); /* entries */
    expect_zip(f, n, PC_ERR_FORMAT,
               "z.pt: zip end record claims 1000 entries, but the central directory has room for "
               "2");
    f = good_file(&n);
    pc_put_le64(END64(f, n) + 40, 1u << 30); /* directory size */
    expect_zip(f, n, PC_ERR_FORMAT, "zip central directory of 1073741824 bytes does not fit");
    f = good_file(&n);
    pc_put_le64(END64(f, n) + 32, 0);
    expect_zip(f, n, PC_ERR_FORMAT, "the zip archive has no entries");
    f = good_file(&n);
    pc_put_le32(END64(f, n) + 16, 1); /* disk number */
    expect_zip(f, n, PC_ERR_UNSUPPORTED, "multi-disk zip archives are not supported");
    f = good_file(&n);
    memset(END(f, n), 0, 4); /* no end record */
    expect_zip(f, n, PC_ERR_FORMAT,
               "z.pt: no zip end-of-central-directory record: the file is truncated or not a zip "
               "archive");
    /* zip64 record damaged while the classic record defers to it */
    f = good_file(&n);
    memset(END64(f, n), 0, 4);
    pc_put_le32(END(f, n) + 16, 0xFFFFFFFF);
    expect_zip(f, n, PC_ERR_FORMAT, "the zip64 end record is missing or damaged");
    /* ... and without the deferral the classic record is used */
    f = good_file(&n);
    memset(END64(f, n), 0, 4);
    expect_zip(f, n, PC_OK, "");

    /* a recorded directory offset far beyond the file: the directory is found where it is, and
     * the shift applied to the members' offsets wraps around without overflowing */
    f = good_file(&n);
    pc_put_le64(END64(f, n) + 48, 0x7FFFFFFFFFFFFFF0u);
    expect_zip(f, n, PC_ERR_FORMAT, "no local header at offset");

    /* central directory entries */
    f = good_file(&n);
    uint64_t cd = pc_le64(END64(f, n) + 48);
    f[cd] = 'X';
    expect_zip(f, n, PC_ERR_FORMAT, "zip central directory entry 0 at offset");
    f = good_file(&n);
    pc_put_le16(f + cd + 28, 0xFFFF); /* name length */
    expect_zip(f, n, PC_ERR_FORMAT, "zip central directory entry 0 runs past the directory's end");
    f = good_file(&n);
    pc_put_le32(f + cd + 42, 0x7FFFFFF0); /* local header offset */
    expect_zip(f, n, PC_ERR_FORMAT,
               "zip member 'archive/data.pkl': no local header at offset 2147483632");
    f = good_file(&n);
    pc_put_le32(f + cd + 42, 0xFFFFFFFF); /* needs a zip64 extra it does not have */
    expect_zip(f, n, PC_ERR_FORMAT, "needs a zip64 extra field that is missing or too short");
    f = good_file(&n);
    pc_put_le16(f + cd + 8, 0x0801); /* encrypted */
    expect_zip(f, n, PC_ERR_UNSUPPORTED, "zip member 'archive/data.pkl' is encrypted");
    f = good_file(&n);
    pc_put_le16(f + cd + 10, 12);
    expect_zip(f, n, PC_ERR_UNSUPPORTED, "is compressed (method 12, bzip2)");
    f = good_file(&n);
    pc_put_le32(f + cd + 20, 5); /* compressed size differs */
    expect_zip(f, n, PC_ERR_FORMAT, "has a compressed size of 5 bytes but a size of");
    f = good_file(&n);
    memcpy(f + cd + 46, "archive_data.pkl", 16); /* no '/' in the first name */
    expect_zip(f, n, PC_ERR_FORMAT,
               "z.pt: zip member 'archive_data.pkl' has no '<archive>/' prefix: not a torch.save "
               "file");
    /* local headers */
    f = good_file(&n);
    pc_put_le16(f + 8, 8); /* local method */
    expect_zip(f, n, PC_ERR_FORMAT, "the local header says method 8");
    f = good_file(&n);
    f[30] = 'A'; /* local name */
    expect_zip(f, n, PC_ERR_FORMAT, "does not match the central directory");
    f = good_file(&n);
    pc_put_le32(f + cd + 24, 100000); /* member size past the end */
    pc_put_le32(f + cd + 20, 100000);
    expect_zip(f, n, PC_ERR_FORMAT, "runs past the end of the file");
#undef END
#undef END64
}

/* ---- every truncation, many corruptions ---- */

static const char *const damage_files[] = {
    "dtype_float32.pt",
    "scalar_float32.pt",
    "npu_format_object_float16.pt",
    "protocol4_int64.pt",
    "big_endian_float64_unaligned.pt",
    "torch2_layout_float32.pt",
    "view_offset_transpose_float64.pt",
    "empty_3x0_int32.pt",
};

static void test_truncated_everywhere(void **state)
{
    char dir[4096], tmp[8192];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(tmp, sizeof tmp, "%s/cut.pt", dir);
    for (size_t i = 0; i < sizeof damage_files / sizeof *damage_files; i++) {
        char rel[512], path[4096];
        snprintf(rel, sizeof rel, "pt/%s", damage_files[i]);
        size_t n;
        unsigned char *file = tf_read_all(tf_fixture(path, sizeof path, rel), &n);
        for (size_t cut = 0; cut < n; cut++) {
            /* an exact-size copy, so that ASan sees any read past the end */
            unsigned char *part = malloc(cut ? cut : 1);
            memcpy(part, file, cut);
            pc_tensor t = PC_TENSOR_NULL;
            pc_error_clear();
            if (pc_pt_read_buffer(part, cut, "cut.pt", &t, NULL) == PC_OK)
                fail_msg("%s cut to %zu bytes loaded", damage_files[i], cut);
            assert_true(strlen(pc_error_message()) > 0);
            if (cut % 17 == 0 && cut > 0) { /* and some through the mapped-file path */
                tf_write_all(tmp, part, cut);
                assert_int_not_equal(pc_pt_read_file(tmp, &t, NULL), PC_OK);
            }
            free(part);
        }
        free(file);
    }
    unlink(tmp);
    rmdir(dir);
}

/* One damaged copy: a valid tensor (all of whose elements can be read) or an error with a
 * message. Returns 1 when it loaded. */
static int load_damaged(const unsigned char *bytes, size_t n)
{
    pc_tensor t = PC_TENSOR_NULL;
    pc_pt_info info;
    pc_error_clear();
    if (pc_pt_read_buffer(bytes, n, "damaged.pt", &t, &info) == PC_OK) {
        tf_touch_all(&t);
        pc_tensor_free(&t);
        return 1;
    }
    assert_true(strlen(pc_error_message()) > 0);
    return 0;
}

static void test_corrupted_everywhere(void **state)
{
    static const unsigned char flips[] = {0xFF, 0x01, 0x80, 0x7F};
    uint64_t rng = 0x9E3779B97F4A7C15u;
    long loaded = 0, refused = 0;
    for (size_t i = 0; i < sizeof damage_files / sizeof *damage_files; i++) {
        char rel[512], path[4096];
        snprintf(rel, sizeof rel, "pt/%s", damage_files[i]);
        size_t n;
        unsigned char *file = tf_read_all(tf_fixture(path, sizeof path, rel), &n);
        unsigned char *copy = malloc(n);
        for (size_t at = 0; at < n; at++) {
            for (size_t k = 0; k <= sizeof flips; k++) {
                memcpy(copy, file, n);
                copy[at] = k < sizeof flips ? (unsigned char)(copy[at] ^ flips[k]) : 0;
                if (load_damaged(copy, n))
                    loaded++;
                else
                    refused++;
            }
        }
        /* several random bytes at once */
        for (int round = 0; round < 3000; round++) {
            memcpy(copy, file, n);
            int count = 1 + (int)(rng % 8);
            for (int c = 0; c < count; c++) {
                rng = rng * 6364136223846793005u + 1442695040888963407u;
                copy[(rng >> 33) % n] = (unsigned char)(rng >> 20);
            }
            if (load_damaged(copy, n))
                loaded++;
            else
                refused++;
        }
        free(copy);
        free(file);
    }
    print_message("corruptions: %ld loaded (padding, data, unused fields), %ld refused\n", loaded,
                  refused);
    assert_true(refused > 0 && loaded > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_missing_empty_foreign, setup),
        cmocka_unit_test_setup(test_refused_fixtures, setup),
        cmocka_unit_test_setup(test_absurd_sizes, setup),
        cmocka_unit_test_setup(test_not_a_tensor, setup),
        cmocka_unit_test_setup(test_malformed_pickles, setup),
        cmocka_unit_test_setup(test_pickle_opcode_coverage, setup),
        cmocka_unit_test_setup(test_malformed_zips, setup),
        cmocka_unit_test_setup(test_truncated_everywhere, setup),
        cmocka_unit_test_setup(test_corrupted_everywhere, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
