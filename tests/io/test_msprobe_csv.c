/*
 * io/msprobe_csv.h: msprobe's headers (each as the fixture CSVs of msprobe 8.3.3 start, and
 * msprobe 1.0's details header, which is the same), details row names written and read back
 * (two-part API names, both directions, names without the suffix), api_precision_compare's
 * split by dot count, and the record splitter (BOM, CRLF / LF / CR endings, quoted fields with
 * commas, quotes, CR and LF inside, cut tails).
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/status.h"
#include "precheck/io/csv.h"
#include "precheck/io/msprobe_csv.h"

/* The header of kind as one CSV record (BOM-less, CRLF), written by io/csv.h. */
static char *header_text(pc_mcsv_kind kind)
{
    size_t n;
    const char *const *h = pc_mcsv_header(kind, &n);
    assert_non_null(h);
    pc_csv_buffer b = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_csv_append_text_row(&b, h, n), PC_OK);
    return b.data;
}

/* The first record of the fixture file (after its BOM), with its CRLF. */
static char *fixture_header(const char *rel)
{
    char path[1024];
    PC_TEST_FMT(path, "%s/msprobe/%s", PC_TEST_FIXTURES, rel);
    char *text = pc_test_slurp(path, NULL);
    assert_memory_equal(text, "\xEF\xBB\xBF", 3);
    char *end = strstr(text, "\r\n");
    assert_non_null(end);
    end[2] = '\0';
    char *head = strdup(text + 3);
    free(text);
    return head;
}

static void test_headers_as_msprobe_writes_them(void **state)
{
    (void)state;
    static const struct {
        pc_mcsv_kind kind;
        const char *fixture;
        size_t columns;
    } cases[] = {
        {PC_MCSV_RESULT, "run_ut/gpt_tensor/accuracy_checking_result_20261202102100.csv", 4},
        {PC_MCSV_DETAILS, "run_ut/gpt_tensor/accuracy_checking_details_20261202102100.csv", 23},
        {PC_MCSV_PCMP_RESULT,
         "precision_compare/msprobe_test_data/api_precision_compare_result_20261202103903.csv", 4},
        {PC_MCSV_PCMP_DETAILS,
         "precision_compare/msprobe_test_data/api_precision_compare_details_20261202103903.csv",
         28},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *ours = header_text(cases[i].kind), *theirs = fixture_header(cases[i].fixture);
        assert_string_equal(ours, theirs);
        size_t n = 0;
        pc_mcsv_header(cases[i].kind, &n);
        assert_int_equal(n, cases[i].columns);
        assert_non_null(pc_mcsv_column(cases[i].kind, n - 1));
        assert_null(pc_mcsv_column(cases[i].kind, n));
        free(ours);
        free(theirs);
    }
    /* msprobe 1.0 (July 2024, compare_utils.py's DETAIL_TEST_ROWS): the same 23 columns */
    char *det = header_text(PC_MCSV_DETAILS);
    assert_string_equal(det, "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,"
                             "双百指标,双千指标,双万指标,二进制一致错误率,误差均衡性,均方根误差,"
                             "小值域错误占比,相对误差最大值,相对误差平均值,inf/nan错误率,"
                             "相对误差错误率,绝对误差错误率,ULP误差最大值,ULP误差平均值,"
                             "ULP误差大于阈值占比,Status,Message\r\n");
    free(det);
    /* the named columns are where their names say */
    assert_string_equal(pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_DEVICE_DTYPE), "DEVICE Dtype");
    assert_string_equal(pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_SMALL_VALUE), "小值域错误占比");
    assert_string_equal(pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_ULP_PROP),
                        "ULP误差大于阈值占比");
    assert_string_equal(pc_mcsv_column(PC_MCSV_DETAILS, PC_MCSV_DET_STATUS), "Status");
    assert_string_equal(pc_mcsv_column(PC_MCSV_PCMP_DETAILS, PC_MCSV_PCMP_DET_RESULT), "比对结果");
    assert_string_equal(pc_mcsv_column(PC_MCSV_PCMP_DETAILS, PC_MCSV_PCMP_DET_ALGORITHM),
                        "比对算法");
    assert_string_equal(pc_mcsv_column(PC_MCSV_RESULT, PC_MCSV_RES_API_NAME), PC_MCSV_RESULT_FIRST);
    assert_string_equal(pc_mcsv_column(PC_MCSV_PCMP_RESULT, PC_MCSV_RES_API_NAME),
                        PC_MCSV_DETAILS_FIRST);
    assert_string_equal(pc_mcsv_kind_stem(PC_MCSV_DETAILS), "accuracy_checking_details");
    assert_string_equal(pc_mcsv_kind_stem(PC_MCSV_PCMP_RESULT), "api_precision_compare_result");
    size_t n = 7;
    assert_null(pc_mcsv_header(PC_MCSV_KIND_COUNT, &n));
    assert_int_equal(n, 0);
    assert_null(pc_mcsv_kind_stem(PC_MCSV_KIND_COUNT));
}

static void test_row_names_round_trip(void **state)
{
    (void)state;
    static const char *const apis[] = {
        "Functional.softmax.0",
        "Torch.linalg.norm.3",
        "Tensor.__add__.12",
        "NPU.npu_rms_norm.0",
        "Aten.add.Tensor.7",
        "x",
        "",
    };
    static const size_t outputs[] = {0, 1, 9, 10, 123456};
    for (size_t a = 0; a < sizeof apis / sizeof apis[0]; a++)
        for (int bwd = 0; bwd < 2; bwd++)
            for (size_t o = 0; o < sizeof outputs / sizeof outputs[0]; o++) {
                char name[256];
                int len = pc_mcsv_row_name(name, sizeof name, apis[a], bwd, outputs[o]);
                assert_int_equal((size_t)len, strlen(name));
                char want[256];
                PC_TEST_FMT(want, "%s.%s.output.%zu", apis[a], bwd ? "backward" : "forward",
                            outputs[o]);
                assert_string_equal(name, want);
                pc_mcsv_row row;
                assert_true(pc_mcsv_row_parse(name, (size_t)len, &row));
                assert_int_equal(row.api_len, strlen(apis[a]));
                assert_int_equal(row.backward, bwd);
                assert_true(row.has_output);
                assert_int_equal(row.output, outputs[o]);
            }
    /* snprintf's contract: the whole length, a cut but terminated name */
    char small[8];
    assert_int_equal(pc_mcsv_row_name(small, sizeof small, "Torch.add.0", false, 0),
                     (int)strlen("Torch.add.0.forward.output.0"));
    assert_string_equal(small, "Torch.a");
}

static void test_row_names_without_suffix(void **state)
{
    (void)state;
    static const char *const names[] = {
        "Functional.softmax.0", /* a result row's name */
        "X.forward.output.",    /* no digits */
        "X.forward.output.1a",  /* not only digits */
        "X.forward.output.+3",  /* a sign is not a digit */
        "X.forward.input.0",    /* inputs are not rows */
        "X.sideways.output.0",
        "Xforward.output.0", /* the mark needs its dot */
        ".0",
        "0",
        "",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pc_mcsv_row row;
        bool has = pc_mcsv_row_parse(names[i], strlen(names[i]), &row);
        assert_false(has);
        assert_false(row.has_output);
        assert_int_equal(row.api_len, strlen(names[i]));
    }
    /* the suffix alone: an empty API; the last mark decides; a length bounds the name */
    pc_mcsv_row row;
    assert_true(pc_mcsv_row_parse(".backward.output.2", 18, &row));
    assert_int_equal(row.api_len, 0);
    assert_true(row.backward);
    const char *twice = "A.forward.output.0.backward.output.5";
    assert_true(pc_mcsv_row_parse(twice, strlen(twice), &row));
    assert_int_equal(row.api_len, strlen("A.forward.output.0"));
    assert_true(row.backward);
    assert_int_equal(row.output, 5);
    assert_true(pc_mcsv_row_parse(twice, strlen("A.forward.output.0"), &row));
    assert_int_equal(row.api_len, 1);
    assert_false(row.backward);
    /* digits past size_t saturate */
    const char *huge = "A.forward.output.99999999999999999999999999";
    assert_true(pc_mcsv_row_parse(huge, strlen(huge), &row));
    assert_int_equal(row.output, SIZE_MAX);
}

static void test_pcmp_split(void **state)
{
    (void)state;
    pc_mcsv_pcmp_name p;
    assert_true(pc_mcsv_pcmp_name_parse("Functional.softmax.0.forward.output.0", &p));
    assert_true(p.valid);
    assert_string_equal(p.api, "softmax");
    assert_int_equal(p.full_len, strlen("Functional.softmax.0"));
    assert_int_equal(p.direction_len, strlen("forward"));
    assert_memory_equal(p.direction, "forward", p.direction_len);

    assert_true(pc_mcsv_pcmp_name_parse("Torch.linalg.norm.3.backward.output.1", &p));
    assert_string_equal(p.api, "linalg.norm");
    assert_int_equal(p.full_len, strlen("Torch.linalg.norm.3"));
    assert_memory_equal(p.direction, "backward", p.direction_len);

    /* a name the writer makes splits back into the API the writer was given */
    char name[128];
    pc_mcsv_row_name(name, sizeof name, "Tensor.__add__.12", true, 4);
    assert_true(pc_mcsv_pcmp_name_parse(name, &p));
    assert_string_equal(p.api, "__add__");
    assert_int_equal(p.full_len, strlen("Tensor.__add__.12"));

    static const char *const invalid[] = {"Torch.add.0", "Torch.add.0.forward.output",
                                          "Aten.a.b.c.0.forward.output.0", ""};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        assert_false(pc_mcsv_pcmp_name_parse(invalid[i], &p));
        assert_false(p.valid);
        assert_string_equal(p.api, "");
        assert_int_equal(p.full_len, 0);
    }
}

typedef struct want_record {
    const char *first;
    size_t fields;
    bool crlf;
} want_record;

static void check_split(const char *data, size_t n, const want_record *want, size_t count,
                        size_t complete_end)
{
    pc_csv_record *r = NULL;
    size_t got = 0, end = 0;
    assert_int_equal(pc_csv_records_split(data, n, &r, &got, &end), PC_OK);
    assert_int_equal(got, count);
    assert_int_equal(end, complete_end);
    size_t at = n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(r[i].first, want[i].first);
        assert_int_equal(r[i].first_len, strlen(want[i].first));
        assert_int_equal(r[i].fields, want[i].fields);
        assert_int_equal(r[i].crlf, want[i].crlf);
        assert_int_equal(r[i].start, at); /* records are contiguous */
        at = r[i].end;
    }
    pc_csv_records_free(r, got);
}

static void test_records_endings_and_quotes(void **state)
{
    (void)state;
    /* BOM, then CRLF, LF and a lone CR; quoted fields with , "" CR LF CRLF inside */
    static const char data[] = "\xEF\xBB\xBF"
                               "API name,Forward Test Success,Backward Test Success,Message\r\n"
                               "Torch.add.0,pass, \n"
                               "\"Torch.a,b.0\",SKIP,SKIP,\"x\r\ny\"\r"
                               "\"q\"\"uote\",pass,\"a\nb\",\"c\rd\"\r\n"
                               "\"multi\r\nline\nfirst\",1\r\n"
                               "tail,not,ended";
    const want_record want[] = {
        {"API name", 4, true}, {"Torch.add.0", 3, false},         {"Torch.a,b.0", 4, false},
        {"q\"uote", 4, true},  {"multi\r\nline\nfirst", 2, true},
    };
    size_t n = sizeof data - 1;
    size_t complete = n - strlen("tail,not,ended");
    check_split(data, n, want, 5, complete);
    /* a CR at the very end may be a CRLF cut in two: not complete; with its LF it is */
    static const char cut[] = "a,b\r\nc,d\r";
    const want_record first[] = {{"a", 2, true}, {"c", 2, true}};
    check_split(cut, sizeof cut - 1, first, 1, 5);
    static const char whole[] = "a,b\r\nc,d\r\n";
    check_split(whole, sizeof whole - 1, first, 2, sizeof whole - 1);
    /* an unterminated quoted field is not a record; nothing at all is no record */
    static const char open_quote[] = "a\r\n\"b,\r\nc";
    const want_record just_a[] = {{"a", 1, true}};
    check_split(open_quote, sizeof open_quote - 1, just_a, 1, 3);
    check_split("", 0, NULL, 0, 0);
    check_split("\xEF\xBB\xBF", 3, NULL, 0, 3);
}

/* Rows written by io/csv.h split back into the same first fields and field counts. */
static void test_records_round_trip_writer(void **state)
{
    (void)state;
    static const char *const firsts[] = {
        "Functional.softmax.0.forward.output.0",
        "has,comma",
        "has\"quote",
        "cr\rinside",
        "lf\ninside",
        "crlf\r\ninside",
        "",
        " ",
    };
    pc_csv_buffer b = PC_CSV_BUFFER_INIT;
    assert_int_equal(
        pc_csv_append_text_row(&b, pc_mcsv_header(PC_MCSV_DETAILS, NULL), PC_MCSV_DETAILS_COLUMNS),
        PC_OK);
    size_t count = sizeof firsts / sizeof firsts[0];
    for (size_t i = 0; i < count; i++) {
        pc_csv_cell cells[3] = {pc_csv_text(firsts[i]), pc_csv_text("a\r\nb,c"), pc_csv_f64(0.5)};
        assert_int_equal(pc_csv_append_row(&b, cells, 1 + i % 3, 14), PC_OK);
    }
    pc_csv_record *r = NULL;
    size_t got = 0, end = 0;
    assert_int_equal(pc_csv_records_split(b.data, b.len, &r, &got, &end), PC_OK);
    assert_int_equal(got, count + 1);
    assert_int_equal(end, b.len);
    assert_string_equal(r[0].first, PC_MCSV_DETAILS_FIRST);
    assert_int_equal(r[0].fields, PC_MCSV_DETAILS_COLUMNS);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(r[i + 1].first, firsts[i]);
        assert_int_equal(r[i + 1].fields, 1 + i % 3);
        assert_true(r[i + 1].crlf);
    }
    pc_csv_records_free(r, got);
    pc_csv_buffer_free(&b);
}

static void test_file_read(void **state)
{
    (void)state;
    char dir[512], path[600];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(path, "%s/a.csv", dir);
    /* larger than the first read buffer (64 KiB), so that it grows */
    size_t n = 200000;
    char *text = malloc(n);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = (char)('a' + i % 26);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
    char *data = NULL;
    size_t len = 0;
    assert_int_equal(pc_csv_file_read(path, &data, &len), PC_OK);
    assert_int_equal(len, n);
    assert_memory_equal(data, text, n);
    free(data);
    free(text);
    PC_TEST_FMT(path, "%s/missing.csv", dir);
    assert_int_equal(pc_csv_file_read(path, &data, &len), PC_ERR_IO);
    assert_non_null(strstr(pc_error_message(), path));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_as_msprobe_writes_them),
        cmocka_unit_test(test_row_names_round_trip),
        cmocka_unit_test(test_row_names_without_suffix),
        cmocka_unit_test(test_pcmp_split),
        cmocka_unit_test(test_records_endings_and_quotes),
        cmocka_unit_test(test_records_round_trip_writer),
        cmocka_unit_test(test_file_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
