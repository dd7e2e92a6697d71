/* io/json_write.h: the layouts (json.dump with indent, json.dumps' one line, the two mixed as
 * precheck's summaries mix them), the one string escaper in both modes checked against
 * Python's json.dumps, numbers through core/pyrepr, and the writer's errors. */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/json_write.h"

typedef struct mem {
    char *buf;
    size_t len;
    FILE *f;
    pc_json_writer w;
} mem;

static pc_json_writer *mem_open(mem *m, int indent, unsigned flags)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    assert_non_null(m->f);
    pc_json_writer_init(&m->w, m->f, indent, flags);
    return &m->w;
}

/* Finishes the writer (expecting status) and returns the text (the caller frees it). */
static char *mem_close(mem *m, pc_status status)
{
    assert_int_equal(pc_json_writer_finish(&m->w), status);
    assert_int_equal(fclose(m->f), 0);
    return m->buf;
}

static void expect_text(mem *m, const char *expected)
{
    char *text = mem_close(m, PC_OK);
    assert_string_equal(text, expected);
    free(text);
}

static void test_block_layout(void **state)
{
    (void)state;
    mem m;
    pc_json_writer *w = mem_open(&m, 1, PC_JSON_ENSURE_ASCII);
    pc_json_write_begin_object(w);
    pc_json_write_keyz(w, "a");
    pc_json_write_begin_array(w);
    pc_json_write_int(w, 1);
    pc_json_write_double(w, 0.5);
    pc_json_write_end_array(w);
    pc_json_write_keyz(w, "empty");
    pc_json_write_begin_object(w);
    pc_json_write_end_object(w);
    pc_json_write_keyz(w, "none");
    pc_json_write_begin_array(w);
    pc_json_write_end_array(w);
    pc_json_write_keyz(w, "n");
    pc_json_write_null(w);
    pc_json_write_end_object(w);
    /* json.dump(..., indent=1): no newline at the end */
    expect_text(&m, "{\n \"a\": [\n  1,\n  0.5\n ],\n \"empty\": {},\n \"none\": [],\n"
                    " \"n\": null\n}");

    w = mem_open(&m, 0, 0);
    pc_json_write_begin_array(w);
    pc_json_write_bool(w, true);
    pc_json_write_begin_object(w);
    pc_json_write_keyz(w, "k");
    pc_json_write_bool(w, false);
    pc_json_write_end_object(w);
    pc_json_write_end_array(w);
    expect_text(&m, "[true, {\"k\": false}]"); /* json.dumps */
}

/* precheck's summaries: a block object with one-line members, a block array of one-line
 * objects; everything inside an inline container stays on its line. */
static void test_mixed_layout(void **state)
{
    (void)state;
    mem m;
    pc_json_writer *w = mem_open(&m, 2, PC_JSON_FINAL_NEWLINE);
    pc_json_write_begin_object(w);
    pc_json_write_keyz(w, "run");
    pc_json_write_begin_object_inline(w);
    pc_json_write_keyz(w, "argv");
    pc_json_write_begin_array(w); /* inside an inline one: inline too */
    pc_json_write_stringz(w, "a");
    pc_json_write_stringz(w, "b");
    pc_json_write_end_array(w);
    pc_json_write_keyz(w, "x");
    pc_json_write_int(w, -3);
    pc_json_write_end_object(w);
    pc_json_write_keyz(w, "apis");
    pc_json_write_begin_array(w);
    for (int i = 0; i < 2; i++) {
        pc_json_write_begin_object_inline(w);
        pc_json_write_keyz(w, "i");
        pc_json_write_int(w, i);
        pc_json_write_end_object(w);
    }
    pc_json_write_end_array(w);
    pc_json_write_keyz(w, "inner");
    pc_json_write_begin_object(w);
    pc_json_write_keyz(w, "k");
    pc_json_write_stringz(w, NULL);
    pc_json_write_end_object(w);
    pc_json_write_end_object(w);
    expect_text(&m, "{\n  \"run\": {\"argv\": [\"a\", \"b\"], \"x\": -3},\n  \"apis\": [\n"
                    "    {\"i\": 0},\n    {\"i\": 1}\n  ],\n  \"inner\": {\n    \"k\": null\n"
                    "  }\n}\n");
}

static void test_numbers(void **state)
{
    (void)state;
    mem m;
    pc_json_writer *w = mem_open(&m, 0, 0);
    pc_json_write_begin_array(w);
    const double xs[] = {0.1,     1e-5, 1e16,        100.0,    -0.0,
                         0x1p-24, 1e15, (double)NAN, HUGE_VAL, -HUGE_VAL};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
        pc_json_write_double(w, xs[i]);
    pc_json_write_int(w, INT64_MIN);
    pc_json_write_number_text(w, "123456789012345678901234567890", 30);
    pc_json_write_end_array(w);
    expect_text(&m, "[0.1, 1e-05, 1e+16, 100.0, -0.0, 5.960464477539063e-08, "
                    "1000000000000000.0, NaN, Infinity, -Infinity, -9223372036854775808, "
                    "123456789012345678901234567890]");

    w = mem_open(&m, 0, PC_JSON_NONFINITE_NULL); /* strict JSON */
    pc_json_write_begin_array(w);
    pc_json_write_double(w, (double)NAN);
    pc_json_write_double(w, -HUGE_VAL);
    pc_json_write_double(w, 2.5);
    pc_json_write_end_array(w);
    expect_text(&m, "[null, null, 2.5]");

    w = mem_open(&m, 0, PC_JSON_NONFINITE_NULL | PC_JSON_DOUBLE_17G); /* summary.json, schema 1 */
    pc_json_write_begin_array(w);
    pc_json_write_double(w, 0.0);
    pc_json_write_double(w, 0.1);
    pc_json_write_double(w, (double)NAN);
    pc_json_write_end_array(w);
    expect_text(&m, "[0, 0.10000000000000001, null]");

    char buf[PC_JSON_DOUBLE_MAX];
    assert_int_equal(pc_json_format_double(buf, sizeof buf, -HUGE_VAL), 9);
    assert_string_equal(buf, "-Infinity");
}

/* The strings tried against Python: every ASCII character, Latin-1, the BMP's edges, a
 * character above U+FFFF, and invalid UTF-8 (ensure_ascii only: Python never sees it). */
static void write_strings(pc_json_writer *w, bool with_invalid)
{
    pc_json_write_begin_array(w);
    for (int c = 0; c < 0x80; c++) {
        char s[4] = {'<', (char)c, '>', 0};
        pc_json_write_string(w, s, 3);
    }
    static const char *const texts[] = {
        "caf\xc3\xa9",      "\xc2\x80\xc2\xa0\xc2\xad", "\xe2\x80\xa8 \xe2\x80\xae", "\xef\xbf\xbf",
        "\xf0\x90\x80\x80", "\xf0\x9f\x98\x80 grin",    "\xe4\xb8\xad\xe6\x96\x87",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        pc_json_write_stringz(w, texts[i]);
    if (with_invalid) {
        pc_json_write_stringz(w, "a\xff"
                                 "b");
        pc_json_write_stringz(w, "\xe4\xb8");
    }
    pc_json_write_end_array(w);
}

static char *python_dumps(const char *dir, bool ascii)
{
    char script[1024], out[1200], cmd[4096];
    PC_TEST_FMT(script, "%s/dumps.py", dir);
    PC_TEST_FMT(out, "%s/python.json", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f,
            "import json, sys\n"
            "texts = ['<' + chr(c) + '>' for c in range(0x80)]\n"
            "texts += ['caf\\u00e9', '\\u0080\\u00a0\\u00ad', '\\u2028 \\u202e', '\\uffff',\n"
            "          '\\U00010000', '\\U0001f600 grin', '\\u4e2d\\u6587']\n"
            "sys.stdout.buffer.write(json.dumps(texts, ensure_ascii=%s).encode('utf-8'))\n",
            ascii ? "True" : "False");
    assert_int_equal(fclose(f), 0);
    PC_TEST_FMT(cmd, "python3 '%s' >'%s'", script, out);
    assert_int_equal(system(cmd), 0);
    return pc_test_slurp(out, NULL);
}

static void test_strings_against_python(void **state)
{
    (void)state;
    if (system("python3 -c '' >/dev/null 2>&1") != 0) {
        print_message("python3 is not on PATH: json.dumps cannot be asked\n");
        skip();
    }
    char dir[1024];
    pc_test_tmpdir(dir, sizeof dir);
    for (int ascii = 0; ascii < 2; ascii++) {
        mem m;
        write_strings(mem_open(&m, 0, ascii ? PC_JSON_ENSURE_ASCII : 0), false);
        char *ours = mem_close(&m, PC_OK), *python = python_dumps(dir, ascii);
        assert_string_equal(ours, python);
        free(ours);
        free(python);
    }
}

static void test_string_escapes(void **state)
{
    (void)state;
    mem m;
    pc_json_writer *w = mem_open(&m, 0, PC_JSON_ENSURE_ASCII);
    pc_json_write_begin_array(w);
    pc_json_write_string(w, "a\0b", 3); /* a NUL inside */
    pc_json_write_stringz(w, "a\xff"
                             "b"); /* not UTF-8: U+FFFD */
    pc_json_write_stringz(w, "\xe4\xb8");
    pc_json_write_stringz(w, "\"\\\n\t\x7f\x01");
    pc_json_write_end_array(w);
    expect_text(&m, "[\"a\\u0000b\", \"a\\ufffdb\", \"\\ufffd\\ufffd\", "
                    "\"\\\"\\\\\\n\\t\\u007f\\u0001\"]");
    /* without ensure_ascii the bytes >= 0x80 are kept as they are, valid or not */
    w = mem_open(&m, 0, 0);
    pc_json_write_begin_array(w);
    pc_json_write_stringz(w, "a\xff\xc3\xa9\x7f");
    pc_json_write_end_array(w);
    expect_text(&m, "[\"a\xff\xc3\xa9\x7f\"]");
}

static void test_misuse(void **state)
{
    (void)state;
    mem m;
    pc_json_writer *w = mem_open(&m, 1, 0);
    pc_json_write_begin_object(w);
    pc_json_write_int(w, 1); /* a value without a key */
    free(mem_close(&m, PC_ERR_INVALID));
    assert_non_null(strstr(pc_error_message(), "without a key"));

    w = mem_open(&m, 1, 0);
    pc_json_write_begin_array(w);
    pc_json_write_keyz(w, "k"); /* a key outside an object */
    free(mem_close(&m, PC_ERR_INVALID));

    w = mem_open(&m, 1, 0);
    pc_json_write_begin_array(w);
    pc_json_write_end_object(w); /* unbalanced */
    free(mem_close(&m, PC_ERR_INVALID));

    w = mem_open(&m, 1, 0);
    pc_json_write_begin_array(w); /* left open */
    free(mem_close(&m, PC_ERR_INVALID));
    assert_non_null(strstr(pc_error_message(), "left open"));
}

/* A full disk is an I/O error with the system's reason, not a short file taken as whole. */
static void test_write_failure(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        skip();
    setvbuf(f, NULL, _IONBF, 0);
    pc_json_writer w;
    pc_json_writer_init(&w, f, 2, PC_JSON_FINAL_NEWLINE);
    pc_json_write_begin_object(&w);
    pc_json_write_keyz(&w, "k");
    pc_json_write_stringz(&w, "v");
    pc_json_write_end_object(&w);
    assert_int_equal(pc_json_writer_finish(&w), PC_ERR_IO);
    assert_non_null(strstr(pc_error_message(), "No space left on device"));
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_layout),   cmocka_unit_test(test_mixed_layout),
        cmocka_unit_test(test_numbers),        cmocka_unit_test(test_strings_against_python),
        cmocka_unit_test(test_string_escapes), cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_write_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
