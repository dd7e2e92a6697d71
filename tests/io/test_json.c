/* The JSON tokenizer: Python's json language (NaN, Infinity, big integers, escapes), exact
 * numbers, navigation, typed getters and their messages, the member scanner, and hostile
 * input (truncations, corruptions, deep nesting) that must fail cleanly. */
#include "pc_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/json.h"

static pc_json_doc *parse_ok(const char *text)
{
    pc_json_doc *doc = NULL;
    pc_status st = pc_json_parse(&doc, text, strlen(text), "t.json");
    if (st != PC_OK)
        fail_msg("parse of %s failed: %s", text, pc_error_message());
    return doc;
}

/* Parses text, which must fail with status and exactly message. */
static void expect_error(const char *text, size_t len, pc_status status, const char *message)
{
    pc_json_doc *doc = NULL;
    pc_status st = pc_json_parse(&doc, text, len, "t.json");
    if (st != status)
        fail_msg("%s: status %d, expected %d (%s)", text, st, status, pc_error_message());
    assert_null(doc);
    assert_string_equal(pc_error_message(), message);
}

#define EXPECT_ERROR(text, message) expect_error(text, strlen(text), PC_ERR_FORMAT, message)

static void test_scalars(void **state)
{
    (void)state;
    pc_json_doc *doc = parse_ok("[null, true, false, 0, -0, 42, -17, 2.5, -0.0, 1e3, 1E-2, "
                                "NaN, Infinity, -Infinity, \"s\"]");
    pc_json_ref root = pc_json_root(doc);
    assert_int_equal(pc_json_type_of(doc, root), PC_JSON_ARRAY);
    assert_int_equal(pc_json_count(doc, root), 15);
    const pc_json_type types[] = {PC_JSON_NULL,  PC_JSON_BOOL,  PC_JSON_BOOL,  PC_JSON_INT,
                                  PC_JSON_INT,   PC_JSON_INT,   PC_JSON_INT,   PC_JSON_FLOAT,
                                  PC_JSON_FLOAT, PC_JSON_FLOAT, PC_JSON_FLOAT, PC_JSON_FLOAT,
                                  PC_JSON_FLOAT, PC_JSON_FLOAT, PC_JSON_STRING};
    for (size_t i = 0; i < 15; i++)
        assert_int_equal(pc_json_type_of(doc, pc_json_array_at(doc, root, i)), types[i]);
    bool b = false;
    assert_int_equal(pc_json_get_bool(doc, pc_json_array_at(doc, root, 1), &b), PC_OK);
    assert_true(b);
    int64_t i64 = 1;
    assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, root, 4), &i64), PC_OK);
    assert_int_equal(i64, 0); /* Python: -0 is the int 0 */
    assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, root, 6), &i64), PC_OK);
    assert_int_equal(i64, -17);
    double d;
    assert_int_equal(pc_json_get_double(doc, pc_json_array_at(doc, root, 7), &d), PC_OK);
    pc_assert_same_f64(d, 2.5);
    pc_assert_same_f64(pc_json_number(doc, pc_json_array_at(doc, root, 8)), -0.0);
    pc_assert_same_f64(pc_json_number(doc, pc_json_array_at(doc, root, 9)), 1000.0);
    pc_assert_same_f64(pc_json_number(doc, pc_json_array_at(doc, root, 10)), 0.01);
    assert_true(isnan(pc_json_number(doc, pc_json_array_at(doc, root, 11))));
    pc_assert_same_f64(pc_json_number(doc, pc_json_array_at(doc, root, 12)), HUGE_VAL);
    pc_assert_same_f64(pc_json_number(doc, pc_json_array_at(doc, root, 13)), -HUGE_VAL);
    /* an int is a double too, but a double is not an int */
    assert_int_equal(pc_json_get_double(doc, pc_json_array_at(doc, root, 5), &d), PC_OK);
    pc_assert_same_f64(d, 42.0);
    assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, root, 7), &i64), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "t.json:1:37: expected an integer, found number");
    assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, root, 1), &i64), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "t.json:1:8: expected an integer, found boolean");
    pc_json_free(doc);
}

static void test_big_integers(void **state)
{
    (void)state;
    pc_json_doc *doc = parse_ok("[9223372036854775807, -9223372036854775808, "
                                "9223372036854775808, -9223372036854775809, "
                                "123456789012345678901234567890, 187651464146080]");
    pc_json_ref root = pc_json_root(doc);
    int64_t v;
    assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, root, 0), &v), PC_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, root, 1), &v), PC_OK);
    assert_true(v == INT64_MIN);
    /* outside int64: the nearest double, flagged, and refused as an integer */
    pc_json_ref big = pc_json_array_at(doc, root, 2);
    assert_int_equal(pc_json_type_of(doc, big), PC_JSON_FLOAT);
    assert_true(pc_json_is_big_integer(doc, big));
    pc_assert_same_f64(pc_json_number(doc, big), 9223372036854775808.0);
    assert_int_equal(pc_json_get_int64(doc, big, &v), PC_ERR_RANGE);
    assert_string_equal(pc_error_message(),
                        "t.json:1:45: expected an integer, found an integer outside the 64-bit "
                        "range");
    pc_assert_same_f64(pc_json_number(doc, pc_json_array_at(doc, root, 3)), -9223372036854775808.0);
    pc_assert_same_f64(pc_json_number(doc, pc_json_array_at(doc, root, 4)),
                       123456789012345678901234567890.0);
    assert_false(pc_json_is_big_integer(doc, pc_json_array_at(doc, root, 5)));
    assert_int_equal(pc_json_get_int64(doc, pc_json_array_at(doc, root, 5), &v), PC_OK);
    assert_true(v == 187651464146080); /* an NPU pointer in a dump, beyond 2^53 would be lost */
    pc_json_free(doc);

    doc = parse_ok("9007199254740993"); /* 2^53 + 1: not a double */
    assert_int_equal(pc_json_get_int64(doc, pc_json_root(doc), &v), PC_OK);
    assert_true(v == 9007199254740993LL);
    pc_json_free(doc);
}

/* Every float literal must give strtod's (correctly rounded) double, whichever path it takes. */
static void test_float_exactness(void **state)
{
    (void)state;
    static const char *const samples[] = {
        "0.1",
        "0.08838834764831843",
        "1.2874603271484375e-05",
        "-2.4557113647460938e-05",
        "3.6555705070495605",
        "11.832159996032715",
        "1e-05",
        "2.2250738585072014e-308",
        "4.9406564584124654e-324",
        "1.7976931348623157e308",
        "1e400",
        "1e-400",
        "9007199254740993.0",
        "0.30000000000000004",
        "123456789012345678.5e-3",
        "1234567890123456789012345678901234567890.5",
        "0.0000000000000000000000000001",
        "5e-324",
        "2.4703282292062327e-324",
        "1.00000000000000011102230246251565404236316680908203125",
    };
    pc_json_doc *doc;
    assert_int_equal(pc_json_doc_new(&doc, "n"), PC_OK);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        assert_int_equal(
            pc_json_parse_range(doc, samples[i], strlen(samples[i]), 0, strlen(samples[i])), PC_OK);
        pc_assert_same_f64(pc_json_number(doc, pc_json_root(doc)), strtod(samples[i], NULL));
    }
    /* and a deterministic sweep of 1..19-digit mantissas with exponents -30..30 */
    uint64_t s = 0x243f6a8885a308d3ULL;
    for (int it = 0; it < 200000; it++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        char digits[24], text[64];
        int nd = 1 + (int)(s % 19);
        uint64_t x = s;
        for (int k = 0; k < nd; k++) {
            digits[k] = (char)('0' + (x % 10));
            x = x / 10 ^ (x << 7);
        }
        digits[nd] = '\0';
        digits[0] = (char)('1' + (s >> 40) % 9);
        snprintf(text, sizeof text, "%c.%se%d", digits[0], nd > 1 ? digits + 1 : "0",
                 (int)((s >> 20) % 61) - 30);
        assert_int_equal(pc_json_parse_range(doc, text, strlen(text), 0, strlen(text)), PC_OK);
        double a = pc_json_number(doc, pc_json_root(doc)), b = strtod(text, NULL);
        if (!pc_test_same_f64(a, b))
            fail_msg("%s: %.17g, strtod %.17g", text, a, b);
    }
    pc_json_free(doc);
}

static void test_strings(void **state)
{
    (void)state;
    pc_json_doc *doc = parse_ok("[\"plain\", \"q\\\"b\\\\s\\/n\\nt\\tr\\rb\\bf\\f\", "
                                "\"\\u00e9\\u4e2d\", \"\\ud83d\\ude00\", \"\\ud800x\", "
                                "\"\\udc00\", \"a\\u0000b\", \"caf\xc3\xa9 \xe4\xb8\xad "
                                "\xf0\x9f\x98\x80\", \"\"]");
    pc_json_ref root = pc_json_root(doc);
    size_t len;
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 0), NULL), "plain");
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 1), NULL),
                        "q\"b\\s/n\nt\tr\rb\bf\f");
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 2), NULL),
                        "\xc3\xa9\xe4\xb8\xad");
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 3), NULL),
                        "\xf0\x9f\x98\x80"); /* the pair makes one code point */
    /* lone surrogates become U+FFFD (Python keeps them, UTF-8 cannot hold them) */
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 4), NULL), "\xef\xbf\xbdx");
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 5), NULL), "\xef\xbf\xbd");
    const char *nul = pc_json_string(doc, pc_json_array_at(doc, root, 6), &len);
    assert_int_equal(len, 3);
    assert_memory_equal(nul, "a\0b", 4);
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 7), NULL),
                        "caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, root, 8), &len), "");
    assert_int_equal(len, 0);
    assert_null(pc_json_string(doc, root, NULL));
    pc_json_free(doc);

    /* a long string with escaped quotes (the tokenizer's slow path) */
    char big[4096];
    size_t n = 0;
    big[n++] = '"';
    for (int i = 0; i < 300; i++) {
        memcpy(big + n, "ab\\\"", 4);
        n += 4;
    }
    big[n++] = '"';
    big[n] = '\0';
    doc = parse_ok(big);
    assert_int_equal(strlen(pc_json_string(doc, pc_json_root(doc), NULL)), 900);
    pc_json_free(doc);
}

static void test_navigation(void **state)
{
    (void)state;
    pc_json_doc *doc =
        parse_ok("{\"a\": 1, \"b\": {\"c\": [1, [2, 3], {}], \"d\": []}, \"a\": 2, \"e\": null}");
    pc_json_ref root = pc_json_root(doc);
    assert_int_equal(pc_json_count(doc, root), 4);
    /* duplicate keys: both members kept, the look-up finds the last (Python's dict) */
    int64_t v;
    assert_int_equal(pc_json_get_int64(doc, pc_json_object_get(doc, root, "a"), &v), PC_OK);
    assert_int_equal(v, 2);
    pc_json_ref k = pc_json_first(doc, root);
    assert_true(pc_json_is_key(doc, k));
    assert_string_equal(pc_json_string(doc, k, NULL), "a");
    assert_false(pc_json_member_is_last_of_key(doc, k));
    const char *keys[] = {"a", "b", "a", "e"};
    size_t i = 0;
    for (; k != PC_JSON_NONE; k = pc_json_next(doc, k), i++)
        assert_string_equal(pc_json_string(doc, k, NULL), keys[i]);
    assert_int_equal(i, 4);
    pc_json_ref b = pc_json_object_get(doc, root, "b");
    pc_json_ref c = pc_json_object_get(doc, b, "c");
    assert_int_equal(pc_json_count(doc, c), 3);
    assert_int_equal(pc_json_type_of(doc, pc_json_array_at(doc, c, 1)), PC_JSON_ARRAY);
    assert_int_equal(pc_json_count(doc, pc_json_array_at(doc, c, 1)), 2);
    assert_int_equal(pc_json_type_of(doc, pc_json_array_at(doc, c, 2)), PC_JSON_OBJECT);
    assert_int_equal(pc_json_next(doc, pc_json_array_at(doc, c, 2)), PC_JSON_NONE);
    assert_int_equal(pc_json_array_at(doc, c, 3), PC_JSON_NONE);
    assert_int_equal(pc_json_first(doc, pc_json_object_get(doc, b, "d")), PC_JSON_NONE);
    assert_true(pc_json_is_null(doc, pc_json_object_get(doc, root, "e")));
    /* PC_JSON_NONE is accepted everywhere */
    pc_json_ref none = pc_json_object_get(doc, root, "zz");
    assert_int_equal(none, PC_JSON_NONE);
    assert_int_equal(pc_json_type_of(doc, pc_json_object_get(doc, none, "x")), PC_JSON_INVALID);
    assert_int_equal(pc_json_count(doc, none), 0);
    assert_int_equal(pc_json_get_int64(doc, none, &v), PC_ERR_NOT_FOUND);
    assert_string_equal(pc_error_message(), "t.json: no value");
    size_t line, col;
    pc_json_location(doc, none, &line, &col);
    assert_true(line == 0 && col == 0);
    pc_json_free(doc);
}

static void test_getters_name_the_place(void **state)
{
    (void)state;
    const char *text = "{\n \"white_list\": \"conv2d\",\n \"precision\": 14,\n \"ok\": true\n}";
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse(&doc, text, strlen(text), "config.json"), PC_OK);
    pc_json_ref root = pc_json_root(doc);
    int64_t i;
    assert_int_equal(pc_json_object_get_int64(doc, root, "precision", &i), PC_OK);
    assert_int_equal(i, 14);
    assert_int_equal(pc_json_object_get_int64(doc, root, "white_list", &i), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "config.json:2:16: \"white_list\": expected an integer, found string");
    const char *s;
    assert_int_equal(pc_json_object_get_string(doc, root, "precision", &s), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "config.json:3:15: \"precision\": expected a string, found integer");
    bool b;
    assert_int_equal(pc_json_object_get_bool(doc, root, "ok", &b), PC_OK);
    assert_true(b);
    double d;
    assert_int_equal(pc_json_object_get_double(doc, root, "ok", &d), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "config.json:4:8: \"ok\": expected a number, found boolean");
    assert_int_equal(pc_json_object_get_string(doc, root, "error_data_path", &s), PC_ERR_NOT_FOUND);
    assert_string_equal(pc_error_message(), "config.json:1:1: missing key \"error_data_path\"");
    assert_int_equal(pc_json_object_get_string(doc, pc_json_object_get(doc, root, "ok"), "x", &s),
                     PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "config.json:4:8: expected an object, found boolean");
    assert_string_equal(pc_json_doc_name(doc), "config.json");
    size_t line, col;
    pc_json_location(doc, pc_json_object_get(doc, root, "ok"), &line, &col);
    assert_true(line == 4 && col == 8);
    pc_json_free(doc);

    /* columns count characters, as Python does */
    const char *utf = "{\"\xc3\xa9\xc3\xa9\": x}";
    expect_error(utf, strlen(utf), PC_ERR_FORMAT, "t.json:1:8: expected a value, found 'x'");
}

static void test_malformed(void **state)
{
    (void)state;
    EXPECT_ERROR("", "t.json:1:1: expected a value, found end of input");
    EXPECT_ERROR("   \n ", "t.json:2:2: expected a value, found end of input");
    EXPECT_ERROR("[1,]", "t.json:1:4: expected a value, found ']'");
    EXPECT_ERROR("[1 2]", "t.json:1:4: expected ',' or ']' after an array element, found '2'");
    EXPECT_ERROR("{\"a\" 1}", "t.json:1:6: expected ':' after an object key, found '1'");
    EXPECT_ERROR("{\"a\":1,}",
                 "t.json:1:8: expected an object key (a string in double quotes), found '}'");
    EXPECT_ERROR("{a:1}",
                 "t.json:1:2: expected an object key (a string in double quotes), found 'a'");
    EXPECT_ERROR("{\"a\":1 \"b\":2}",
                 "t.json:1:8: expected ',' or '}' after an object member, found '\"'");
    EXPECT_ERROR("[01]", "t.json:1:3: expected ',' or ']' after an array element, found '1'");
    EXPECT_ERROR("[1.]", "t.json:1:3: expected ',' or ']' after an array element, found '.'");
    EXPECT_ERROR("[.5]", "t.json:1:2: expected a value, found '.'");
    EXPECT_ERROR("[1e]", "t.json:1:3: expected ',' or ']' after an array element, found 'e'");
    EXPECT_ERROR("[-]", "t.json:1:2: expected a value, found '-'");
    EXPECT_ERROR("[+1]", "t.json:1:2: expected a value, found '+'");
    EXPECT_ERROR("[-NaN]", "t.json:1:2: expected a value, found '-'");
    EXPECT_ERROR("[nan]", "t.json:1:2: expected a value, found 'n'");
    EXPECT_ERROR("[infinity]", "t.json:1:2: expected a value, found 'i'");
    EXPECT_ERROR("[tru]", "t.json:1:2: expected a value, found 't'");
    EXPECT_ERROR("[True]", "t.json:1:2: expected a value, found 'T'");
    EXPECT_ERROR("['a']", "t.json:1:2: expected a value, found \"'\"");
    EXPECT_ERROR("\"abc", "t.json:1:1: unterminated string starting here");
    EXPECT_ERROR("[\"a\tb\"]",
                 "t.json:1:4: invalid control character 0x09 in a string (it must be escaped)");
    EXPECT_ERROR("[\"a\nb\"]",
                 "t.json:1:4: invalid control character 0x0A in a string (it must be escaped)");
    EXPECT_ERROR("\"\\q\"",
                 "t.json:1:3: expected an escape (one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
                 "\\uXXXX), found 'q'");
    EXPECT_ERROR("\"\\u12\"", "t.json:1:2: expected four hex digits after \\u, found '\\'");
    EXPECT_ERROR("\"\\u12g4\"", "t.json:1:2: expected four hex digits after \\u, found '\\'");
    EXPECT_ERROR("\"\xc3\x28\"", "t.json:1:2: invalid UTF-8 in a string");
    EXPECT_ERROR("\"\xed\xa0\x80\"", "t.json:1:2: invalid UTF-8 in a string"); /* surrogate */
    EXPECT_ERROR("\"\xc0\xaf\"", "t.json:1:2: invalid UTF-8 in a string");     /* overlong */
    EXPECT_ERROR("\"\xf4\x90\x80\x80\"", "t.json:1:2: invalid UTF-8 in a string");
    EXPECT_ERROR("{\"a\":1}x", "t.json:1:8: expected end of input after the value, found 'x'");
    EXPECT_ERROR("1 2", "t.json:1:3: expected end of input after the value, found '2'");
    EXPECT_ERROR("[1}", "t.json:1:3: expected ',' or ']' after an array element, found '}'");
    EXPECT_ERROR("\xef\xbb\xbf{}",
                 "t.json:1:1: unexpected UTF-8 byte order mark (Python's json refuses it too)");
    EXPECT_ERROR("[\n1,\n\x01]", "t.json:3:1: expected a value, found byte 0x01");
    EXPECT_ERROR("{\"a\":\n", "t.json:2:1: expected a value, found end of input");
    expect_error("[1, \0]", 6, PC_ERR_FORMAT, "t.json:1:5: expected a value, found byte 0x00");
}

static void test_depth_limit(void **state)
{
    (void)state;
    size_t n = PC_JSON_MAX_DEPTH;
    char *text = malloc(2 * n + 3);
    memset(text, '[', n);
    memset(text + n, ']', n);
    text[2 * n] = '\0';
    pc_json_doc *doc = parse_ok(text);
    pc_json_free(doc);
    memset(text, '[', n + 1);
    memset(text + n + 1, ']', n + 1);
    text[2 * n + 2] = '\0';
    expect_error(text, 2 * n + 2, PC_ERR_FORMAT,
                 "t.json:1:1001: arrays and objects nested too deeply (more than 1000 levels)");
    free(text);
}

/* Every proper prefix of a valid document is an error, and nothing reads past the prefix
 * (the copy has no slack: ASan sees any overrun). */
static void test_truncations(void **state)
{
    (void)state;
    const char *text = "{\"a\": [1, -2.5e-3, \"x\\u00e9\\ud83d\\ude00y\", true, false, null, "
                       "NaN, -Infinity, {\"b\": {}}], \"c\": \"\xc3\xa9\"}";
    size_t n = strlen(text);
    for (size_t k = 0; k < n; k++) {
        char *copy = malloc(k ? k : 1);
        memcpy(copy, text, k);
        pc_json_doc *doc = NULL;
        pc_status st = pc_json_parse(&doc, copy, k, "t.json");
        if (st != PC_ERR_FORMAT)
            fail_msg("prefix %zu: status %d", k, st);
        assert_null(doc);
        assert_non_null(strstr(pc_error_message(), "t.json:1:"));
        free(copy);
    }
    pc_json_doc *doc = parse_ok(text);
    pc_json_free(doc);
}

/* Single-byte corruptions at every position: success or a clean PC_ERR_FORMAT. */
static void test_corruptions(void **state)
{
    (void)state;
    const char *text = "{\"a\": [1, 2.5, \"s\\n\", {\"k\": null}], \"b\": -Infinity}";
    size_t n = strlen(text);
    const char subst[] = {'"', '\\', '{', '}', '[', ']',  ',',        ':',        '0',  '-',
                          'e', '.',  ' ', 'N', 'I', '\n', (char)0x80, (char)0xff, '\0', 'u'};
    char *copy = malloc(n);
    size_t failures = 0;
    for (size_t pos = 0; pos < n; pos++)
        for (size_t s = 0; s < sizeof subst; s++) {
            memcpy(copy, text, n);
            copy[pos] = subst[s];
            pc_json_doc *doc = NULL;
            pc_status st = pc_json_parse(&doc, copy, n, "t.json");
            assert_true(st == PC_OK || st == PC_ERR_FORMAT);
            if (st == PC_OK) {
                assert_non_null(doc);
                pc_json_free(doc);
            } else {
                assert_null(doc);
                assert_true(strncmp(pc_error_message(), "t.json:", 7) == 0);
                failures++;
            }
        }
    free(copy);
    assert_true(failures > n); /* most corruptions are errors */
}

static void test_ranges(void **state)
{
    (void)state;
    const char *text = "{\"x\": 1,\n \"y\": [1, 2,\n 3}, \"z\": \"ok\" }";
    pc_json_doc *doc;
    assert_int_equal(pc_json_doc_new(&doc, "r.json"), PC_OK);
    const char *z = strstr(text, "\"ok\"");
    size_t zb = (size_t)(z - text);
    assert_int_equal(pc_json_parse_range(doc, text, strlen(text), zb, zb + 4), PC_OK);
    assert_string_equal(pc_json_string(doc, pc_json_root(doc), NULL), "ok");
    size_t line, col;
    pc_json_location(doc, pc_json_root(doc), &line, &col);
    assert_true(line == 3 && col == 11);
    /* the broken array: positions count from the start of the whole buffer */
    const char *y = strchr(text, '[');
    size_t yb = (size_t)(y - text), stop = 0;
    assert_int_equal(pc_json_parse_value_at(doc, text, strlen(text), yb, &stop), PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(),
                        "r.json:3:3: expected ',' or ']' after an array element, found '}'");
    assert_int_equal(pc_json_root(doc), PC_JSON_NONE);
    assert_int_equal(pc_json_parse_value_at(doc, text, strlen(text), 5, &stop), PC_OK);
    assert_int_equal(stop, 7);
    assert_int_equal(pc_json_parse_range(doc, text, strlen(text), 5, 9), PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(),
                        "r.json:1:8: expected end of input after the value, found ','");
    assert_int_equal(pc_json_parse_range(doc, text, 3, 0, 10), PC_ERR_INVALID);
    pc_json_free(doc);
}

static void test_scanner(void **state)
{
    (void)state;
    const char *text =
        " {\"a\\u0041\": [1, \"]\\\"\", {\"x\": \"}\"}], \"b\": null , \"c\": -1.5}  ";
    pc_json_scanner s;
    assert_int_equal(pc_json_scanner_init(&s, text, strlen(text), 0, "s.json"), PC_OK);
    const char *key;
    size_t klen, koff, vb, ve;
    bool done;
    assert_int_equal(pc_json_scanner_next(&s, &key, &klen, &koff, &vb, &ve, &done), PC_OK);
    assert_false(done);
    assert_string_equal(key, "aA");
    assert_int_equal(koff, 2);
    assert_memory_equal(text + vb, "[1, \"]\\\"\", {\"x\": \"}\"}]", ve - vb);
    assert_int_equal(pc_json_scanner_next_key(&s, &key, &klen, &koff, &vb, &done), PC_OK);
    assert_string_equal(key, "b");
    pc_json_doc *doc;
    assert_int_equal(pc_json_doc_new(&doc, "s.json"), PC_OK);
    assert_int_equal(pc_json_parse_value_at(doc, text, strlen(text), vb, &ve), PC_OK);
    assert_true(pc_json_is_null(doc, pc_json_root(doc)));
    pc_json_scanner_value_done(&s, ve);
    assert_int_equal(pc_json_scanner_next(&s, &key, &klen, &koff, &vb, &ve, &done), PC_OK);
    assert_string_equal(key, "c");
    assert_memory_equal(text + vb, "-1.5", ve - vb);
    assert_int_equal(pc_json_scanner_next(&s, &key, &klen, &koff, &vb, &ve, &done), PC_OK);
    assert_true(done);
    assert_int_equal(pc_json_expect_end(text, strlen(text), s.pos, "s.json"), PC_OK);
    pc_json_scanner_free(&s);
    pc_json_free(doc);

    static const struct {
        const char *text;
        const char *message;
    } bad[] = {
        {"[]", "s.json:1:1: expected '{', found '['"},
        {"{\"a\": 1,}",
         "s.json:1:9: expected an object key (a string in double quotes), found '}'"},
        {"{\"a\" 1}", "s.json:1:6: expected ':' after an object key, found '1'"},
        {"{\"a\": [1, {2]", "s.json:1:7: unterminated array starting here"},
        {"{\"a\": \"xy", "s.json:1:7: unterminated string starting here"},
        {"{\"a\": 1 \"b\": 2}",
         "s.json:1:9: expected ',' or '}' after an object member, found '\"'"},
        {"{\"a\": 1", "s.json:1:8: expected ',' or '}' after an object member, found end of input"},
        {"{\"a\":", "s.json:1:6: expected a value, found end of input"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pc_status st = pc_json_scanner_init(&s, bad[i].text, strlen(bad[i].text), 0, "s.json");
        while (st == PC_OK) {
            st = pc_json_scanner_next(&s, &key, &klen, &koff, &vb, &ve, &done);
            if (done)
                break;
        }
        pc_json_scanner_free(&s);
        if (st != PC_ERR_FORMAT)
            fail_msg("%s: status %d", bad[i].text, st);
        assert_string_equal(pc_error_message(), bad[i].message);
    }
    assert_int_equal(pc_json_expect_end("{} x", 4, 2, "s.json"), PC_ERR_FORMAT);
    assert_string_equal(pc_error_message(),
                        "s.json:1:4: expected end of input after the value, found 'x'");
}

static void test_files(void **state)
{
    (void)state;
    char dir[256], path[300];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/c.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"run_ut\": {\"white_list\": [\"conv2d\"]}}\n", f);
    fclose(f);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, path), PC_OK);
    pc_json_ref wl =
        pc_json_object_get(doc, pc_json_object_get(doc, pc_json_root(doc), "run_ut"), "white_list");
    assert_string_equal(pc_json_string(doc, pc_json_array_at(doc, wl, 0), NULL), "conv2d");
    assert_string_equal(pc_json_doc_name(doc), path);
    pc_json_free(doc);
    remove(path);
    doc = NULL;
    assert_int_equal(pc_json_parse_file(&doc, path), PC_ERR_NOT_FOUND);
    assert_null(doc);
    char expected[400];
    snprintf(expected, sizeof expected, "%s: No such file or directory", path);
    assert_string_equal(pc_error_message(), expected);
    assert_int_equal(pc_json_parse_file(&doc, dir), PC_ERR_IO);
    snprintf(expected, sizeof expected, "%s: not a regular file", dir);
    assert_string_equal(pc_error_message(), expected);
    remove(dir);
}

static void test_truthy(void **state)
{
    (void)state;
    const char *text = "[null, false, true, 0, 0.0, -0.0, 1, NaN, 99999999999999999999, \"\", "
                       "\"a\", [], [0], {}, {\"k\": 0}]";
    const bool want[] = {false, false, true, false, false, false, true, true,
                         true,  false, true, false, true,  false, true};
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_parse(&doc, text, strlen(text), "t.json"), PC_OK);
    pc_json_ref root = pc_json_root(doc);
    assert_int_equal(pc_json_count(doc, root), sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(pc_json_truthy(doc, pc_json_array_at(doc, root, i)), want[i]);
    pc_json_free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),         cmocka_unit_test(test_big_integers),
        cmocka_unit_test(test_float_exactness), cmocka_unit_test(test_strings),
        cmocka_unit_test(test_navigation),      cmocka_unit_test(test_getters_name_the_place),
        cmocka_unit_test(test_malformed),       cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_truncations),     cmocka_unit_test(test_corruptions),
        cmocka_unit_test(test_ranges),          cmocka_unit_test(test_scanner),
        cmocka_unit_test(test_files),           cmocka_unit_test(test_truthy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
