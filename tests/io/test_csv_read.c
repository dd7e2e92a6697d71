/* The streaming CSV reader: Python csv's dialect, record by record, from memory and files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_test.h"
#include "precheck/io/csv.h"
#include "precheck/io/csv_read.h"

/* Reads all of text and joins the records as "f1|f2|...\n" (fields in brackets). */
static pc_status read_all(const char *text, size_t len, char *out, size_t size)
{
    pc_csv_reader *r;
    pc_status st = pc_csv_reader_open_memory(text, len, "t.csv", &r);
    assert_int_equal(st, PC_OK);
    size_t n = 0;
    bool has;
    out[0] = '\0';
    while ((st = pc_csv_reader_next(r, &has)) == PC_OK && has) {
        for (size_t i = 0; i < pc_csv_reader_field_count(r); i++)
            n += (size_t)snprintf(out + n, size - n, "%s[%s]", i ? "|" : "",
                                  pc_csv_reader_field(r, i, NULL));
        n += (size_t)snprintf(out + n, size - n, "@%zu\n", pc_csv_reader_line(r));
    }
    pc_csv_reader_free(r);
    return st;
}

static void expect(const char *text, const char *want)
{
    char got[4096];
    assert_int_equal(read_all(text, strlen(text), got, sizeof got), PC_OK);
    assert_string_equal(got, want);
}

static void test_dialect(void **state)
{
    (void)state;
    expect("a,b\r\nc,d\r\n", "[a]|[b]@1\n[c]|[d]@2\n");
    expect("\xEF\xBB\xBF"
           "a,b\nc,d",
           "[a]|[b]@1\n[c]|[d]@2\n");
    expect("a\rb\r", "[a]@1\n[b]@2\n");
    expect("\"x,y\",\"say \"\"hi\"\"\"\r\n", "[x,y]|[say \"hi\"]@1\n");
    expect("\"line1\nline2\r\nend\",z\r\nnext\r\n", "[line1\nline2\r\nend]|[z]@1\n[next]@4\n");
    expect("a, ,\r\n", "[a]|[ ]|[]@1\n");
    expect("\r\n\r\na\r\n\n", "[a]@3\n");           /* empty lines are skipped */
    expect("ab\"c,\"d\"e\r\n", "[ab\"c]|[de]@1\n"); /* Python's non-strict reader */
    expect("", "");
    expect(",", "[]|[]@1\n");
}

static void test_unterminated_quote(void **state)
{
    (void)state;
    char got[256];
    const char *t = "a,b\r\n\"open,\r\nmore";
    assert_int_equal(read_all(t, strlen(t), got, sizeof got), PC_ERR_FORMAT);
    assert_non_null(strstr(pc_error_message(), "t.csv:2: the quoted field"));
}

/* What the writer writes, the reader reads back, across read-buffer boundaries. */
static void test_round_trip_file(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/x.csv", dir);
    pc_csv_buffer buf = PC_CSV_BUFFER_INIT;
    char name[64], msg[64];
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "Torch.a.%d.forward.output.0", i);
        snprintf(msg, sizeof msg, "\nline, \"%d\"\n", i);
        pc_csv_cell cells[4] = {pc_csv_text(name), pc_csv_space(), pc_csv_f64(i * 0.5),
                                pc_csv_text(msg)};
        assert_int_equal(pc_csv_append_row(&buf, cells, 4, 14), PC_OK);
    }
    assert_int_equal(pc_csv_append_file(path, &buf), PC_OK);
    pc_csv_buffer_free(&buf);
    pc_csv_reader *r;
    assert_int_equal(pc_csv_reader_open(path, &r), PC_OK);
    bool has;
    int i = 0;
    while (pc_csv_reader_next(r, &has) == PC_OK && has) {
        snprintf(name, sizeof name, "Torch.a.%d.forward.output.0", i);
        snprintf(msg, sizeof msg, "\nline, \"%d\"\n", i);
        assert_int_equal(pc_csv_reader_field_count(r), 4);
        assert_string_equal(pc_csv_reader_field(r, 0, NULL), name);
        assert_string_equal(pc_csv_reader_field(r, 1, NULL), " ");
        assert_string_equal(pc_csv_reader_field(r, 3, NULL), msg);
        assert_int_equal(pc_csv_reader_line(r), (size_t)(1 + 3 * i));
        assert_null(pc_csv_reader_field(r, 4, NULL));
        i++;
    }
    assert_int_equal(i, 20000);
    pc_csv_reader_free(r);
}

static void test_missing_file(void **state)
{
    (void)state;
    pc_csv_reader *r;
    assert_int_equal(pc_csv_reader_open("/nonexistent/dir/x.csv", &r), PC_ERR_NOT_FOUND);
    assert_null(r);
    assert_non_null(strstr(pc_error_message(), "/nonexistent/dir/x.csv"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dialect),
        cmocka_unit_test(test_unterminated_quote),
        cmocka_unit_test(test_round_trip_file),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
