/*
 * api_precision_compare judges a pair only when it is one (issue #29, items 11 and 15): the same
 * file twice, two copies of one run and runs of different dumps or seeds are refused (exit 1,
 * nothing written) by the run records beside the CSVs (precheck_run_<ts>.json), unless
 * --allow-different-dumps; swapped sides are warned about; CSVs without a record (msprobe's)
 * get one line saying the pair could not be verified. And no cell precheck writes is one a
 * spreadsheet would run: a formula-like Message of an input CSV goes out with a ' in front.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pc_run_ut_test.h"
#include "pc_test.h"
#include "precheck/io/csv.h"

#define RUNS  PC_TEST_FIXTURES "/msprobe/run_ut"
#define DUMPS PC_TEST_FIXTURES "/msprobe/dumps"
/* two msprobe runs of one dump: their API names match row for row */
#define NPU_SRC RUNS "/gpt_tensor/accuracy_checking_details_20261202102100.csv"
#define GPU_SRC RUNS "/gpt_tensor_rerun/accuracy_checking_details_20261202102119.csv"

static void copy_file(const char *from, const char *to)
{
    size_t n = 0;
    char *data = pc_test_slurp(from, &n);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    free(data);
}

/* A run record as run_ut writes it (runner/identity.c). */
static void write_record(const char *path, const char *dump, const char *digest, const char *seed,
                         const char *device, const char *backend)
{
    char text[4096];
    PC_TEST_FMT(text,
                "{\n  \"precheck_run\": 1,\n  \"command\": \"precheck run_ut -api_info %s\",\n"
                "  \"identity\": {\n    \"dump_content\": \"%s\",\n    \"seed\": \"%s\",\n"
                "    \"bench\": \"msprobe\",\n    \"device\": \"%s\",\n"
                "    \"filter_api\": \"no\",\n    \"white_list\": \"\",\n"
                "    \"black_list\": \"\",\n    \"precision\": \"14\",\n"
                "    \"timeout\": \"0\",\n    \"max_memory_mb\": \"0\",\n"
                "    \"shard\": \"1/1\"\n  },\n  \"about\": {\n    \"dump\": \"%s\",\n"
                "    \"backend\": \"%s\",\n    \"workers\": \"1\"\n  }\n}\n",
                dump, digest, seed, device, dump, backend);
    pc_test_write_file(path, text);
}

/* A side: a fresh folder with src as accuracy_checking_details_<ts>.csv and, when dump is not
 * NULL, its record; the CSV's path in csv. */
static void make_side(char *csv, size_t size, const char *src, const char *ts, const char *dump,
                      const char *digest, const char *seed, const char *device, const char *backend)
{
    char dir[512], rec[700];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    assert_true(snprintf(csv, size, "%s/accuracy_checking_details_%s.csv", dir, ts) < (int)size);
    copy_file(src, csv);
    if (dump) {
        PC_TEST_FMT(rec, "%s/precheck_run_%s.json", dir, ts);
        write_record(rec, dump, digest, seed, device, backend);
    }
}

static int count_in(const char *path, const char *text)
{
    char *data = pc_test_slurp(path, NULL);
    int n = 0;
    for (const char *p = data; (p = strstr(p, text)) != NULL; p += strlen(text))
        n++;
    free(data);
    return n;
}

static bool dir_empty(const char *dir)
{
    char cmd[700];
    PC_TEST_FMT(cmd, "test -z \"$(ls -A '%s' 2>/dev/null)\"", dir);
    return system(cmd) == 0;
}

/* api_precision_compare -npu npu -gpu gpu [extra] into a fresh folder: its exit status; the
 * folder in out, the log in log. */
static int compare(const char *npu, const char *gpu, const char *extra, char *out, char *log)
{
    char args[4096];
    assert_non_null(pc_test_tmpdir(out, 512));
    snprintf(log, 600, "%s.log", out);
    PC_TEST_FMT(args, "api_precision_compare -npu '%s' -gpu '%s' -o '%s/o' %s", npu, gpu, out,
                extra ? extra : "");
    return pc_test_run_precheck(NULL, args, log);
}

static void expect_refused(const char *out, const char *log, const char *text)
{
    pc_test_expect_in_log(log, text);
    pc_test_expect_in_log(log, "no output was written");
    char o[600];
    PC_TEST_FMT(o, "%s/o", out);
    assert_true(dir_empty(o));
}

static void test_same_path_refused(void **state)
{
    (void)state;
    char npu[700], out[512], log[600];
    make_side(npu, sizeof npu, NPU_SRC, "20260101000000", "/d/dump.json", "aa-1", "1234", "cpu",
              "cpu");
    assert_int_equal(compare(npu, npu, NULL, out, log), 1);
    expect_refused(out, log, "-npu and -gpu are the same file");
}

/* the same file under two names (a hard link): the same inode */
static void test_same_inode_refused(void **state)
{
    (void)state;
    char npu[700], gpu[800], out[512], log[600];
    make_side(npu, sizeof npu, NPU_SRC, "20260101000000", NULL, NULL, NULL, NULL, NULL);
    PC_TEST_FMT(gpu, "%s.csv", npu);
    assert_int_equal(link(npu, gpu), 0);
    assert_int_equal(compare(npu, gpu, NULL, out, log), 1);
    expect_refused(out, log, "-npu and -gpu are the same file");
}

/* a run's folder copied: two CSVs, one run (the same record under the same time stamp) */
static void test_copies_of_one_run_refused(void **state)
{
    (void)state;
    char npu[700], gpu[700], out[512], log[600];
    make_side(npu, sizeof npu, NPU_SRC, "20260101000000", "/d/dump.json", "aa-1", "1234", "cpu",
              "cpu");
    make_side(gpu, sizeof gpu, NPU_SRC, "20260101000000", "/d/dump.json", "aa-1", "1234", "cpu",
              "cpu");
    assert_int_equal(compare(npu, gpu, NULL, out, log), 1);
    expect_refused(out, log, "are the same run_ut run");
}

static void test_different_dumps_refused(void **state)
{
    (void)state;
    char npu[700], gpu[700], out[512], log[600];
    make_side(npu, sizeof npu, NPU_SRC, "20260101000000", "/data/bf16/dump.json", "aa-1", "1234",
              "torch:npu", "torch:npu:0");
    make_side(gpu, sizeof gpu, GPU_SRC, "20260101000001", "/data/fp32/dump.json", "bb-2", "1234",
              "torch:cuda", "torch:cuda:0");
    assert_int_equal(compare(npu, gpu, NULL, out, log), 1);
    expect_refused(out, log, "runs of different inputs");
    pc_test_expect_in_log(log, "Their run records differ in the dump: /data/bf16/dump.json "
                               "(-npu) and /data/fp32/dump.json (-gpu), content aa-1 and bb-2.");
    pc_test_expect_in_log(log, "--allow-different-dumps");
    /* on purpose: judged, with a warning */
    assert_int_equal(compare(npu, gpu, "--allow-different-dumps", out, log), 0);
    pc_test_expect_in_log(log, "--allow-different-dumps: comparing runs of different "
                               "inputs (the dump: /data/bf16/dump.json");
    char o[600], path[900];
    PC_TEST_FMT(o, "%s/o", out);
    pc_test_find_file(o, "api_precision_compare_result_", path, sizeof path);
}

/* another seed: other generated inputs */
static void test_different_seed_refused(void **state)
{
    (void)state;
    char npu[700], gpu[700], out[512], log[600];
    make_side(npu, sizeof npu, NPU_SRC, "20260101000000", "/d/dump.json", "aa-1", "1234",
              "torch:npu", "torch:npu:0");
    make_side(gpu, sizeof gpu, GPU_SRC, "20260101000001", "/d/dump.json", "aa-1", "7", "torch:cuda",
              "torch:cuda");
    assert_int_equal(compare(npu, gpu, NULL, out, log), 1);
    expect_refused(out, log, "differ in seed: '1234' (-npu), '7' (-gpu).");
}

static void test_swapped_sides_warned(void **state)
{
    (void)state;
    char npu[700], gpu[700], out[512], log[600];
    make_side(npu, sizeof npu, NPU_SRC, "20260101000000", "/d/dump.json", "aa-1", "1234",
              "torch:cuda", "torch:cuda:0");
    make_side(gpu, sizeof gpu, GPU_SRC, "20260101000001", "/d/dump.json", "aa-1", "1234",
              "torch:npu", "torch:npu:3");
    assert_int_equal(compare(npu, gpu, NULL, out, log), 0);
    pc_test_expect_in_log(log, "The sides look swapped");
    pc_test_expect_in_log(log, "ran on a GPU (--backend torch:cuda:0)");
    pc_test_expect_in_log(log, "ran on an NPU (--backend torch:npu:3)");
    /* the right way round: no word */
    assert_int_equal(compare(gpu, npu, NULL, out, log), 0);
    assert_int_equal(count_in(log, "swapped"), 0);
    assert_int_equal(count_in(log, "WARNING"), 0);
}

/* msprobe's CSVs have no record: today's name check, and one line */
static void test_unverified_pair_one_line(void **state)
{
    (void)state;
    char out[512], log[600];
    assert_int_equal(compare(NPU_SRC, GPU_SRC, NULL, out, log), 0);
    assert_int_equal(count_in(log, "The pair could not be verified"), 1);
    pc_test_expect_in_log(log, "has no precheck run record beside it");
    /* one side with a record, the other without: the same line, naming the side */
    char npu[700];
    make_side(npu, sizeof npu, NPU_SRC, "20260101000000", "/d/dump.json", "aa-1", "1234",
              "torch:npu", "torch:npu");
    assert_int_equal(compare(npu, GPU_SRC, NULL, out, log), 0);
    assert_int_equal(count_in(log, "The pair could not be verified (-gpu "), 1);
    /* a damaged record: the same line, saying why */
    char gpu[700], rec[800];
    make_side(gpu, sizeof gpu, GPU_SRC, "20260101000001", NULL, NULL, NULL, NULL, NULL);
    PC_TEST_FMT(rec, "%.*s/precheck_run_20260101000001.json", (int)(strrchr(gpu, '/') - gpu), gpu);
    pc_test_write_file(rec, "{\"identity\": {\"dump_content\": ");
    assert_int_equal(compare(npu, gpu, NULL, out, log), 0);
    assert_int_equal(count_in(log, "The pair could not be verified (-gpu "), 1);
    pc_test_expect_in_log(log, "precheck_run_20260101000001.json cannot be read: ");
}

/* the records run_ut and merge really write */
static void test_run_ut_and_merge_records(void **state)
{
    (void)state;
    char a[512], b[512], c[512], s1[512], s2[512], m[512], args[4096];
    const char *ew = DUMPS "/ew_fp16_tensor/step0/rank/dump.json";
    const char *cnn = DUMPS "/cnn_tensor/step0/rank/dump.json";
    struct {
        char *dir;
        const char *dump, *extra;
    } runs[] = {
        {a, ew, ""}, {b, ew, ""}, {c, cnn, ""}, {s1, ew, "--shard 1/2"}, {s2, ew, "--shard 2/2"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        assert_non_null(pc_test_tmpdir(runs[i].dir, 512));
        PC_TEST_FMT(args, "run_ut -api_info %s -o %s %s --no-progress", runs[i].dump, runs[i].dir,
                    runs[i].extra);
        assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    }
    assert_non_null(pc_test_tmpdir(m, sizeof m));
    PC_TEST_FMT(args, "merge %s %s -o %s", s1, s2, m);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    char da[700], db[700], dc[700], dm[700], out[512], log[600];
    pc_test_find_file(a, "accuracy_checking_details_", da, sizeof da);
    pc_test_find_file(b, "accuracy_checking_details_", db, sizeof db);
    pc_test_find_file(c, "accuracy_checking_details_", dc, sizeof dc);
    pc_test_find_file(m, "accuracy_checking_details_", dm, sizeof dm);
    assert_int_equal(compare(da, db, NULL, out, log), 0);
    assert_int_equal(count_in(log, "WARNING"), 0);
    assert_int_equal(compare(dm, db, NULL, out, log), 0); /* merge's record: the same dump */
    assert_int_equal(count_in(log, "WARNING"), 0);
    assert_int_equal(compare(da, dc, NULL, out, log), 1);
    expect_refused(out, log, "ew_fp16_tensor/step0/rank/dump.json (-npu) and ");
    pc_test_expect_in_log(log, "cnn_tensor/step0/rank/dump.json (-gpu)");
    assert_int_equal(compare(dc, dm, NULL, out, log), 1);
    expect_refused(out, log, "Their run records differ in the dump: ");
}

/* a Message cell of the input that a spreadsheet would run goes out with a ' in front */
static void test_formula_message_defused(void **state)
{
    (void)state;
    char dir[512], npu[700], out[512], log[600], args[2048];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(npu, "%s/accuracy_checking_details_20260101000000.csv", dir);
    /* the SKIP rows' message, which api_precision_compare copies */
    PC_TEST_FMT(args,
                "sed 's/\"Bench output is None, skip this test.\"/"
                "\"=HYPERLINK(\"\"http:\\/\\/x\"\",\"\"y\"\")\"/' '%s' > '%s'",
                NPU_SRC, npu);
    assert_int_equal(system(args), 0);
    assert_int_equal(count_in(npu, ",\"=HYPERLINK("), 4);
    assert_int_equal(compare(npu, GPU_SRC, NULL, out, log), 0);
    pc_test_expect_in_log(log, "4 cell(s) of ");
    pc_test_expect_in_log(log, "would run as spreadsheet formulas (the first on line 7)");
    char o[600], d[900], r[900];
    PC_TEST_FMT(o, "%s/o", out);
    pc_test_find_file(o, "api_precision_compare_details_", d, sizeof d);
    pc_test_find_file(o, "api_precision_compare_result_", r, sizeof r);
    assert_int_equal(count_in(d, "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""), 4);
    assert_int_equal(count_in(d, "\"=HYPERLINK"), 0);
    assert_int_equal(count_in(r, "\"=HYPERLINK"), 0);
}

static char *row_text(const pc_csv_cell *cells, size_t n)
{
    pc_csv_buffer b = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_csv_append_row(&b, cells, n, 14), PC_OK);
    char *s = strdup(b.data);
    pc_csv_buffer_free(&b);
    return s;
}

/* the writer every CSV of precheck goes through (run_ut's rows, api_precision_compare's) */
static void test_writer_defuses_formulas(void **state)
{
    (void)state;
    pc_csv_cell cells[] = {
        pc_csv_text("=1+1"),     pc_csv_text("@SUM(A1)"),    pc_csv_text("+cmd"),
        pc_csv_text("%x"),       pc_csv_text("a;=b;c;-d"),   pc_csv_text("\xEF\xBC\x9Dx"),
        pc_csv_text("-0.5"),     pc_csv_text("-inf"),        pc_csv_text("+1e-05"),
        pc_csv_f64(-0.5),        pc_csv_text("plain; text"), pc_csv_text("a-b=c"),
        pc_csv_text("-x,\"y\""),
    };
    char *s = row_text(cells, sizeof cells / sizeof cells[0]);
    assert_string_equal(s, "'=1+1,'@SUM(A1),'+cmd,'%x,a;'=b;c;'-d,'\xEF\xBC\x9Dx,-0.5,-inf,"
                           "+1e-05,-0.50000000000000,plain; text,a-b=c,\"'-x,\"\"y\"\"\"\r\n");
    free(s);
    assert_true(pc_csv_formula_like("-0.5")); /* msprobe's rule itself (for API names) */
    assert_false(pc_csv_cell_runs("-0.5"));
    assert_true(pc_csv_cell_runs("x;@y"));
    assert_false(pc_csv_formula_like("Torch.add.0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_path_refused),
        cmocka_unit_test(test_same_inode_refused),
        cmocka_unit_test(test_copies_of_one_run_refused),
        cmocka_unit_test(test_different_dumps_refused),
        cmocka_unit_test(test_different_seed_refused),
        cmocka_unit_test(test_swapped_sides_warned),
        cmocka_unit_test(test_unverified_pair_one_line),
        cmocka_unit_test(test_run_ut_and_merge_records),
        cmocka_unit_test(test_formula_message_defused),
        cmocka_unit_test(test_writer_defuses_formulas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
