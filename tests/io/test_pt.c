/* The .pt reader and writer on good files: every tensor file of the real msprobe dumps, the
 * golden fixtures made by tests/golden/make_pt_fixtures.py (every dtype, 0-dim, empty, views
 * with offsets and strides, big-endian, torch_npu, other pickle protocols and zip layouts),
 * round trips through the writer, byte equality of the written pickle with torch's, and
 * torch.load of written files where torch is installed. */
#include "test_pt_support.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>

#include "io/pt_impl.h"
#include "io/zip.h"
#include "precheck/io/file_out.h"
#include "precheck/core/convert.h"
#include "precheck/io/pt.h"

static int setup(void **state)
{
    pc_error_clear();
    return 0;
}

#define MAX_BYTES 65536

/* ---- msprobe dumps ---- */

static const char *const dump_dirs[] = {
    "msprobe/dumps/cnn_tensor/step0/rank/dump_tensor_data",
    "msprobe/dumps/ew_fp16_tensor/step0/rank/dump_tensor_data",
    "msprobe/dumps/gpt_bf16_tensor/step0/rank/dump_tensor_data",
    "msprobe/dumps/gpt_tensor/step0/rank/dump_tensor_data",
    "msprobe/run_ut/gpt_tensor_save_error_data/ut_error_data20261202103020",
    "msprobe/run_ut/gpt_bf16_tensor_save_error_data/ut_error_data20261202102625",
};

/* Every .pt of the real dumps loads, as a mapped, contiguous tensor on "cpu". */
static void test_msprobe_all_files_load(void **state)
{
    int loaded = 0;
    for (size_t d = 0; d < sizeof dump_dirs / sizeof *dump_dirs; d++) {
        char dir[4096];
        tf_fixture(dir, sizeof dir, dump_dirs[d]);
        DIR *dp = opendir(dir);
        if (!dp)
            fail_msg("cannot open %s", dir);
        struct dirent *ent;
        while ((ent = readdir(dp)) != NULL) {
            size_t len = strlen(ent->d_name);
            if (len < 3 || strcmp(ent->d_name + len - 3, ".pt") != 0)
                continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
            pc_tensor t = PC_TENSOR_NULL;
            pc_pt_info info;
            if (pc_pt_read_file(path, &t, &info) != PC_OK)
                fail_msg("%s", pc_error_message());
            assert_true(pc_tensor_is_contiguous(&t));
            assert_string_equal(info.location, "cpu");
            assert_int_equal(info.npu_format, -1);
            assert_false(info.big_endian);
            assert_int_equal(info.storage_numel, pc_tensor_numel(&t));
            if (pc_tensor_numel(&t) > 0)
                assert_true(info.mapped);
            tf_touch_all(&t);
            pc_tensor_free(&t);
            loaded++;
        }
        closedir(dp);
    }
    /* 546 dump files and the error-data files of two runs (written by run_ut's torch.save) */
    assert_true(loaded >= 546 + 2);
}

typedef struct dump_expect {
    const char *file;
    pc_dtype dtype;
    int rank;
    int64_t shape[4];
    double max, min; /* from the record's Max and Min */
} dump_expect;

/* A handful of records, written out by hand from the dumps' dump.json. */
static const dump_expect dump_expects[] = {
    {"msprobe/dumps/cnn_tensor/step0/rank/dump_tensor_data/Functional.conv2d.0.forward.input.0.pt",
     PC_DTYPE_F32,
     4,
     {4, 3, 16, 16},
     4.076706409454346,
     -3.860804319381714},
    {"msprobe/dumps/cnn_tensor/step0/rank/dump_tensor_data/Tensor.add_.0.forward.input.0.pt",
     PC_DTYPE_I64,
     0,
     {0},
     0,
     0},
    {"msprobe/dumps/cnn_tensor/step0/rank/dump_tensor_data/"
     "Functional.cross_entropy.0.forward.input.1.pt",
     PC_DTYPE_I64,
     1,
     {4},
     9,
     1},
    {"msprobe/dumps/ew_fp16_tensor/step0/rank/dump_tensor_data/Tensor.__mul__.0.forward.input.0.pt",
     PC_DTYPE_F16,
     2,
     {4, 32},
     2.662109375,
     -2.171875},
    {"msprobe/dumps/ew_fp16_tensor/step0/rank/dump_tensor_data/Tensor.sum.0.forward.output.0.pt",
     PC_DTYPE_F16,
     0,
     {0},
     265,
     265},
    {"msprobe/dumps/gpt_bf16_tensor/step0/rank/dump_tensor_data/"
     "Functional.embedding.0.forward.input.1.pt",
     PC_DTYPE_BF16,
     2,
     {64, 32},
     3.65625,
     -4.0625},
    {"msprobe/dumps/gpt_bf16_tensor/step0/rank/dump_tensor_data/"
     "Tensor.transpose.0.forward.input.0.pt",
     PC_DTYPE_BF16,
     4,
     {2, 8, 4, 8},
     1.859375,
     -1.78125},
    {"msprobe/dumps/gpt_bf16_tensor/step0/rank/dump_tensor_data/Torch.tril.0.forward.input.0.pt",
     PC_DTYPE_BOOL,
     2,
     {8, 8},
     1,
     1},
    {"msprobe/dumps/gpt_bf16_tensor/step0/rank/dump_tensor_data/"
     "Functional.cross_entropy.0.forward.output.0.pt",
     PC_DTYPE_BF16,
     0,
     {0},
     4.9375,
     4.9375},
    {"msprobe/dumps/gpt_tensor/step0/rank/dump_tensor_data/"
     "Functional.embedding.0.forward.input.0.pt",
     PC_DTYPE_I64,
     2,
     {2, 8},
     63,
     0},
    {"msprobe/dumps/gpt_tensor/step0/rank/dump_tensor_data/"
     "Functional.embedding.0.forward.output.0.pt",
     PC_DTYPE_F32,
     3,
     {2, 8, 32},
     3.1918022632598877,
     -3.2782087326049805},
};

static void test_msprobe_records(void **state)
{
    for (size_t i = 0; i < sizeof dump_expects / sizeof *dump_expects; i++) {
        const dump_expect *e = &dump_expects[i];
        char path[4096];
        tf_fixture(path, sizeof path, e->file);
        pc_tensor t = PC_TENSOR_NULL;
        if (pc_pt_read_file(path, &t, NULL) != PC_OK)
            fail_msg("%s", pc_error_message());
        assert_int_equal(t.dtype, e->dtype);
        assert_int_equal(t.rank, e->rank);
        for (int d = 0; d < e->rank; d++)
            assert_int_equal(t.shape[d], e->shape[d]);
        double mx = -HUGE_VAL, mn = HUGE_VAL;
        int64_t n = pc_tensor_numel(&t);
        const unsigned char *base = pc_tensor_data(&t);
        for (int64_t k = 0; k < n; k++) {
            double v;
            pc_element_load(base + (size_t)k * pc_dtype_size(t.dtype), t.dtype, &v, NULL);
            mx = v > mx ? v : mx;
            mn = v < mn ? v : mn;
        }
        pc_assert_same_f64(mx, e->max);
        pc_assert_same_f64(mn, e->min);
        pc_tensor_free(&t);
    }
}

/* ---- golden fixtures ---- */

/* Checks one loaded tensor against its manifest fields. */
static void check_manifest_tensor(char **f, const pc_tensor *t, const pc_pt_info *info)
{
    int64_t shape[PC_TENSOR_MAX_DIMS], strides[PC_TENSOR_MAX_DIMS];
    int rank = tf_parse_dims(f[2], shape);
    int srank = tf_parse_dims(f[3], strides);
    assert_int_equal(rank, srank);
    if (strcmp(pc_dtype_name(t->dtype), f[1]) != 0)
        fail_msg("%s: dtype %s, expected %s", f[0], pc_dtype_name(t->dtype), f[1]);
    assert_int_equal(t->rank, rank);
    for (int i = 0; i < rank; i++) {
        assert_int_equal(t->shape[i], shape[i]);
        assert_int_equal(t->strides[i], strides[i]);
    }
    assert_int_equal(t->offset, strtoll(f[4], NULL, 10));
    assert_int_equal(info->storage_numel, strtoll(f[5], NULL, 10));
    assert_int_equal(info->requires_grad, atoi(f[6]));
    static unsigned char want[MAX_BYTES], got[MAX_BYTES];
    size_t nwant = tf_hex_decode(f[7], want, sizeof want);
    assert_true(pc_tensor_nbytes(t) <= sizeof got);
    size_t ngot = tf_row_major_bytes(t, got);
    assert_int_equal(ngot, nwant);
    if (memcmp(got, want, ngot) != 0)
        fail_msg("%s: the values differ from the manifest", f[0]);
}

static void test_golden_manifest(void **state)
{
    char path[4096];
    size_t size;
    char *manifest = (char *)tf_read_all(tf_fixture(path, sizeof path, "pt/MANIFEST"), &size);
    int checked = 0;
    char *save = NULL;
    for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *f[8];
        assert_int_equal(tf_split(line, f, 8), 8);
        char rel[512];
        snprintf(rel, sizeof rel, "pt/%s", f[0]);
        tf_fixture(path, sizeof path, rel);

        pc_tensor t = PC_TENSOR_NULL;
        pc_pt_info info;
        if (pc_pt_read_file(path, &t, &info) != PC_OK)
            fail_msg("%s", pc_error_message());
        check_manifest_tensor(f, &t, &info);
        pc_tensor_free(&t);

        size_t n;
        unsigned char *bytes = tf_read_all(path, &n);
        if (pc_pt_read_buffer(bytes, n, f[0], &t, &info) != PC_OK)
            fail_msg("%s", pc_error_message());
        assert_false(info.mapped);
        free(bytes);
        check_manifest_tensor(f, &t, &info);
        pc_tensor_free(&t);
        checked++;
    }
    free(manifest);
    assert_true(checked >= 40);
}

static void read_fixture(const char *name, pc_tensor *t, pc_pt_info *info)
{
    char rel[512], path[4096];
    snprintf(rel, sizeof rel, "pt/%s", name);
    if (pc_pt_read_file(tf_fixture(path, sizeof path, rel), t, info) != PC_OK)
        fail_msg("%s", pc_error_message());
}

static void test_golden_details(void **state)
{
    pc_tensor t = PC_TENSOR_NULL;
    pc_pt_info info;

    read_fixture("dtype_float32.pt", &t, &info);
    assert_true(info.mapped);
    assert_false(info.big_endian);
    assert_int_equal((uintptr_t)pc_tensor_data(&t) % 64, 0); /* torch's alignment, in place */
    pc_tensor_free(&t);

    read_fixture("big_endian_float32.pt", &t, &info);
    assert_true(info.big_endian);
    assert_true(info.mapped); /* swapped in the private mapping */
    pc_tensor_free(&t);
    read_fixture("big_endian_float64_unaligned.pt", &t, &info);
    assert_true(info.big_endian);
    assert_false(info.mapped);
    pc_tensor_free(&t);
    read_fixture("unaligned_float64.pt", &t, &info);
    assert_false(info.mapped);
    pc_tensor_free(&t);

    read_fixture("npu_format_object_float16.pt", &t, &info);
    assert_int_equal(info.npu_format, 29);
    pc_tensor_free(&t);
    read_fixture("npu_format_int_bfloat16.pt", &t, &info);
    assert_int_equal(info.npu_format, 2);
    pc_tensor_free(&t);
    read_fixture("npu_location_float32.pt", &t, &info);
    assert_string_equal(info.location, "npu:0");
    assert_int_equal(info.npu_format, -1);
    pc_tensor_free(&t);

    read_fixture("transpose_float32.pt", &t, &info);
    assert_false(pc_tensor_is_contiguous(&t));
    assert_int_equal(t.strides[0], 1);
    assert_int_equal(t.strides[1], 4);
    pc_tensor_free(&t);

    read_fixture("scalar_int64.pt", &t, &info);
    assert_int_equal(t.rank, 0);
    assert_int_equal(*(const int64_t *)pc_tensor_data(&t), ((int64_t)1 << 40) + 1);
    pc_tensor_free(&t);
}

/* The mappings of .pt files in /proc/self/maps (the loader's; other mappings come and go with
 * the allocator, e.g. under AddressSanitizer a new size class maps a region); -1 where there is
 * no /proc. */
static long count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long n = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\n");
        n += len >= 3 && memcmp(line + len - 3, ".pt", 3) == 0;
    }
    fclose(f);
    return n;
}

/* The mapping is private: writing to a loaded tensor leaves the file as it was, and the
 * storage (with the mapping) goes away with the last tensor on it. */
static void test_mapping_is_private(void **state)
{
    long maps_before = count_mappings();
    pc_tensor t = PC_TENSOR_NULL, view = PC_TENSOR_NULL;
    pc_pt_info info;
    read_fixture("dtype_float32.pt", &t, &info);
    assert_true(info.mapped);
    if (maps_before >= 0)
        assert_int_equal(count_mappings(), maps_before + 1); /* the file's, while it is loaded */
    assert_int_equal(pc_storage_refcount(t.storage), 1);
    float first = *(float *)pc_tensor_data(&t);
    pc_tensor_fill(&t, 42.0);
    assert_int_equal(pc_tensor_select(&view, &t, 0, 1), PC_OK);
    pc_tensor_free(&t); /* the view keeps the mapping */
    pc_assert_same_f64(pc_tensor_get(&view, (const int64_t[]){2}), 42.0);
    pc_tensor_free(&view);
    read_fixture("dtype_float32.pt", &t, &info);
    pc_assert_same_f64((double)*(float *)pc_tensor_data(&t), (double)first);
    pc_tensor_free(&t);
    /* no mapping outlives its tensors, also after 100 loads */
    for (int i = 0; i < 100; i++) {
        read_fixture(i % 2 ? "dtype_float32.pt" : "big_endian_int16.pt", &t, &info);
        pc_tensor_free(&t);
    }
    if (maps_before >= 0)
        assert_int_equal(count_mappings(), maps_before);
}

/* ---- the writer ---- */

/* Fills t with a pattern that is the same for every dtype: bytes 1, 2, 3, ... but valid
 * (bool 0/1). */
static void fill_pattern(pc_tensor *t, unsigned seed)
{
    size_t n = pc_tensor_nbytes(t);
    unsigned char *p = pc_tensor_data(t);
    for (size_t i = 0; i < n; i++)
        p[i] = t->dtype == PC_DTYPE_BOOL ? (unsigned char)((i * 7 + seed) % 3 == 0)
                                         : (unsigned char)(i * 37 + seed);
}

static void assert_same_tensor(const pc_tensor *a, const pc_tensor *b)
{
    assert_int_equal(a->dtype, b->dtype);
    assert_true(pc_tensor_same_shape(a, b));
    static unsigned char x[MAX_BYTES], y[MAX_BYTES];
    assert_true(pc_tensor_nbytes(a) <= sizeof x);
    size_t nx = tf_row_major_bytes(a, x), ny = tf_row_major_bytes(b, y);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
}

static const int64_t rt_shapes[][4] = {{0}, {7}, {3, 4}, {2, 3, 4}, {0, 5}, {1, 1, 1, 300}};
static const int rt_ranks[] = {0, 1, 2, 3, 2, 4};

static void test_round_trip_buffer(void **state)
{
    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        for (size_t s = 0; s < sizeof rt_ranks / sizeof *rt_ranks; s++) {
            pc_tensor t = PC_TENSOR_NULL, back = PC_TENSOR_NULL;
            assert_int_equal(pc_tensor_alloc(&t, (pc_dtype)d, rt_shapes[s], rt_ranks[s]), PC_OK);
            fill_pattern(&t, (unsigned)d + (unsigned)s);
            void *buf;
            size_t size;
            assert_int_equal(pc_pt_write_buffer(&t, NULL, &buf, &size), PC_OK);
            pc_pt_info info;
            if (pc_pt_read_buffer(buf, size, "written", &back, &info) != PC_OK)
                fail_msg("%s", pc_error_message());
            assert_same_tensor(&t, &back);
            assert_true(pc_tensor_is_contiguous(&back));
            assert_int_equal(back.offset, 0);
            assert_false(info.requires_grad);
            assert_string_equal(info.location, "cpu");
            free(buf);
            pc_tensor_free(&back);
            pc_tensor_free(&t);
        }
    }
}

/* A non-contiguous view is written as its contiguous copy; files go through the file API. */
static void test_round_trip_file_views(void **state)
{
    char dir[4096];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    char path[8192];
    snprintf(path, sizeof path, "%s/Torch.matmul.0.forward.output.device.0.pt", dir);
    pc_tensor base = PC_TENSOR_NULL, view = PC_TENSOR_NULL, back = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_F64, (const int64_t[]){4, 6}, 2), PC_OK);
    fill_pattern(&base, 3);
    assert_int_equal(pc_tensor_narrow(&view, &base, 1, 2, 3), PC_OK);
    assert_int_equal(pc_tensor_transpose(&view, &view, 0, 1), PC_OK);
    assert_false(pc_tensor_is_contiguous(&view));
    assert_int_equal(pc_pt_write_file(path, &view, PC_FILE_OUT_REPLACE), PC_OK);
    pc_pt_info info;
    if (pc_pt_read_file(path, &back, &info) != PC_OK)
        fail_msg("%s", pc_error_message());
    assert_true(info.mapped);
    assert_same_tensor(&view, &back);
    assert_true(pc_tensor_is_contiguous(&back));
    /* torch names the archive after the file */
    size_t n;
    unsigned char *bytes = tf_read_all(path, &n);
    pc_zip zip;
    assert_int_equal(pc_zip_open(&zip, bytes, n, path), PC_OK);
    assert_int_equal(zip.count, 4);
    const char *want = "Torch.matmul.0.forward.output.device.0/data.pkl";
    assert_int_equal(zip.entries[0].name_len, strlen(want));
    assert_memory_equal(zip.entries[0].name, want, strlen(want));
    for (size_t i = 0; i < zip.count; i++) {
        uint64_t at;
        assert_int_equal(pc_zip_entry_data(&zip, &zip.entries[i], &at), PC_OK);
        assert_int_equal(at % 64, 0);
        assert_int_equal(zip.entries[i].crc, pc_crc32(0, bytes + at, zip.entries[i].size));
    }
    pc_zip_close(&zip);
    free(bytes);
    pc_tensor_free(&back);
    pc_tensor_free(&view);
    pc_tensor_free(&base);
    /* A file that cannot be created is an error naming it, and leaves nothing behind. */
    snprintf(path, sizeof path, "%s/no/such/dir/x.pt", dir);
    assert_int_equal(pc_tensor_alloc(&base, PC_DTYPE_F32, NULL, 0), PC_OK);
    assert_int_equal(pc_pt_write_file(path, &base, PC_FILE_OUT_REPLACE), PC_ERR_IO);
    tf_assert_message_has("cannot create");
    pc_tensor_free(&base);
    assert_int_equal(pc_pt_write_file(path, &base, PC_FILE_OUT_REPLACE), PC_ERR_IO);
    snprintf(path, sizeof path, "%s/null.pt", dir);
    assert_int_equal(pc_pt_write_file(path, &base, PC_FILE_OUT_REPLACE), PC_ERR_INVALID);
    tf_assert_message_has("null tensor");
    assert_int_equal(access(path, F_OK), -1);
    const char *names[] = {"Torch.matmul.0.forward.output.device.0.pt"};
    tf_remove_dir(dir, names, 1);
}

/* The bytes of member <archive>/<record> of a .pt in memory. */
static const unsigned char *member(const pc_zip *zip, const char *record, size_t *size)
{
    const pc_zip_entry *first = &zip->entries[0];
    const char *slash = memchr(first->name, '/', first->name_len);
    char name[512];
    snprintf(name, sizeof name, "%.*s/%s", (int)(slash - first->name), first->name, record);
    const pc_zip_entry *e = pc_zip_find(zip, name, strlen(name));
    assert_non_null(e);
    uint64_t at;
    assert_int_equal(pc_zip_entry_data(zip, e, &at), PC_OK);
    *size = (size_t)e->size;
    return zip->data + at;
}

/* For contiguous tensors on their own storage, our data.pkl is byte for byte torch's, and the
 * data and version records are the same. */
static void test_writer_matches_torch(void **state)
{
    const char *names[] = {
        "dtype_bool.pt",     "dtype_uint8.pt",   "dtype_int8.pt",       "dtype_int16.pt",
        "dtype_int32.pt",    "dtype_int64.pt",   "dtype_float16.pt",    "dtype_bfloat16.pt",
        "dtype_float32.pt",  "dtype_float64.pt", "dtype_complex64.pt",  "dtype_complex128.pt",
        "scalar_float32.pt", "scalar_int64.pt",  "empty_float32.pt",    "empty_3x0_int32.pt",
        "empty_bool.pt",     "rank5_float16.pt", "large_dims_uint8.pt", "file_object_int8.pt",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char rel[512], path[4096];
        snprintf(rel, sizeof rel, "pt/%s", names[i]);
        size_t n;
        unsigned char *torch_file = tf_read_all(tf_fixture(path, sizeof path, rel), &n);
        pc_tensor t = PC_TENSOR_NULL;
        assert_int_equal(pc_pt_read_buffer(torch_file, n, names[i], &t, NULL), PC_OK);
        void *ours;
        size_t ours_n;
        assert_int_equal(pc_pt_write_buffer(&t, "archive", &ours, &ours_n), PC_OK);
        pc_zip a, b;
        assert_int_equal(pc_zip_open(&a, torch_file, n, "torch"), PC_OK);
        assert_int_equal(pc_zip_open(&b, ours, ours_n, "ours"), PC_OK);
        const char *records[] = {"data.pkl", "data/0", "version"};
        for (int r = 0; r < 3; r++) {
            size_t na, nb;
            const unsigned char *pa = member(&a, records[r], &na);
            const unsigned char *pb = member(&b, records[r], &nb);
            if (na != nb || memcmp(pa, pb, na) != 0)
                fail_msg("%s: record %s differs from torch's", names[i], records[r]);
        }
        pc_zip_close(&a);
        pc_zip_close(&b);
        free(ours);
        free(torch_file);
        pc_tensor_free(&t);
    }
}

/* zip64 extra fields everywhere (the threshold lowered to 0): still read back, by us and (in
 * the torch test) by torch. */
static void test_zip64_records(void **state)
{
    pc_tensor t = PC_TENSOR_NULL, back = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_I32, (const int64_t[]){5, 3}, 2), PC_OK);
    fill_pattern(&t, 9);
    void *buf;
    size_t n;
    assert_int_equal(pc_pt_write_buffer_limit(&t, "z", 0, &buf, &n), PC_OK);
    /* the classic end record now defers to zip64 */
    const unsigned char *end = (const unsigned char *)buf + n - 22;
    assert_int_equal(pc_le32(end), 0x06054b50u);
    assert_int_equal(pc_le32(end + 12), 0xFFFFFFFFu);
    assert_int_equal(pc_le32(end + 16), 0xFFFFFFFFu);
    if (pc_pt_read_buffer(buf, n, "zip64", &back, NULL) != PC_OK)
        fail_msg("%s", pc_error_message());
    assert_same_tensor(&t, &back);
    free(buf);
    pc_tensor_free(&back);
    pc_tensor_free(&t);
}

/* Bytes before the archive shift every offset; the reader finds the directory anyway. */
static void test_archive_prefix_bytes(void **state)
{
    char path[4096];
    size_t n;
    unsigned char *file = tf_read_all(tf_fixture(path, sizeof path, "pt/dtype_int64.pt"), &n);
    for (size_t pre = 1; pre <= 130; pre += 43) {
        unsigned char *shifted = malloc(n + pre);
        memset(shifted, '#', pre);
        memcpy(shifted + pre, file, n);
        pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL;
        assert_int_equal(pc_pt_read_buffer(file, n, "plain", &a, NULL), PC_OK);
        if (pc_pt_read_buffer(shifted, n + pre, "shifted", &b, NULL) != PC_OK)
            fail_msg("%s", pc_error_message());
        assert_same_tensor(&a, &b);
        pc_tensor_free(&a);
        pc_tensor_free(&b);
        free(shifted);
    }
    free(file);
}

/* Files written here load in torch (1.13 from Debian, if installed) with the same dtype,
 * shape and bits. */
static void test_torch_loads_written_files(void **state)
{
    char dir[4096];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    char path[8192];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    FILE *manifest = fopen(path, "w");
    assert_non_null(manifest);
    char names[PC_DTYPE_COUNT * 8][64];
    size_t count = 0;
    static char hex[2 * MAX_BYTES + 2];
    static unsigned char bytes[MAX_BYTES];
    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        if (d == PC_DTYPE_F8E4M3FN || d == PC_DTYPE_F8E5M2)
            continue; /* torch 1.13 has no float8 */
        for (size_t s = 0; s < sizeof rt_ranks / sizeof *rt_ranks; s++) {
            pc_tensor t = PC_TENSOR_NULL;
            assert_int_equal(pc_tensor_alloc(&t, (pc_dtype)d, rt_shapes[s], rt_ranks[s]), PC_OK);
            fill_pattern(&t, (unsigned)(7 * d) + (unsigned)s);
            snprintf(names[count], sizeof names[count], "%s_%zu.pt", pc_dtype_name((pc_dtype)d), s);
            snprintf(path, sizeof path, "%s/%s", dir, names[count]);
            void *buf = NULL;
            size_t n = 0;
            if (s == 2) /* one of each dtype with zip64 records everywhere */
                assert_int_equal(pc_pt_write_buffer_limit(&t, "zip64", 0, &buf, &n), PC_OK);
            if (buf) {
                tf_write_all(path, buf, n);
                free(buf);
            } else {
                assert_int_equal(pc_pt_write_file(path, &t, PC_FILE_OUT_REPLACE), PC_OK);
            }
            tf_hex_encode(bytes, tf_row_major_bytes(&t, bytes), hex);
            char shape[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(shape, sizeof shape, t.shape, t.rank);
            /* "[2, 3]" -> "[2,3]" */
            char compact[PC_SHAPE_FORMAT_MAX];
            size_t k = 0;
            for (const char *c = shape; *c; c++)
                if (*c != ' ')
                    compact[k++] = *c;
            compact[k] = '\0';
            fprintf(manifest, "%s %s %s %s\n", names[count], pc_dtype_name((pc_dtype)d), compact,
                    hex);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_msprobe_all_files_load, setup),
        cmocka_unit_test_setup(test_msprobe_records, setup),
        cmocka_unit_test_setup(test_golden_manifest, setup),
        cmocka_unit_test_setup(test_golden_details, setup),
        cmocka_unit_test_setup(test_mapping_is_private, setup),
        cmocka_unit_test_setup(test_round_trip_buffer, setup),
        cmocka_unit_test_setup(test_round_trip_file_views, setup),
        cmocka_unit_test_setup(test_writer_matches_torch, setup),
        cmocka_unit_test_setup(test_zip64_records, setup),
        cmocka_unit_test_setup(test_archive_prefix_bytes, setup),
        cmocka_unit_test_setup(test_torch_loads_written_files, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
