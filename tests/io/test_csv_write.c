/* The CSV writer: numpy's float32/float16 reprs and Python's fixed format against golden
 * files made with numpy 1.24 (tests/golden/gen_compare_golden.py), Python csv quoting, CRLF,
 * the BOM only at the start of a new file, whole-row appends, and the file mode. */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/convert.h"
#include "precheck/core/pyrepr.h"
#include "precheck/io/csv.h"

#ifndef PC_TEST_FIXTURES
#error "PC_TEST_FIXTURES must name the fixtures directory"
#endif

static FILE *open_fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/compare/%s", PC_TEST_FIXTURES, name);
    FILE *f = fopen(path, "r");
    if (!f)
        print_error("cannot open %s\n", path);
    assert_non_null(f);
    return f;
}

static void f32_repr_matches_numpy(void **state)
{
    FILE *f = open_fixture("f32_repr.txt");
    char line[256], want[128], got[128];
    unsigned bits;
    int n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(sscanf(line, "%x %127s", &bits, want), 2);
        float x;
        uint32_t b = bits;
        memcpy(&x, &b, 4);
        pc_pyrepr_numpy_f32(got, sizeof got, x);
        if (strcmp(got, want) != 0 && bad++ < 10)
            print_error("float32 %08x: got %s, numpy %s\n", bits, got, want);
        n++;
    }
    fclose(f);
    assert_true(n > 6000);
    assert_int_equal(bad, 0);
}

static void f16_repr_matches_numpy_for_every_value(void **state)
{
    FILE *f = open_fixture("f16_repr.txt");
    char line[128], got[64];
    int bad = 0;
    uint16_t h = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        pc_pyrepr_numpy_f16(got, sizeof got, h);
        if (strcmp(got, line) != 0 && bad++ < 10)
            print_error("float16 %04x: got %s, numpy %s\n", h, got, line);
        char neg[64], want_neg[136];
        pc_pyrepr_numpy_f16(neg, sizeof neg, (uint16_t)(h | 0x8000));
        snprintf(want_neg, sizeof want_neg, "-%s", line);
        if (strcmp(neg, want_neg) != 0 && bad++ < 10)
            print_error("float16 %04x: got %s, want %s\n", h | 0x8000, neg, want_neg);
        h++;
    }
    fclose(f);
    assert_int_equal(h, 0x7C00);
    assert_int_equal(bad, 0);
}

static void fixed_matches_python(void **state)
{
    FILE *f = open_fixture("fixed14.txt");
    char line[1024], want[1000], got[PC_CSV_NUMBER_MAX];
    unsigned long long bits;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        assert_int_equal(sscanf(line, "%llx %999s", &bits, want), 2);
        double x;
        uint64_t b = bits;
        memcpy(&x, &b, 8);
        pc_format_fixed(got, sizeof got, x, 14);
        assert_string_equal(got, want);
        n++;
    }
    fclose(f);
    assert_true(n >= 500);
}

static void specials(void **state)
{
    char buf[PC_CSV_NUMBER_MAX];
    pc_format_fixed(buf, sizeof buf, (double)NAN, 14);
    assert_string_equal(buf, "nan");
    pc_format_fixed(buf, sizeof buf, -(double)NAN, 14);
    assert_string_equal(buf, "nan");
    pc_format_fixed(buf, sizeof buf, HUGE_VAL, 14);
    assert_string_equal(buf, "inf");
    pc_format_fixed(buf, sizeof buf, -HUGE_VAL, 14);
    assert_string_equal(buf, "-inf");
    pc_format_fixed(buf, sizeof buf, -0.0, 14);
    assert_string_equal(buf, "-0.00000000000000");
    pc_format_fixed(buf, sizeof buf, 0.71428571428571, 3);
    assert_string_equal(buf, "0.714");
    pc_pyrepr_numpy_f32(buf, sizeof buf, NAN);
    assert_string_equal(buf, "nan");
    pc_pyrepr_numpy_f32(buf, sizeof buf, -INFINITY);
    assert_string_equal(buf, "-inf");
    pc_pyrepr_numpy_f32(buf, sizeof buf, 0.0f);
    assert_string_equal(buf, "0.0");
    pc_pyrepr_numpy_f32(buf, sizeof buf, -0.0f);
    assert_string_equal(buf, "-0.0");
    /* the examples of compare.md §8.3 */
    pc_pyrepr_numpy_f32(buf, sizeof buf, 0.0009765625f);
    assert_string_equal(buf, "0.0009765625");
    pc_pyrepr_numpy_f32(buf, sizeof buf, 1e-05f);
    assert_string_equal(buf, "1e-05");
    pc_pyrepr_numpy_f32(buf, sizeof buf, 6.944174e-08f);
    assert_string_equal(buf, "6.944174e-08");
    pc_pyrepr_numpy_f32(buf, sizeof buf, 0.0001f);
    assert_string_equal(buf, "1e-04");
    pc_pyrepr_numpy_f32(buf, sizeof buf, 123456790.0f);
    assert_string_equal(buf, "123456790.0");
    pc_pyrepr_numpy_f32(buf, sizeof buf, 1e16f);
    assert_string_equal(buf, "1e+16");
    pc_pyrepr_numpy_f16(buf, sizeof buf, pc_f32_to_f16(0.0996f));
    assert_string_equal(buf, "0.0996");
    pc_pyrepr_numpy_f16(buf, sizeof buf, 0x7C00);
    assert_string_equal(buf, "inf");
    /* cut like snprintf */
    char small[4];
    assert_int_equal(pc_pyrepr_numpy_f32(small, sizeof small, 0.125f), 5);
    assert_string_equal(small, "0.1");
}

static void cell_kinds(void **state)
{
    char buf[PC_CSV_NUMBER_MAX];
    pc_csv_cell c = pc_csv_space();
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    assert_string_equal(buf, " ");
    c = pc_csv_int(0);
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    assert_string_equal(buf, "0");
    c = pc_csv_int(-12);
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    assert_string_equal(buf, "-12");
    c = pc_csv_f64(0.25);
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    assert_string_equal(buf, "0.25000000000000");
    c = pc_csv_f32(0.25f);
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    assert_string_equal(buf, "0.25");
    c = (pc_csv_cell){.kind = PC_CSV_EMPTY};
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    assert_string_equal(buf, "");
    c = pc_csv_text(NULL);
    pc_csv_format_cell(buf, sizeof buf, &c, 14);
    assert_string_equal(buf, "");
}

static void quoting_like_python_csv(void **state)
{
    pc_csv_buffer buf = PC_CSV_BUFFER_INIT;
    pc_csv_cell cells[] = {
        pc_csv_text("plain"),  pc_csv_text("a,b"),   pc_csv_text("say \"hi\""),
        pc_csv_text("l1\nl2"), pc_csv_text("cr\rx"), pc_csv_text(""),
        pc_csv_space(),        pc_csv_text("(7,)"),  pc_csv_text("相对误差最大值"),
        pc_csv_f64(1.0 / 3),   pc_csv_f32(0.1f),     pc_csv_int(0),
    };
    assert_int_equal(pc_csv_append_row(&buf, cells, sizeof cells / sizeof cells[0], 14), PC_OK);
    assert_string_equal(buf.data, "plain,\"a,b\",\"say \"\"hi\"\"\",\"l1\nl2\",\"cr\rx\",, ,"
                                  "\"(7,)\",相对误差最大值,0.33333333333333,0.1,0\r\n");
    const char *fields[] = {"API name", "Forward Test Success", "Backward Test Success", "Message"};
    assert_int_equal(pc_csv_append_text_row(&buf, fields, 4), PC_OK);
    assert_string_equal(buf.data + strlen(buf.data) -
                            strlen("API name,Forward Test Success,"
                                   "Backward Test Success,Message\r\n"),
                        "API name,Forward Test Success,Backward Test Success,Message\r\n");
    pc_csv_buffer_clear(&buf);
    assert_int_equal(buf.len, 0);
    pc_csv_buffer_free(&buf);
    assert_null(buf.data);
}

static void bom_once_and_appends(void **state)
{
    char dir[512], path[600];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/accuracy_checking_result_20250101000000.csv", dir);
    pc_csv_buffer buf = PC_CSV_BUFFER_INIT;
    const char *header[] = {"API name", "Forward Test Success", "Backward Test Success", "Message"};
    assert_int_equal(pc_csv_append_text_row(&buf, header, 4), PC_OK);
    assert_int_equal(pc_csv_append_file(path, &buf), PC_OK);
    pc_csv_buffer_clear(&buf);
    pc_csv_cell row[] = {pc_csv_text("Torch.matmul.0"), pc_csv_text("pass"), pc_csv_text(" ")};
    assert_int_equal(pc_csv_append_row(&buf, row, 3, 14), PC_OK);
    assert_int_equal(pc_csv_append_file(path, &buf), PC_OK);
    assert_int_equal(pc_csv_append_file(path, &buf), PC_OK);
    size_t size;
    char *data = pc_test_slurp(path, &size);
    const char *want = "\xEF\xBB\xBF"
                       "API name,Forward Test Success,Backward Test Success,Message\r\n"
                       "Torch.matmul.0,pass, \r\n"
                       "Torch.matmul.0,pass, \r\n";
    assert_int_equal(size, strlen(want));
    assert_memory_equal(data, want, size);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);

    /* an existing empty file gets the BOM; an empty buffer writes nothing */
    char empty[600];
    snprintf(empty, sizeof empty, "%s/empty.csv", dir);
    pc_csv_buffer none = PC_CSV_BUFFER_INIT;
    assert_int_equal(pc_csv_append_file(empty, &none), PC_OK);
    assert_int_equal(stat(empty, &st), 0);
    assert_int_equal(st.st_size, 0);
    assert_int_equal(pc_csv_append_file(empty, &buf), PC_OK);
    free(data);
    data = pc_test_slurp(empty, &size);
    assert_int_equal(size, 3 + strlen("Torch.matmul.0,pass, \r\n"));
    assert_memory_equal(data, "\xEF\xBB\xBF", 3);
    free(data);

    /* a directory that does not exist */
    char bad[700];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.csv", dir);
    assert_int_equal(pc_csv_append_file(bad, &buf), PC_ERR_NOT_FOUND);
    assert_non_null(strstr(pc_error_message(), "no/such/dir/x.csv"));
    pc_csv_buffer_free(&buf);
    remove(path);
    remove(empty);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f32_repr_matches_numpy),
        cmocka_unit_test(f16_repr_matches_numpy_for_every_value),
        cmocka_unit_test(fixed_matches_python),
        cmocka_unit_test(specials),
        cmocka_unit_test(cell_kinds),
        cmocka_unit_test(quoting_like_python_csv),
        cmocka_unit_test(bom_once_and_appends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
