#include "pc_test.h"

#include "io/path_check_impl.h"
#include "precheck/core/log.h"
#include "precheck/dump/filter.h"
#include "precheck/io/config.h"
#include "precheck/io/path_check.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *realpath(const char *path, char *resolved); /* POSIX; hidden by strict C11 headers */

#ifndef PC_TEST_FIXTURES
#define PC_TEST_FIXTURES "tests/fixtures"
#endif
#define DEFAULT_CONFIG PC_TEST_FIXTURES "/../../config/config.yaml"

/* ---------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------- */

/* A small stand-in for pc_api_is_wrappable, so that most tests do not depend on its table. */
static bool test_api(const char *name)
{
    static const char *const names[] = {"conv2d", "matmul", "__add__", "relu", "linalg.norm"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

typedef struct fixture {
    char root[PATH_MAX];
    FILE *log;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    char tmp[PATH_MAX];
    assert_non_null(pc_test_tmpdir(tmp, sizeof tmp));
    assert_non_null(realpath(tmp, f->root));
    f->log = tmpfile();
    assert_non_null(f->log);
    pc_log_set_level(PC_LOG_INFO);
    pc_log_set_stream(f->log);
    pc_path_testing_forget_warnings();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pc_log_set_stream(NULL);
    fclose(f->log);
    char cmd[2 * PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static char *take_log(fixture *f)
{
    fflush(f->log);
    long size = ftell(f->log);
    assert_true(size >= 0);
    char *text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    rewind(f->log);
    size_t got = fread(text, 1, (size_t)size, f->log);
    assert_int_equal(got, (size_t)size);
    assert_int_equal(ftruncate(fileno(f->log), 0), 0);
    rewind(f->log);
    return text;
}

static void write_text(const char *path, const char *text)
{
    pc_test_write_file(path, text);
    assert_int_equal(chmod(path, 0640), 0);
}

static pc_status parse_yaml(pc_config *c, const char *text)
{
    return pc_config_parse_yaml(c, text, strlen(text), "cfg.yaml", test_api);
}

static pc_status parse_json(pc_config *c, const char *text)
{
    return pc_config_parse_json(c, text, strlen(text), "cfg.json", test_api);
}

static void yaml_fails(const char *text, pc_status status, const char *message)
{
    pc_config c = {0};
    pc_error_clear();
    pc_status s = parse_yaml(&c, text);
    if (s != status || strcmp(pc_error_message(), message) != 0)
        fail_msg("yaml:\n%s\n  got      %d \"%s\"\n  expected %d \"%s\"", text, s,
                 pc_error_message(), status, message);
    assert_null(c.error_data_path);
    assert_int_equal(c.white_list.count, 0);
}

static void json_fails(const char *text, pc_status status, const char *message)
{
    pc_config c = {0};
    pc_error_clear();
    pc_status s = parse_json(&c, text);
    if (s != status || strcmp(pc_error_message(), message) != 0)
        fail_msg("json:\n%s\n  got      %d \"%s\"\n  expected %d \"%s\"", text, s,
                 pc_error_message(), status, message);
    assert_null(c.error_data_path);
}

/* The four keys with these values; NULL means the default of each. */
static const char *four_keys(char *buf, size_t size, const char *white, const char *black,
                             const char *path, const char *precision)
{
    snprintf(buf, size, "white_list: %s\nblack_list: %s\nerror_data_path: %s\nprecision: %s\n",
             white ? white : "[]", black ? black : "[]", path ? path : "./",
             precision ? precision : "14");
    return buf;
}

static void assert_list(const pc_string_list *list, const char *const *expected, size_t count)
{
    assert_int_equal(list->count, count);
    for (size_t i = 0; i < count; i++)
        assert_string_equal(list->items[i], expected[i]);
}

#define KEYS "dict_keys(['white_list', 'black_list', 'error_data_path', 'precision'])"

/* ---------------------------------------------------------------------------------------------
 * config.yaml: good files
 * ------------------------------------------------------------------------------------------- */

static void test_default_file(void **state)
{
    fixture *f = *state;
    size_t size;
    char *text = pc_test_slurp(DEFAULT_CONFIG, &size);
    assert_string_equal(text,
                        "white_list: []\nblack_list: []\nerror_data_path: './'\nprecision: 14\n");
    pc_config c = {0};
    assert_int_equal(pc_config_parse_yaml(&c, text, size, "config.yaml", pc_api_is_wrappable),
                     PC_OK);
    assert_int_equal(c.white_list.count, 0);
    assert_int_equal(c.black_list.count, 0);
    assert_string_equal(c.error_data_path, PC_CONFIG_DEFAULT_ERROR_DATA_PATH);
    assert_int_equal(c.precision, PC_CONFIG_DEFAULT_PRECISION);
    pc_config_free(&c);

    /* Loaded from a file, through the path checks (a copy, so that the checkout's own path
     * need not pass them). */
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/config.yaml", f->root);
    write_text(path, text);
    assert_int_equal(pc_config_load_yaml(&c, path, pc_api_is_wrappable), PC_OK);
    assert_int_equal(c.precision, 14);
    assert_string_equal(c.error_data_path, "./");
    pc_config_free(&c);
    free(text);
}

static void test_good_yaml(void **state)
{
    fixture *f = *state;
    char text[2 * PATH_MAX], path[PATH_MAX + 16];
    snprintf(path, sizeof path, "'%s'", f->root);
    pc_config c = {0};
    assert_int_equal(parse_yaml(&c, four_keys(text, sizeof text, "[conv2d, matmul]",
                                              "\n  - __add__\n  - linalg.norm", path, "0")),
                     PC_OK);
    static const char *const white[] = {"conv2d", "matmul"};
    static const char *const black[] = {"__add__", "linalg.norm"};
    assert_list(&c.white_list, white, 2);
    assert_list(&c.black_list, black, 2);
    assert_string_equal(c.error_data_path, f->root);
    assert_int_equal(c.precision, 0);

    /* Keys in any order; a new successful parse replaces the old contents. */
    assert_int_equal(
        parse_yaml(&c, "precision: 20\nerror_data_path: .\nblack_list: []\nwhite_list: [relu]\n"),
        PC_OK);
    static const char *const relu[] = {"relu"};
    assert_list(&c.white_list, relu, 1);
    assert_int_equal(c.black_list.count, 0);
    assert_string_equal(c.error_data_path, ".");
    assert_int_equal(c.precision, 20);

    /* The real list of wrappable names. */
    four_keys(text, sizeof text, "[conv2d, __add__, npu_fusion_attention]", "[linalg.norm]", NULL,
              NULL);
    assert_int_equal(pc_config_parse_yaml(&c, text, strlen(text), "cfg.yaml", pc_api_is_wrappable),
                     PC_OK);
    assert_int_equal(c.white_list.count, 3);
    pc_config_free(&c);
    assert_null(c.white_list.items);
    assert_null(c.error_data_path);
    pc_config_free(&c); /* twice is fine */
    pc_config_free(NULL);
}

static void test_yaml_scalar_typing(void **state)
{
    /* precision is read the way PyYAML types YAML 1.1 scalars. */
    static const struct {
        const char *value;
        int precision;
    } ints[] = {
        {"14", 14},         {"+14", 14},        {"014", 12},  {"0o14", -1}, {"0x0e", 14},
        {"0b1110", 14},     {"1_4", 14},        {"0:14", -1}, {"0x_e", 14}, {"!!int '14'", 14},
        {"! 14", 14},       {"!!int 0o16", 14}, {"0", 0},     {"-0", 0},    {"0_", 0},
        {"!!int ' 7 '", 7}, {"! '14'", 14},
    };
    char text[512];
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        pc_config c = {0};
        pc_status s = parse_yaml(&c, four_keys(text, sizeof text, NULL, NULL, NULL, ints[i].value));
        if (ints[i].precision < 0) {
            assert_int_equal(s, PC_ERR_INVALID);
            assert_string_equal(pc_error_message(), "precision must be int type");
        } else {
            if (s != PC_OK)
                fail_msg("precision: %s: %s", ints[i].value, pc_error_message());
            assert_int_equal(c.precision, ints[i].precision);
        }
        pc_config_free(&c);
    }
    /* Not ints: strings, floats, nulls, timestamps, lists. */
    static const char *const not_int[] = {
        "'14'",       "\"14\"",
        "!!str 14",   "14.0",
        "1e2",        "1.0e+2",
        ".inf",       "-.Inf",
        ".NaN",       "~",
        "null",       "",
        "1.",         "1:30.5",
        "2001-12-14", "[14]",
        "{a: 1}",     "0o14",
        "x14",        "1 4",
        "!!float 14", "!!binary aGVsbG8=",
    };
    for (size_t i = 0; i < sizeof not_int / sizeof not_int[0]; i++) {
        pc_config c = {0};
        pc_status s = parse_yaml(&c, four_keys(text, sizeof text, NULL, NULL, NULL, not_int[i]));
        if (s != PC_ERR_INVALID || strcmp(pc_error_message(), "precision must be int type") != 0)
            fail_msg("precision: %s: %d %s", not_int[i], s, pc_error_message());
    }
    /* Bools are Python ints, refused on their own. */
    static const char *const bools[] = {"true", "True", "FALSE", "yes",
                                        "No",   "on",   "OFF",   "!!bool yes"};
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
        yaml_fails(four_keys(text, sizeof text, NULL, NULL, NULL, bools[i]), PC_ERR_INVALID,
                   "precision must be an integer");
    /* Range 0..20. */
    static const char *const out_of_range[] = {
        "-1", "21", "1:0", "0x15", "99999999999999999999999", "-99999999999999999999", "025"};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++)
        yaml_fails(four_keys(text, sizeof text, NULL, NULL, NULL, out_of_range[i]), PC_ERR_INVALID,
                   "precision must be greater than or equal to 0 and less than 21");
    /* "y" and "n" are strings in PyYAML (its bool resolver has no single letters). */
    yaml_fails(four_keys(text, sizeof text, NULL, NULL, "y", NULL), PC_ERR_INVALID,
               "error_data_path: y does not exist");
}

/* ---------------------------------------------------------------------------------------------
 * config.yaml: every validation and message
 * ------------------------------------------------------------------------------------------- */

static void test_yaml_unknown_keys(void **state)
{
    char text[512];
    yaml_fails("white_list: []\nother: 1\n", PC_ERR_INVALID, "other must be one of " KEYS);
    /* Keys print as Python's str() of what PyYAML made of them. */
    static const struct {
        const char *key, *shown;
    } keys[] = {
        {"1", "1"},
        {"0x10", "16"},
        {"true", "True"},
        {"~", "None"},
        {"1.5", "1.5"},
        {"1.0e+20", "1e+20"},
        {"-.inf", "-inf"},
        {"'14'", "14"},
        {"White_list", "White_list"},
        {"\"a b\"", "a b"},
        {"is_online", "is_online"},
        {"0.0001", "0.0001"},
        {"0.00001", "1e-05"},
        {"1.0e+16", "1e+16"},
        {"1.0e+15", "1000000000000000.0"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        snprintf(text, sizeof text, "%s: 1\n", keys[i].key);
        char expected[256];
        snprintf(expected, sizeof expected, "%s must be one of " KEYS, keys[i].shown);
        yaml_fails(text, PC_ERR_INVALID, expected);
    }
}

static void test_yaml_type_errors(void **state)
{
    char text[512];
    static const char *const not_lists[] = {"conv2d",         "~",   "''", "14", "{}",
                                            "!!set {conv2d}", "true"};
    for (size_t i = 0; i < sizeof not_lists / sizeof not_lists[0]; i++) {
        yaml_fails(four_keys(text, sizeof text, not_lists[i], NULL, NULL, NULL), PC_ERR_INVALID,
                   "white_list must be list type");
        yaml_fails(four_keys(text, sizeof text, NULL, not_lists[i], NULL, NULL), PC_ERR_INVALID,
                   "black_list must be list type");
    }
    static const char *const not_str[] = {"~", "14", "[./]", "true", "2001-12-14", "1.5"};
    for (size_t i = 0; i < sizeof not_str / sizeof not_str[0]; i++)
        yaml_fails(four_keys(text, sizeof text, NULL, NULL, not_str[i], NULL), PC_ERR_INVALID,
                   "error_data_path must be str type");
    /* !!omap and !!pairs are lists (of tuples): an empty one passes. */
    pc_config c = {0};
    assert_int_equal(parse_yaml(&c, four_keys(text, sizeof text, "!!omap []", NULL, NULL, NULL)),
                     PC_OK);
    pc_config_free(&c);
}

static void test_yaml_list_items(void **state)
{
    char text[512];
    static const char *const mixed[] = {"[conv2d, 1]",    "[~]",   "[[conv2d]]",
                                        "[{a: b}]",       "[yes]", "[2001-12-14]",
                                        "!!pairs [a: 1]", "[1.5]", "[conv2d, !!binary aGk=]"};
    for (size_t i = 0; i < sizeof mixed / sizeof mixed[0]; i++) {
        yaml_fails(four_keys(text, sizeof text, mixed[i], NULL, NULL, NULL), PC_ERR_INVALID,
                   "All elements in white_list must be string type");
        yaml_fails(four_keys(text, sizeof text, NULL, mixed[i], NULL, NULL), PC_ERR_INVALID,
                   "All elements in black_list must be string type");
    }
    /* Strings that are not wrappable names, listed as Python prints a list of str. */
    yaml_fails(four_keys(text, sizeof text, "[conv2d, bogus, relu, aten.add]", NULL, NULL, NULL),
               PC_ERR_INVALID, "Invalid api in white_list: ['bogus', 'aten.add']");
    yaml_fails(four_keys(text, sizeof text, NULL, "['1', \"it's\", 'a\"b', \"x\\ty\", 'b\\c']",
                         NULL, NULL),
               PC_ERR_INVALID,
               "Invalid api in black_list: ['1', \"it's\", 'a\"b', 'x\\ty', 'b\\\\c']");
    yaml_fails(four_keys(text, sizeof text, "[\"'\\\"\"]", NULL, NULL, NULL), PC_ERR_INVALID,
               "Invalid api in white_list: ['\\'\"']");
    yaml_fails(
        four_keys(text, sizeof text, "[\"caf\\u00e9\", \"\\x01\", \"\\u0085\"]", NULL, NULL, NULL),
        PC_ERR_INVALID, "Invalid api in white_list: ['caf\xc3\xa9', '\\x01', '\\x85']");
    /* A name holding U+0000 is never an API name. */
    yaml_fails(four_keys(text, sizeof text, "[\"conv2d\\0\"]", NULL, NULL, NULL), PC_ERR_INVALID,
               "Invalid api in white_list: ['conv2d\\x00']");
    /* The non-string check covers the whole list before any name is checked. */
    yaml_fails(four_keys(text, sizeof text, "[bogus, 1]", NULL, NULL, NULL), PC_ERR_INVALID,
               "All elements in white_list must be string type");
    /* The real look-up refuses aten and distributed names. */
    pc_config c = {0};
    const char *t = four_keys(text, sizeof text, "[conv2d, add, all_reduce]", NULL, NULL, NULL);
    assert_int_equal(pc_config_parse_yaml(&c, t, strlen(t), "cfg.yaml", pc_api_is_wrappable),
                     PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "Invalid api in white_list: ['all_reduce']");
}

static void test_yaml_error_data_path(void **state)
{
    fixture *f = *state;
    char text[PATH_MAX + 256], value[PATH_MAX + 32];
    snprintf(value, sizeof value, "'%s/missing'", f->root);
    char expected[PATH_MAX + 64];
    snprintf(expected, sizeof expected, "error_data_path: %s/missing does not exist", f->root);
    yaml_fails(four_keys(text, sizeof text, NULL, NULL, value, NULL), PC_ERR_INVALID, expected);
    yaml_fails(four_keys(text, sizeof text, NULL, NULL, "''", NULL), PC_ERR_INVALID,
               "error_data_path:  does not exist");
    /* Relative to the current directory; a file is fine too (only existence is checked). */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->root), 0);
    assert_int_equal(mkdir("errors", 0750), 0);
    write_text("file.txt", "");
    pc_config c = {0};
    assert_int_equal(parse_yaml(&c, four_keys(text, sizeof text, NULL, NULL, "errors/", NULL)),
                     PC_OK);
    assert_string_equal(c.error_data_path, "errors/");
    assert_int_equal(parse_yaml(&c, four_keys(text, sizeof text, NULL, NULL, "file.txt", NULL)),
                     PC_OK);
    assert_int_equal(chdir(cwd), 0);
    pc_config_free(&c);
}

static void test_yaml_missing_keys_and_shape(void **state)
{
    yaml_fails("white_list: []\nblack_list: []\nprecision: 3\n", PC_ERR_INVALID,
               "error_data_path is missing in cfg.yaml: it must have white_list, black_list, "
               "error_data_path and precision");
    yaml_fails("precision: 3\n", PC_ERR_INVALID,
               "white_list is missing in cfg.yaml: it must have white_list, black_list, "
               "error_data_path and precision");
    /* Validation of what is there comes first. */
    yaml_fails("precision: 30\n", PC_ERR_INVALID,
               "precision must be greater than or equal to 0 and less than 21");
    /* Not a mapping at all. */
    static const struct {
        const char *text, *what;
    } shapes[] = {
        {"", "nothing"},    {"# only a comment\n", "nothing"}, {"---\n", "nothing"},
        {"~\n", "nothing"}, {"- white_list\n", "a list"},      {"white_list\n", "a string"},
        {"14\n", "an int"}, {"!!set {a}\n", "a set"},          {"1.5\n", "a float"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char expected[256];
        snprintf(expected, sizeof expected,
                 "The config file cfg.yaml must hold a mapping, found %s.", shapes[i].what);
        yaml_fails(shapes[i].text, PC_ERR_INVALID, expected);
    }
}

static void test_yaml_key_order_and_duplicates(void **state)
{
    /* Keys are checked in the order they first appear: the first bad one is reported. */
    yaml_fails("precision: x\nwhite_list: 1\n", PC_ERR_INVALID, "precision must be int type");
    yaml_fails("white_list: 1\nprecision: x\n", PC_ERR_INVALID, "white_list must be list type");
    yaml_fails("bad: 1\nprecision: x\n", PC_ERR_INVALID, "bad must be one of " KEYS);
    /* A repeated key keeps its first place and its last value, as a Python dict does. */
    yaml_fails("precision: 3\nwhite_list: 1\nprecision: x\n", PC_ERR_INVALID,
               "precision must be int type");
    pc_config c = {0};
    assert_int_equal(parse_yaml(&c, "precision: x\nwhite_list: []\nblack_list: []\n"
                                    "error_data_path: ./\nprecision: 5\n"),
                     PC_OK);
    assert_int_equal(c.precision, 5);
    pc_config_free(&c);
}

/* ---------------------------------------------------------------------------------------------
 * config.yaml: malformed and unusual YAML
 * ------------------------------------------------------------------------------------------- */

static void test_yaml_malformed(void **state)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"white_list: [conv2d, relu\nprecision: 14\n",
         "Load yaml file cfg.yaml failed: cfg.yaml:2:10: did not find expected ',' or ']' (while "
         "parsing a flow sequence at line 1, column 13)"},
        {"white_list: []\n  black_list: []\n",
         "Load yaml file cfg.yaml failed: cfg.yaml:2:3: did not find expected key (while parsing "
         "a block mapping at line 1, column 1)"},
        {"a: \"unterminated\n",
         "Load yaml file cfg.yaml failed: cfg.yaml:2:1: found unexpected end of stream (while "
         "scanning a quoted scalar at line 1, column 4)"},
        {"white_list: [\x01]\n",
         "Load yaml file cfg.yaml failed: cfg.yaml:1:14: control characters are not allowed "
         "(#x1)"},
        {"white_list: [\xff]\n",
         "Load yaml file cfg.yaml failed: cfg.yaml:1:14: invalid leading UTF-8 octet (#xff)"},
        {"\t- a\n", "Load yaml file cfg.yaml failed: cfg.yaml:1:1: found character that cannot "
                    "start any token (while scanning for the next token at line 1, column 1)"},
        {"- a\nb: 1\n", "Load yaml file cfg.yaml failed: cfg.yaml:2:1: did not find expected '-' "
                        "indicator (while parsing a block collection at line 1, column 1)"},
        {"a: 1\n---\nb: 2\n", "Load yaml file cfg.yaml failed: cfg.yaml:2:1: expected a single "
                              "document in the stream, but found another document"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        yaml_fails(cases[i].text, PC_ERR_FORMAT, cases[i].message);
    /* Bytes are counted, not NUL-terminated: a NUL inside is an error, not an end. */
    pc_config c = {0};
    static const char with_nul[] = "precision: 14\0\nwhite_list: []\n";
    assert_int_equal(pc_config_parse_yaml(&c, with_nul, sizeof with_nul - 1, "cfg.yaml", test_api),
                     PC_ERR_FORMAT);
    assert_int_equal(pc_config_parse_yaml(&c, NULL, 0, "cfg.yaml", test_api), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(),
                        "The config file cfg.yaml must hold a mapping, found nothing.");
    assert_int_equal(pc_config_parse_yaml(&c, "a", 1, "cfg.yaml", NULL), PC_ERR_INVALID);
    assert_int_equal(pc_config_parse_yaml(NULL, "a", 1, "cfg.yaml", test_api), PC_ERR_INVALID);
}

static void test_yaml_what_pyyaml_refuses(void **state)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"precision: !foo 3\n", "cfg.yaml:1:12: could not determine a constructor for the tag "
                                "'!foo'"},
        {"precision: !!python/int 3\n", "cfg.yaml:1:12: could not determine a constructor for "
                                        "the tag 'tag:yaml.org,2002:python/int'"},
        {"white_list: *nope\n", "cfg.yaml:1:13: found undefined alias 'nope'"},
        {"a: &x 1\nb: &x 2\n", "cfg.yaml:2:4: found duplicate anchor 'x'"},
        {"precision: !!int 1.5\n", "cfg.yaml:1:12: invalid literal for int(): '1.5'"},
        {"precision: 0b_\n", "cfg.yaml:1:12: invalid literal for int(): '0b_'"},
        {"precision: !!float abc\n", "cfg.yaml:1:12: could not convert string to float: 'abc'"},
        {"precision: !!bool maybe\n", "cfg.yaml:1:12: invalid boolean 'maybe'"},
        {"precision: 2001-13-14\n", "cfg.yaml:1:12: invalid timestamp '2001-13-14'"},
        {"precision: !!timestamp nope\n", "cfg.yaml:1:12: invalid timestamp 'nope'"},
        {"precision: !!seq x\n", "cfg.yaml:1:12: expected a sequence node, but found scalar"},
        {"precision: !!map [a]\n", "cfg.yaml:1:12: expected a mapping node, but found sequence"},
        {"precision: !!str [a]\n", "cfg.yaml:1:12: expected a scalar node, but found sequence"},
        {"precision: !!omap [a, b]\n", "cfg.yaml:1:20: while constructing an ordered map, "
                                       "expected a mapping of length 1"},
        {"? [a]\n: 1\n", "cfg.yaml:1:3: while constructing a mapping, found unhashable key"},
        {"white_list: [=]\n", "cfg.yaml:1:14: could not determine a constructor for the tag "
                              "'tag:yaml.org,2002:value'"},
        {"precision: <<\n", "cfg.yaml:1:12: could not determine a constructor for the tag "
                            "'tag:yaml.org,2002:merge'"},
        {"<<: 3\n", "cfg.yaml:1:5: while constructing a mapping, expected a mapping or list of "
                    "mappings for merging, but found scalar"},
        {"<<: [[a]]\n", "cfg.yaml:1:6: while constructing a mapping, expected a mapping for "
                        "merging, but found sequence"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char expected[512];
        snprintf(expected, sizeof expected, "Load yaml file cfg.yaml failed: %s", cases[i].message);
        yaml_fails(cases[i].text, PC_ERR_FORMAT, expected);
    }
}

static void test_yaml_anchors_aliases_tags(void **state)
{
    pc_config c = {0};
    /* An anchored list used twice; an alias as a key. */
    assert_int_equal(parse_yaml(&c, "white_list: &w [conv2d, relu]\nblack_list: *w\n"
                                    "error_data_path: &p ./\n"
                                    "&k precision: 3\n"),
                     PC_OK);
    assert_int_equal(c.white_list.count, 2);
    assert_int_equal(c.black_list.count, 2);
    assert_string_equal(c.black_list.items[1], "relu");
    assert_int_equal(c.precision, 3);
    /* Merge keys: merged pairs first, the mapping's own pairs after them. */
    assert_int_equal(parse_yaml(&c, "<<: {white_list: [relu], precision: 2}\n"
                                    "<<: [{black_list: [matmul]}, {black_list: [conv2d]}]\n"
                                    "error_data_path: ./\nprecision: 4\n"),
                     PC_OK);
    assert_string_equal(c.white_list.items[0], "relu");
    assert_string_equal(c.black_list.items[0], "matmul");
    assert_int_equal(c.precision, 4);
    yaml_fails("<<: {bogus: 1}\nwhite_list: []\n", PC_ERR_INVALID, "bogus must be one of " KEYS);
    /* "=" as a key is the string "=". */
    yaml_fails("=: 1\n", PC_ERR_INVALID, "= must be one of " KEYS);
    /* A list that holds itself, and a billion laughs: typed without being expanded. */
    yaml_fails("white_list: &a [conv2d, *a]\n", PC_ERR_INVALID,
               "All elements in white_list must be string type");
    yaml_fails("a: &a [x, x, x, x, x, x, x, x, x]\n"
               "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
               "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
               "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
               "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
               "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
               "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
               "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
               "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n",
               PC_ERR_INVALID, "a must be one of " KEYS);
    yaml_fails("white_list: [*i]\n", PC_ERR_FORMAT,
               "Load yaml file cfg.yaml failed: cfg.yaml:1:14: found undefined alias 'i'");
    /* Explicit standard tags, and the non-specific "!". */
    assert_int_equal(parse_yaml(&c, "!!str white_list: !!seq [!!str conv2d]\n"
                                    "black_list: ! []\nerror_data_path: !!str .\n"
                                    "precision: !!int \"7\"\n"),
                     PC_OK);
    assert_int_equal(c.precision, 7);
    assert_string_equal(c.white_list.items[0], "conv2d");
    yaml_fails("white_list: [!!int 1]\n", PC_ERR_INVALID,
               "All elements in white_list must be string type");
    /* %TAG directives are honoured. */
    assert_int_equal(parse_yaml(&c, "%TAG !y! tag:yaml.org,2002:\n---\n"
                                    "white_list: []\nblack_list: []\nerror_data_path: ./\n"
                                    "precision: !y!int 9\n"),
                     PC_OK);
    assert_int_equal(c.precision, 9);
    pc_config_free(&c);
}

static void test_yaml_limits(void **state)
{
    /* Nesting: the top-level mapping and PC_CONFIG_YAML_MAX_DEPTH lists are one level too
     * many. */
    size_t depth = PC_CONFIG_YAML_MAX_DEPTH;
    char *deep = malloc(2 * depth + 16);
    assert_non_null(deep);
    size_t n = (size_t)sprintf(deep, "a: ");
    for (size_t i = 0; i < depth; i++)
        deep[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    pc_config c = {0};
    assert_int_equal(parse_yaml(&c, deep), PC_ERR_FORMAT);
    char expected[256];
    snprintf(expected, sizeof expected,
             "Load yaml file cfg.yaml failed: cfg.yaml:1:%zu: nesting deeper than %d", 3 + depth,
             PC_CONFIG_YAML_MAX_DEPTH);
    assert_string_equal(pc_error_message(), expected);
    /* One level less is fine (and then the key is wrong). */
    memmove(deep + 3, deep + 4, strlen(deep + 4) + 1);
    deep[strlen(deep) - 1] = '\0';
    assert_int_equal(parse_yaml(&c, deep), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "a must be one of " KEYS);
    free(deep);

    /* Node count: one node more than the limit, then exactly the limit. */
    size_t items = PC_CONFIG_YAML_MAX_NODES - 2; /* and the mapping, its key, the list */
    char *big = malloc(3 * items + 32);
    assert_non_null(big);
    n = (size_t)sprintf(big, "white_list: [");
    for (size_t i = 0; i < items; i++) {
        big[n++] = 'x';
        big[n++] = i + 1 < items ? ',' : ']';
    }
    big[n] = '\0';
    assert_int_equal(parse_yaml(&c, big), PC_ERR_FORMAT);
    snprintf(expected, sizeof expected, "more than %d nodes", PC_CONFIG_YAML_MAX_NODES);
    assert_non_null(strstr(pc_error_message(), expected));
    /* With one item less it parses, and the message about the bad names stays short. */
    big[n - 2] = ']';
    big[n - 1] = '\0';
    assert_int_equal(parse_yaml(&c, big), PC_ERR_INVALID);
    assert_memory_equal(pc_error_message(), "Invalid api in white_list: ['x', 'x', ",
                        strlen("Invalid api in white_list: ['x', 'x', "));
    assert_true(strlen(pc_error_message()) < PC_ERROR_MESSAGE_MAX);
    free(big);
}

static void test_yaml_files(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX + 32], expected[3 * PATH_MAX];
    pc_config c = {0};
    /* The path checks come first: missing, wrong suffix, too big (sparse, so no disk used). */
    snprintf(path, sizeof path, "%s/missing.yaml", f->root);
    assert_int_equal(pc_config_load_yaml(&c, path, test_api), PC_ERR_NOT_FOUND);
    snprintf(expected, sizeof expected, "The file path %s does not exist.", path);
    assert_string_equal(pc_error_message(), expected);

    snprintf(path, sizeof path, "%s/config.yml", f->root);
    write_text(path, "precision: 1\n");
    assert_int_equal(pc_config_load_yaml(&c, path, test_api), PC_ERR_INVALID);
    snprintf(expected, sizeof expected, "The %s should be a .yaml file!", path);
    assert_string_equal(pc_error_message(), expected);

    snprintf(path, sizeof path, "%s/huge.yaml", f->root);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0640);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)1 << 30), 0);
    close(fd);
    assert_int_equal(pc_config_load_yaml(&c, path, test_api), PC_ERR_RANGE);
    snprintf(expected, sizeof expected,
             "The size (1073741824) of %s exceeds (1073741824) bytes, tools not support.", path);
    assert_string_equal(pc_error_message(), expected);

    /* Messages about the content name the resolved path. */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->root), 0);
    write_text("bad.yaml", "white_list: [\n");
    assert_int_equal(pc_config_load_yaml(&c, "./bad.yaml", test_api), PC_ERR_FORMAT);
    assert_int_equal(chdir(cwd), 0);
    snprintf(expected, sizeof expected,
             "Load yaml file %s/bad.yaml failed: %s/bad.yaml:2:1: did not find expected node "
             "content (while parsing a flow node at line 2, column 1)",
             f->root, f->root);
    assert_string_equal(pc_error_message(), expected);
}

/* ---------------------------------------------------------------------------------------------
 * config.json
 * ------------------------------------------------------------------------------------------- */

static void test_json_good(void **state)
{
    fixture *f = *state;
    pc_config c = {0};
    c.precision = 9;
    char text[PATH_MAX + 512];
    snprintf(text, sizeof text,
             "{\"task\": \"run_ut\", \"dump_path\": \"/x\", \"rank\": [0, \"2-4\", 1000000], "
             "\"step\": [], \"level\": \"L1\", \"enable_dataloader\": false, "
             "\"async_dump\": false, \"precision\": \"high\", \"is_deterministic\": NaN,\n"
             " \"run_ut\": {\"white_list\": [\"conv2d\"], \"black_list\": [\"relu\", "
             "\"matmul\"], \"error_data_path\": \"%s\"}}",
             f->root);
    assert_int_equal(parse_json(&c, text), PC_OK);
    static const char *const white[] = {"conv2d"};
    static const char *const black[] = {"relu", "matmul"};
    assert_list(&c.white_list, white, 1);
    assert_list(&c.black_list, black, 2);
    assert_string_equal(c.error_data_path, f->root);
    assert_int_equal(c.precision, 9); /* config.json never sets it */

    /* Defaults: no run_ut section, or an empty one. */
    assert_int_equal(parse_json(&c, "{}"), PC_OK);
    assert_int_equal(c.white_list.count, 0);
    assert_int_equal(c.black_list.count, 0);
    assert_string_equal(c.error_data_path, "./");
    assert_int_equal(parse_json(&c, "{\"task\": \"tensor\", \"run_ut\": {}}"), PC_OK);
    assert_string_equal(c.error_data_path, "./");
    /* Falsy task and level are not checked (Python's `if self.task and ...`). */
    assert_int_equal(parse_json(&c, "{\"task\": \"\", \"level\": 0, \"rank\": null, "
                                    "\"step\": null, \"dump_path\": null}"),
                     PC_OK);
    /* The last of repeated keys wins. */
    assert_int_equal(parse_json(&c, "{\"run_ut\": {\"white_list\": 1}, "
                                    "\"run_ut\": {\"white_list\": [\"relu\"]}}"),
                     PC_OK);
    assert_string_equal(c.white_list.items[0], "relu");
    pc_config_free(&c);
}

static void test_json_common_config(void **state)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"{\"task\": \"dump\"}", "task is invalid, it should be one of ['tensor', 'statistics', "
                                 "'overflow_check', 'free_benchmark', 'run_ut', 'grad_probe', "
                                 "'structure', 'exception_dump']"},
        {"{\"task\": true}", "task is invalid, it should be one of ['tensor', 'statistics', "
                             "'overflow_check', 'free_benchmark', 'run_ut', 'grad_probe', "
                             "'structure', 'exception_dump']"},
        {"{\"level\": \"L3\"}",
         "level is invalid, it should be one of ['L0', 'L1', 'L2', 'mix', 'debug']"},
        {"{\"level\": [\"L1\"]}",
         "level is invalid, it should be one of ['L0', 'L1', 'L2', 'mix', 'debug']"},
        {"{\"dump_path\": 1}", "dump_path is invalid, it should be a string"},
        {"{\"enable_dataloader\": 0}", "enable_dataloader is invalid, it should be a boolean"},
        {"{\"enable_dataloader\": null}", "enable_dataloader is invalid, it should be a boolean"},
        {"{\"async_dump\": \"true\"}", "async_dump is invalid, it should be a boolean"},
        {"{\"precision\": \"medium\"}",
         "precision is invalid, it should be one of ['low', 'high']"},
        {"{\"precision\": 14}", "precision is invalid, it should be one of ['low', 'high']"},
        {"{\"precision\": null}", "precision is invalid, it should be one of ['low', 'high']"},
        /* rank and step */
        {"{\"rank\": 0}", "rank is invalid, it should be a list"},
        {"{\"step\": \"0-3\"}", "step is invalid, it should be a list"},
        {"{\"rank\": [1.0]}", "rank element 1.0 must be an integer or string."},
        {"{\"rank\": [true]}", "rank element True must be an integer or string."},
        {"{\"rank\": [null]}", "rank element None must be an integer or string."},
        {"{\"step\": [1e16]}", "step element 1e+16 must be an integer or string."},
        {"{\"step\": [NaN]}", "step element nan must be an integer or string."},
        {"{\"step\": [-Infinity]}", "step element -inf must be an integer or string."},
        {"{\"step\": [[1, \"a\", {\"k\": [null, false]}]]}",
         "step element [1, 'a', {'k': [None, False]}] must be an integer or string."},
        {"{\"step\": [{\"a\": 1, \"b\": 2, \"a\": 3}]}",
         "step element {'a': 3, 'b': 2} must be an integer or string."},
        {"{\"rank\": [-1]}", "Each element of rank must be between 0 and 1000000, currently it "
                             "is -1."},
        {"{\"rank\": [1000001]}", "Each element of rank must be between 0 and 1000000, currently "
                                  "it is 1000001."},
        {"{\"rank\": [123456789012345678901234567890]}",
         "Each element of rank must be between 0 and 1000000, currently it is "
         "123456789012345678901234567890."},
        {"{\"step\": [\"3\"]}", "The string parameter for step only supports formats like "
                                "\"3-5\". Now string parameter for step is \"3\"."},
        {"{\"step\": [\"1-2-3\"]}", "The string parameter for step only supports formats like "
                                    "\"3-5\". Now string parameter for step is \"1-2-3\"."},
        {"{\"step\": [\"-3\"]}", "The hyphen(-) must start and end with decimal numbers."},
        {"{\"step\": [\"a-b\"]}", "The hyphen(-) must start and end with decimal numbers."},
        {"{\"step\": [\"3__0-40\"]}", "The hyphen(-) must start and end with decimal numbers."},
        {"{\"step\": [\"0-1000001\"]}", "The boundaries must fall within the range of [0, "
                                        "1000000]."},
        {"{\"step\": [\"5-3\"]}", "For the hyphen(-) in step, the left boundary (5) cannot be "
                                  "greater than the right boundary (3)."},
        {"{\"step\": [\"007-+3\"]}", "For the hyphen(-) in step, the left boundary (7) cannot "
                                     "be greater than the right boundary (3)."},
        /* rank is checked before step, both before task. */
        {"{\"task\": 1, \"step\": 1, \"rank\": 1}", "rank is invalid, it should be a list"},
        {"{\"task\": 1, \"step\": 1}", "step is invalid, it should be a list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        json_fails(cases[i].text, PC_ERR_INVALID, cases[i].message);
    /* Strings Python's int() reads. */
    pc_config c = {0};
    assert_int_equal(parse_json(&c, "{\"rank\": [\" 3 - 5 \", \"+3-5\", \"3_0-40\", \"0-0\"]}"),
                     PC_OK);
    pc_config_free(&c);
}

static void test_json_run_ut(void **state)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"{\"run_ut\": {\"white_list\": \"conv2d\"}}", "white_list must be a list type"},
        {"{\"run_ut\": {\"black_list\": null}}", "black_list must be a list type"},
        {"{\"run_ut\": {\"white_list\": [\"conv2d\", 1]}}",
         "All elements in white_list must be string type"},
        {"{\"run_ut\": {\"black_list\": [\"x\", \"relu\", \"y'z\"]}}",
         "Invalid api in black_list: ['x', \"y'z\"]"},
        {"{\"run_ut\": {\"white_list\": [\"conv2d\\u0000\"]}}",
         "Invalid api in white_list: ['conv2d\\x00']"},
        {"{\"run_ut\": {\"error_data_path\": \"/no/such/dir\"}}",
         "error_data_path: /no/such/dir does not exist"},
        {"{\"run_ut\": {\"error_data_path\": 0}}", "error_data_path must be str type"},
        {"{\"run_ut\": {\"error_data_path\": null}}", "error_data_path must be str type"},
        /* white before black before the path */
        {"{\"run_ut\": {\"error_data_path\": 0, \"black_list\": 1, \"white_list\": 1}}",
         "white_list must be a list type"},
        {"{\"run_ut\": {\"error_data_path\": 0, \"black_list\": 1}}",
         "black_list must be a list type"},
        /* the common checks come first */
        {"{\"run_ut\": {\"white_list\": 1}, \"task\": \"x\"}",
         "task is invalid, it should be one of ['tensor', 'statistics', 'overflow_check', "
         "'free_benchmark', 'run_ut', 'grad_probe', 'structure', 'exception_dump']"},
        /* where msprobe would crash */
        {"[]", "The config file cfg.json must hold a JSON object, found array."},
        {"null", "The config file cfg.json must hold a JSON object, found null."},
        {"{\"run_ut\": []}", "run_ut in cfg.json must be a JSON object, found array."},
        {"{\"run_ut\": null}", "run_ut in cfg.json must be a JSON object, found null."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        json_fails(cases[i].text, PC_ERR_INVALID, cases[i].message);
}

static void test_json_malformed_and_warning(void **state)
{
    fixture *f = *state;
    /* The tokenizer's message, with its line and column, after msprobe's words. */
    pc_config c = {0};
    pc_error_clear();
    assert_int_equal(parse_json(&c, "{\"run_ut\": {\n  \"white_list\": [\"a\",]\n}}"),
                     PC_ERR_FORMAT);
    assert_memory_equal(pc_error_message(), "Load json file cfg.json failed: cfg.json:2:22: ",
                        strlen("Load json file cfg.json failed: cfg.json:2:22: "));
    pc_error_clear();
    assert_int_equal(parse_json(&c, "{\"a\": tru}"), PC_ERR_FORMAT);
    assert_memory_equal(pc_error_message(), "Load json file cfg.json failed: cfg.json:1:7: ",
                        strlen("Load json file cfg.json failed: cfg.json:1:7: "));
    assert_int_equal(parse_json(&c, ""), PC_ERR_FORMAT);
    assert_int_equal(pc_config_parse_json(&c, "{}", 2, "cfg.json", NULL), PC_ERR_INVALID);

    /* async_dump true is allowed, with msprobe's warning. */
    char *log = take_log(f);
    free(log);
    assert_int_equal(parse_json(&c, "{\"async_dump\": true}"), PC_OK);
    log = take_log(f);
    assert_non_null(
        strstr(log, "[WARNING] async_dump is True, it may cause OOM when dumping large tensor.\n"));
    free(log);
    pc_config_free(&c);
}

static void test_json_files(void **state)
{
    fixture *f = *state;
    char path[PATH_MAX + 32], expected[3 * PATH_MAX];
    pc_config c = {0};
    snprintf(path, sizeof path, "%s/config.txt", f->root);
    write_text(path, "{}");
    assert_int_equal(pc_config_load_json(&c, path, test_api), PC_ERR_INVALID);
    snprintf(expected, sizeof expected, "The %s should be a .json file!", path);
    assert_string_equal(pc_error_message(), expected);
    snprintf(path, sizeof path, "%s/config.json", f->root);
    write_text(path, "{\"run_ut\": {\"white_list\": [\"relu\"]}}");
    assert_int_equal(pc_config_load_json(&c, path, test_api), PC_OK);
    assert_string_equal(c.white_list.items[0], "relu");
    write_text(path, "{\n\"run_ut\": }");
    assert_int_equal(pc_config_load_json(&c, path, test_api), PC_ERR_FORMAT);
    snprintf(expected, sizeof expected, "Load json file %s failed: %s:2:11: ", path, path);
    assert_memory_equal(pc_error_message(), expected, strlen(expected));
    /* A failure leaves the config as it was. */
    assert_string_equal(c.white_list.items[0], "relu");
    pc_config_free(&c);
}

/* ---------------------------------------------------------------------------------------------
 * config.yaml + config.json
 * ------------------------------------------------------------------------------------------- */

static void test_merge(void **state)
{
    fixture *f = *state;
    char yaml[PATH_MAX + 32], json[PATH_MAX + 32];
    snprintf(yaml, sizeof yaml, "%s/config.yaml", f->root);
    snprintf(json, sizeof json, "%s/config.json", f->root);
    write_text(yaml, "white_list: [conv2d]\nblack_list: [relu]\nerror_data_path: ./\n"
                     "precision: 6\n");
    pc_config c = {0};
    /* config.yaml alone. */
    assert_int_equal(pc_config_load(&c, yaml, NULL, test_api), PC_OK);
    assert_string_equal(c.white_list.items[0], "conv2d");
    assert_int_equal(c.precision, 6);
    /* With config.json: all three of its values (defaults included), precision from yaml. */
    char text[PATH_MAX + 128];
    snprintf(text, sizeof text,
             "{\"run_ut\": {\"black_list\": [\"matmul\"], "
             "\"error_data_path\": \"%s\"}}",
             f->root);
    write_text(json, text);
    assert_int_equal(pc_config_load(&c, yaml, json, test_api), PC_OK);
    assert_int_equal(c.white_list.count, 0);
    assert_int_equal(c.black_list.count, 1);
    assert_string_equal(c.black_list.items[0], "matmul");
    assert_string_equal(c.error_data_path, f->root);
    assert_int_equal(c.precision, 6);
    write_text(json, "{}");
    assert_int_equal(pc_config_load(&c, yaml, json, test_api), PC_OK);
    assert_int_equal(c.white_list.count, 0);
    assert_int_equal(c.black_list.count, 0);
    assert_string_equal(c.error_data_path, "./");
    assert_int_equal(c.precision, 6);

    /* config.yaml is validated even when config.json is given. */
    write_text(yaml, "white_list: [bogus]\nblack_list: []\nerror_data_path: ./\nprecision: 6\n");
    assert_int_equal(pc_config_load(&c, yaml, json, test_api), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "Invalid api in white_list: ['bogus']");
    /* Errors leave the result alone. */
    assert_string_equal(c.error_data_path, "./");
    assert_int_equal(c.precision, 6);
    write_text(yaml, "white_list: []\nblack_list: []\nerror_data_path: ./\nprecision: 6\n");
    write_text(json, "{\"run_ut\": {\"white_list\": [\"bogus\"]}}");
    assert_int_equal(pc_config_load(&c, yaml, json, test_api), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "Invalid api in white_list: ['bogus']");
    snprintf(text, sizeof text, "%s/missing.json", f->root);
    assert_int_equal(pc_config_load(&c, yaml, text, test_api), PC_ERR_NOT_FOUND);
    assert_int_equal(pc_config_load(NULL, yaml, NULL, test_api), PC_ERR_INVALID);
    pc_config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_default_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_good_yaml, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_scalar_typing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_unknown_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_type_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_list_items, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_error_data_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_missing_keys_and_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_key_order_and_duplicates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_what_pyyaml_refuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_anchors_aliases_tags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_yaml_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_good, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_common_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_run_ut, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_malformed_and_warning, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
