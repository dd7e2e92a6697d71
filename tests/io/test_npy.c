/* The .npy reader and writer: numpy's own files (every dtype, both byte orders, Fortran
 * order, versions 1-3, 0-dim, empty, an old Python 2 header), byte equality of the writer
 * with np.save, round trips, np.load of written files where numpy is installed, header
 * validation with its messages, and every truncation and many corruptions. */
#include "test_pt_support.h"

#include "io/tensor_file.h"
#include "precheck/io/file_out.h"
#include "precheck/io/npy.h"

static int setup(void **state)
{
    pc_error_clear();
    return 0;
}

#define MAX_BYTES 65536

static void check_manifest_tensor(char **f, const pc_tensor *t, const pc_npy_info *info)
{
    int64_t shape[PC_TENSOR_MAX_DIMS], strides[PC_TENSOR_MAX_DIMS];
    int rank = tf_parse_dims(f[2], shape);
    assert_int_equal(tf_parse_dims(f[3], strides), rank);
    if (strcmp(pc_dtype_name(t->dtype), f[1]) != 0)
        fail_msg("%s: dtype %s, expected %s", f[0], pc_dtype_name(t->dtype), f[1]);
    assert_int_equal(t->rank, rank);
    for (int i = 0; i < rank; i++) {
        assert_int_equal(t->shape[i], shape[i]);
        if (shape[i] > 1)
            assert_int_equal(t->strides[i], strides[i]);
    }
    assert_int_equal(info->fortran_order, atoi(f[4]));
    assert_int_equal(info->big_endian, atoi(f[5]));
    assert_int_equal(info->version_major, atoi(f[6]));
    assert_int_equal(info->version_minor, 0);
    static unsigned char want[MAX_BYTES], got[MAX_BYTES];
    size_t nwant = tf_hex_decode(f[7], want, sizeof want);
    size_t ngot = tf_row_major_bytes(t, got);
    assert_int_equal(ngot, nwant);
    if (memcmp(got, want, ngot) != 0)
        fail_msg("%s: the values differ from the manifest", f[0]);
}

static void test_golden_manifest(void **state)
{
    char path[4096];
    size_t size;
    char *manifest = (char *)tf_read_all(tf_fixture(path, sizeof path, "npy/MANIFEST"), &size);
    int checked = 0;
    char *save = NULL;
    for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *f[8];
        assert_int_equal(tf_split(line, f, 8), 8);
        char rel[512];
        snprintf(rel, sizeof rel, "npy/%s", f[0]);
        tf_fixture(path, sizeof path, rel);
        pc_tensor t = PC_TENSOR_NULL;
        pc_npy_info info;
        if (pc_npy_read_file(path, &t, &info) != PC_OK)
            fail_msg("%s", pc_error_message());
        check_manifest_tensor(f, &t, &info);
        /* numpy aligns data to 64 bytes: used in place (big-endian swapped in the private
         * mapping); the old 16-byte-aligned header also lands on an aligned offset */
        if (pc_tensor_numel(&t) > 0)
            assert_true(info.mapped);
        pc_tensor_free(&t);

        size_t n;
        unsigned char *bytes = tf_read_all(path, &n);
        if (pc_npy_read_buffer(bytes, n, f[0], &t, &info) != PC_OK)
            fail_msg("%s", pc_error_message());
        assert_false(info.mapped);
        check_manifest_tensor(f, &t, &info);
        pc_tensor_free(&t);
        free(bytes);
        checked++;
    }
    free(manifest);
    assert_true(checked >= 25);
}

/* Reading np.save's file and writing it again gives np.save's bytes. */
static void test_writer_matches_numpy(void **state)
{
    const char *names[] = {
        "c_bool.npy",        "c_uint8.npy",     "c_int8.npy",       "c_int16.npy",
        "c_int32.npy",       "c_int64.npy",     "c_float16.npy",    "c_float32.npy",
        "c_float64.npy",     "c_complex64.npy", "c_complex128.npy", "scalar_float64.npy",
        "empty_float32.npy",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char rel[512], path[4096];
        snprintf(rel, sizeof rel, "npy/%s", names[i]);
        size_t n;
        unsigned char *file = tf_read_all(tf_fixture(path, sizeof path, rel), &n);
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(pc_npy_read_buffer(file, n, names[i], &t, NULL), PC_OK);
        void *ours;
        size_t ours_n;
        assert_int_equal(pc_npy_write_buffer(&t, &ours, &ours_n), PC_OK);
        if (ours_n != n || memcmp(ours, file, n) != 0)
            fail_msg("%s: written bytes differ from np.save's", names[i]);
        free(ours);
        free(file);
        pc_tensor_free(&t);
    }
}

static void fill_pattern(pc_tensor *t, unsigned seed)
{
    size_t n = pc_tensor_nbytes(t);
    unsigned char *p = pc_tensor_data(t);
    for (size_t i = 0; i < n; i++)
        p[i] = t->dtype == PC_DTYPE_BOOL ? (unsigned char)((i * 5 + seed) % 2)
                                         : (unsigned char)(i * 41 + seed);
}

static const int64_t rt_shapes[][4] = {{0}, {7}, {3, 4}, {2, 3, 4}, {0, 5}, {1, 1, 1, 300}};
static const int rt_ranks[] = {0, 1, 2, 3, 2, 4};

static void test_round_trips(void **state)
{
    static unsigned char x[MAX_BYTES], y[MAX_BYTES];
    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        for (size_t s = 0; s < sizeof rt_ranks / sizeof *rt_ranks; s++) {
            pc_tensor t = PC_TENSOR_NULL, back = PC_TENSOR_NULL;
            assert_int_equal(pc_tensor_alloc(&t, (pc_dtype)d, rt_shapes[s], rt_ranks[s]), PC_OK);
            fill_pattern(&t, (unsigned)(d * 3) + (unsigned)s);
            void *buf;
            size_t n;
            pc_status st = pc_npy_write_buffer(&t, &buf, &n);
            if (!pc_dtype_traits_of((pc_dtype)d)->npy_descr) {
                assert_int_equal(st, PC_ERR_UNSUPPORTED);
                tf_assert_message_has("numpy has no dtype for torch.");
                pc_tensor_free(&t);
                continue;
            }
            assert_int_equal(st, PC_OK);
            assert_int_equal((10 + pc_le16((unsigned char *)buf + 8)) % 64, 0);
            pc_npy_info info;
            if (pc_npy_read_buffer(buf, n, "written", &back, &info) != PC_OK)
                fail_msg("%s", pc_error_message());
            assert_int_equal(info.version_major, 1);
            assert_int_equal(back.dtype, t.dtype);
            assert_true(pc_tensor_same_shape(&t, &back));
            size_t nx = tf_row_major_bytes(&t, x), ny = tf_row_major_bytes(&back, y);
            assert_int_equal(nx, ny);
            assert_memory_equal(x, y, nx);
            free(buf);
            pc_tensor_free(&back);
            pc_tensor_free(&t);
        }
    }
    /* a non-contiguous view through the file API */
    char dir[4096], path[8192];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/v.npy", dir);
    pc_tensor t = PC_TENSOR_NULL, v = PC_TENSOR_NULL, back = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_C64, (const int64_t[]){3, 5}, 2), PC_OK);
    fill_pattern(&t, 1);
    assert_int_equal(pc_tensor_transpose(&v, &t, 0, 1), PC_OK);
    assert_int_equal(pc_npy_write_file(path, &v, PC_FILE_OUT_REPLACE), PC_OK);
    pc_npy_info info;
    assert_int_equal(pc_npy_read_file(path, &back, &info), PC_OK);
    assert_true(info.mapped);
    assert_true(pc_tensor_is_contiguous(&back));
    size_t nx = tf_row_major_bytes(&v, x), ny = tf_row_major_bytes(&back, y);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    pc_tensor_free(&back);
    pc_tensor_free(&v);
    pc_tensor_free(&t);
    unlink(path);
    rmdir(dir);
}

/* Files written here load in numpy with the same dtype, shape and bytes. */
static void test_numpy_loads_written_files(void **state)
{
    char dir[4096], path[8192];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *manifest = fopen(path, "w");
    assert_non_null(manifest);
    char names[PC_DTYPE_COUNT * 8][64];
    size_t count = 0;
    static char hex[2 * MAX_BYTES + 2];
    static unsigned char bytes[MAX_BYTES];
    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        if (!pc_dtype_traits_of((pc_dtype)d)->npy_descr)
            continue;
        for (size_t s = 0; s < sizeof rt_ranks / sizeof *rt_ranks; s++) {
            pc_tensor t = PC_TENSOR_NULL;
            assert_int_equal(pc_tensor_alloc(&t, (pc_dtype)d, rt_shapes[s], rt_ranks[s]), PC_OK);
            fill_pattern(&t, (unsigned)d + (unsigned)(11 * s));
            snprintf(names[count], sizeof names[count], "%s_%zu.npy", pc_dtype_name((pc_dtype)d),
                     s);
            snprintf(path, sizeof path, "%s/%s", dir, names[count]);
            assert_int_equal(pc_npy_write_file(path, &t, PC_FILE_OUT_REPLACE), PC_OK);
            tf_hex_encode(bytes, tf_row_major_bytes(&t, bytes), hex);
            char shape[PC_SHAPE_FORMAT_MAX], compact[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(shape, sizeof shape, t.shape, t.rank);
            size_t k = 0;
            for (const char *c = shape; *c; c++)
                if (*c != ' ')
                    compact[k++] = *c;
            compact[k] = '\0';
            fprintf(manifest, "%s %s %s %s\n", names[count],
                    pc_dtype_traits_of(t.dtype)->numpy_name, compact, hex);
            count++;
            pc_tensor_free(&t);
        }
    }
    fclose(manifest);
    int rc = tf_run_checker(dir);
    const char *list[PC_DTYPE_COUNT * 8];
    for (size_t i = 0; i < count; i++)
        list[i] = names[i];
    tf_remove_dir(dir, list, count);
    if (rc == 77)
        skip();
    assert_int_equal(rc, 0);
}

/* ---- header validation ---- */

/* A .npy of version 1 with the given header text (padded as numpy pads) and data bytes. */
static unsigned char *make_npy(const char *header, size_t data_bytes, size_t *size)
{
    size_t h = strlen(header);
    size_t hlen = h + 1;
    size_t pad = (64 - (10 + hlen) % 64) % 64;
    size_t total = 10 + hlen + pad + data_bytes;
    unsigned char *b = malloc(total);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    pc_put_le16(b + 8, (uint16_t)(hlen + pad));
    memcpy(b + 10, header, h);
    memset(b + 10 + h, ' ', pad);
    b[10 + h + pad] = '\n';
    memset(b + 10 + hlen + pad, 0x3c, data_bytes);
    *size = total;
    return b;
}

typedef struct bad_header {
    const char *header;
    size_t data;
    pc_status status;
    const char *message; /* a part of the message, which starts with "h.npy: " */
} bad_header;

static const bad_header bad_headers[] = {
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24, PC_OK, NULL},
    {"{\"descr\": \"<f4\", \"shape\": [2], \"fortran_order\": False}", 8, PC_ERR_FORMAT,
     ".npy header, column 27: shape is not a tuple"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 23, PC_ERR_FORMAT,
     "truncated .npy file: shape [2, 3] of float32 needs 24 bytes of data, the file has 23 after "
     "its header"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", 12, PC_ERR_FORMAT,
     ".npy header, column 54: the shape (n) is an integer in parentheses, not a tuple (n,)"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", 12, PC_ERR_FORMAT,
     "the shape has a negative dimension"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000000,), }", 12, PC_ERR_RANGE,
     ".npy header: tensor of shape [1000000000000000] dtype float32 needs 4000000000000000 bytes, "
     "more than precheck's limit"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), }", 12,
     PC_ERR_RANGE, "has more elements than fit in 64 bits"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 12,
     PC_ERR_FORMAT, "a dimension of the shape is beyond int64"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }", 4,
     PC_ERR_UNSUPPORTED, ".npy header: the shape has more than 16 dimensions, precheck's limit"},
    {"{'descr': '<f4', 'fortran_order': False}", 4, PC_ERR_FORMAT,
     ".npy header lacks the key 'shape'"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}", 4, PC_ERR_FORMAT,
     "unexpected key 'extra' (the header has exactly 'descr', 'fortran_order' and 'shape')"},
    {"{'descr': '<f4', 'fortran_order': maybe, 'shape': (), }", 4, PC_ERR_FORMAT,
     "fortran_order is not True or False"},
    {"{'descr': '|O', 'fortran_order': False, 'shape': (), }", 8, PC_ERR_UNSUPPORTED,
     ".npy descr '|O' is an object array (pickled Python objects), which precheck never loads"},
    {"{'descr': '<u2', 'fortran_order': False, 'shape': (), }", 8, PC_ERR_UNSUPPORTED,
     ".npy descr '<u2' is an unsigned integer type precheck does not have"},
    {"{'descr': '<U5', 'fortran_order': False, 'shape': (), }", 20, PC_ERR_UNSUPPORTED,
     "is a string array"},
    {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (), }", 4, PC_ERR_UNSUPPORTED,
     ".npy descr is a structured dtype (a list of fields), which precheck does not read"},
    {"{'descr': '<f4', 'fortran_order': False, 'shape': (), } x", 4, PC_ERR_FORMAT,
     "text after the header's dict"},
    {"['descr']", 4, PC_ERR_FORMAT, ".npy header, column 1: the header is not a dict"},
    {"{'descr: '<f4'}", 4, PC_ERR_FORMAT, "expected ':' after a key"},
    {"{'descr': '<f4", 4, PC_ERR_FORMAT, "a string is not closed"},
    {"{'descr': '<f4' 'shape': ()}", 4, PC_ERR_FORMAT, "expected ',' or '}'"},
    {"{'descr': '>f8', 'fortran_order': True, 'shape': (2, 1), }", 16, PC_OK, NULL},
    {"{'descr': '=i2', 'fortran_order': False, 'shape': (2,), }", 4, PC_OK, NULL},
    {"{'descr': 'i2', 'fortran_order': False, 'shape': (2L,), }", 4, PC_OK, NULL},
};

static void test_bad_headers(void **state)
{
    for (size_t i = 0; i < sizeof bad_headers / sizeof *bad_headers; i++) {
        const bad_header *b = &bad_headers[i];
        size_t n;
        unsigned char *file = make_npy(b->header, b->data, &n);
        pc_tensor t = PC_TENSOR_NULL;
        pc_status st = pc_npy_read_buffer(file, n, "h.npy", &t, NULL);
        if (st != b->status)
            fail_msg("case %zu: status %s: %s", i, pc_status_name(st), pc_error_message());
        if (st == PC_OK) {
            tf_touch_all(&t);
            pc_tensor_free(&t);
        } else {
            const char *msg = pc_error_message();
            if (strncmp(msg, "h.npy: ", 7) != 0 || !strstr(msg, b->message))
                fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, msg, b->message);
        }
        free(file);
    }
}

static void test_bad_preambles(void **state)
{
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_npy_read_buffer("not numpy at all", 16, "x.npy", &t, NULL), PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(),
                        "x.npy: not a .npy file: it does not start with \\x93NUMPY");
    assert_int_equal(pc_npy_read_buffer("PK\x03\x04....", 8, "x.npy", &t, NULL), PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(),
                        "x.npy: this is a zip archive (a .pt file?), not a .npy file");
    assert_int_equal(pc_npy_read_buffer("\x93NUM", 4, "x.npy", &t, NULL), PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(), "x.npy: truncated .npy file of 4 bytes");
    assert_int_equal(pc_npy_read_buffer("\x93NUMPY\x04\x00\x10\x00", 10, "x.npy", &t, NULL),
                     PC_ERR_UNSUPPORTED);
    assert_string_equal(
        pc_error_message(),
        "x.npy: .npy format version 4.0 is not supported (numpy writes 1.0, 2.0 and "
        "3.0)");
    assert_int_equal(pc_npy_read_buffer("\x93NUMPY\x01\x00\x10\x00{}", 12, "x.npy", &t, NULL),
                     PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(),
                        "x.npy: truncated .npy file: the header claims 16 bytes but the file has 2 "
                        "after the preamble");
    assert_int_equal(pc_npy_read_buffer("\x93NUMPY\x02\x00\x10\x00", 10, "x.npy", &t, NULL),
                     PC_ERR_FORMAT);
    tf_assert_message_has("truncated .npy file of 10 bytes");
    assert_int_equal(pc_npy_read_file("/nonexistent.npy", &t, NULL), PC_ERR_NOT_FOUND);
    assert_true(pc_tensor_is_null(&t));
    /* version 2 and 3 preambles with a 4-byte length */
    size_t n;
    unsigned char *v1 =
        make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 8, &n);
    unsigned char *v3 = malloc(n + 2);
    memcpy(v3, "\x93NUMPY\x03\x00", 8);
    pc_put_le32(v3 + 8, pc_le16(v1 + 8));
    memcpy(v3 + 12, v1 + 10, n - 10);
    pc_npy_info info;
    assert_int_equal(pc_npy_read_buffer(v3, n + 2, "v3.npy", &t, &info), PC_OK);
    assert_int_equal(info.version_major, 3);
    pc_tensor_free(&t);
    free(v3);
    free(v1);
}

/* ---- damage ---- */

static const char *const damage_files[] = {"c_float32.npy", "big_endian_complex128.npy",
                                           "fortran_float32.npy", "scalar_float64.npy",
                                           "old_header_int16.npy"};

static void test_truncated_and_corrupted(void **state)
{
    uint64_t rng = 12345;
    long loaded = 0, refused = 0;
    for (size_t i = 0; i < sizeof damage_files / sizeof *damage_files; i++) {
        char rel[512], path[4096];
        snprintf(rel, sizeof rel, "npy/%s", damage_files[i]);
        size_t n;
        unsigned char *file = tf_read_all(tf_fixture(path, sizeof path, rel), &n);
        for (size_t cut = 0; cut < n; cut++) {
            unsigned char *part = malloc(cut ? cut : 1);
            memcpy(part, file, cut);
            pc_tensor t = PC_TENSOR_NULL;
            if (pc_npy_read_buffer(part, cut, "cut.npy", &t, NULL) == PC_OK)
                fail_msg("%s cut to %zu bytes loaded", damage_files[i], cut);
            assert_true(strlen(pc_error_message()) > 0);
            free(part);
        }
        unsigned char *copy = malloc(n);
        for (size_t at = 0; at < n; at++) {
            for (int k = 0; k < 4; k++) {
                memcpy(copy, file, n);
                static const unsigned char flips[] = {0xFF, 0x01, 0x80};
                copy[at] = k < 3 ? (unsigned char)(copy[at] ^ flips[k]) : 0;
                pc_tensor t = PC_TENSOR_NULL;
                pc_error_clear();
                if (pc_npy_read_buffer(copy, n, "bad.npy", &t, NULL) == PC_OK) {
                    tf_touch_all(&t);
                    pc_tensor_free(&t);
                    loaded++;
                } else {
                    assert_true(strlen(pc_error_message()) > 0);
                    refused++;
                }
            }
        }
        for (int round = 0; round < 2000; round++) {
            memcpy(copy, file, n);
            for (int c = 0; c < 1 + (int)(rng % 6); c++) {
                rng = rng * 6364136223846793005u + 1442695040888963407u;
                copy[(rng >> 33) % (n < 128 ? n : 128)] = (unsigned char)(rng >> 24);
            }
            pc_tensor t = PC_TENSOR_NULL;
            if (pc_npy_read_buffer(copy, n, "bad.npy", &t, NULL) == PC_OK) {
                tf_touch_all(&t);
                pc_tensor_free(&t);
                loaded++;
            } else {
                refused++;
            }
        }
        free(copy);
        free(file);
    }
    print_message("corruptions: %ld loaded, %ld refused\n", loaded, refused);
    assert_true(refused > 0 && loaded > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_golden_manifest, setup),
        cmocka_unit_test_setup(test_writer_matches_numpy, setup),
        cmocka_unit_test_setup(test_round_trips, setup),
        cmocka_unit_test_setup(test_numpy_loads_written_files, setup),
        cmocka_unit_test_setup(test_bad_headers, setup),
        cmocka_unit_test_setup(test_bad_preambles, setup),
        cmocka_unit_test_setup(test_truncated_and_corrupted, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
