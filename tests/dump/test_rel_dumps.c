/* Dumps read without losing anything and without slowing down (issue #29): positions of many
 * bad records (each message's file:line:column, linear in the records). */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/dump/dump.h"
#include "precheck/io/json.h"

/* ---- positions of many bad records ---- */

enum { BAD_RECORDS = 40000 };

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k + 1 > t->cap) {
        t->cap = (t->n + k + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    memcpy(t->s + t->n, s, k + 1);
    t->n += k;
}

/* Characters (not bytes) in s: UTF-8 continuation bytes do not count. */
static size_t chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* A dump of BAD_RECORDS forward entries, each with a tensor whose shape holds a string, and
 * two non-ASCII characters before it on its line, so that columns (characters) differ from
 * bytes. one_line: the whole file on one line (json.dump without indent). The expected line
 * and column of each bad element are in line[i], col[i]. */
static text bad_dump(bool one_line, size_t *line, size_t *col)
{
    text t = {0};
    put(&t, "{\"task\": \"statistics\", \"data\": {");
    size_t ln = 1, counted = 0, column = 1; /* column of byte `counted` */
    for (int i = 0; i < BAD_RECORDS; i++) {
        if (!one_line) {
            put(&t, "\n");
            ln++;
            counted = t.n;
            column = 1;
        }
        char entry[256];
        snprintf(
            entry, sizeof entry,
            "%s\"Functional.relu.%d.forward\": {\"input_args\": [{\"type\": "
            "\"torch.Tensor\", \"dtype\": \"torch.float32\", \"note\": \"\xC3\xA9\xE2\x82\xAC\", "
            "\"shape\": [4, ",
            i ? ", " : "", i);
        put(&t, entry);
        column += chars(t.s + counted, t.n - counted);
        counted = t.n;
        line[i] = ln;
        col[i] = column;
        put(&t, "\"x\"]}], \"input_kwargs\": {}}");
        column += chars(t.s + counted, t.n - counted);
        counted = t.n;
    }
    put(&t, one_line ? "}}" : "\n}}\n");
    return t;
}

static void check_positions(bool one_line)
{
    size_t *line = calloc(BAD_RECORDS, sizeof *line), *col = calloc(BAD_RECORDS, sizeof *col);
    assert_non_null(line);
    assert_non_null(col);
    text t = bad_dump(one_line, line, col);
    pc_dump *d = NULL;
    if (pc_dump_parse(&d, t.s, t.n, "dump.json") != PC_OK)
        fail_msg("%s", pc_error_message());
    assert_int_equal(d->api_count, BAD_RECORDS);
    for (size_t i = 0; i < d->api_count; i++) {
        const pc_dump_entry *e = &d->apis[i].forward;
        assert_null(e->error);
        assert_int_equal(e->input_args.u.list.count, 1);
        const char *err = e->input_args.u.list.items[0].error;
        char want[160];
        PC_TEST_FMT(want,
                    "input_args[0]: \"shape\" must be a list of integers, found string at index "
                    "1 (dump.json:%zu:%zu)",
                    line[i], col[i]);
        if (!err || strcmp(err, want) != 0)
            fail_msg("record %zu: got %s, expected %s", i + 1, err ? err : "no error", want);
    }
    /* the first and the last, spelled out */
    assert_int_equal(line[0], one_line ? 1 : 2);
    assert_int_equal(line[BAD_RECORDS - 1], one_line ? 1 : BAD_RECORDS + 1);
    pc_dump_free(d);
    free(t.s);
    free(line);
    free(col);
}

static void test_bad_record_positions_indented(void **state)
{
    (void)state;
    check_positions(false);
}

static void test_bad_record_positions_one_line(void **state)
{
    (void)state;
    check_positions(true);
}

/* The document's locator (marks every 8 KiB, last position) against counting from the start,
 * at token positions asked in random order: backward jumps, long lines, UTF-8. */
static void test_locations_any_order(void **state)
{
    (void)state;
    text t = {0};
    put(&t, "[");
    uint64_t x = 88172645463325252ULL;
    int items = 60000;
    for (int i = 0; i < items; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        put(&t, i ? "," : "");
        put(&t, (x & 7) == 0 ? "\n" : ((x & 7) == 1 ? "\n\n " : " "));
        put(&t, (x >> 8) & 1 ? "\"\xE6\x97\xA5\xC3\xA9x\"" : "12345");
    }
    put(&t, "]");
    pc_json_doc *doc = NULL;
    if (pc_json_parse(&doc, t.s, t.n, "a.json") != PC_OK)
        fail_msg("%s", pc_error_message());
    pc_json_ref root = pc_json_root(doc);
    assert_int_equal(pc_json_count(doc, root), (size_t)items);
    pc_json_ref *refs = calloc((size_t)items, sizeof *refs);
    assert_non_null(refs);
    int k = 0;
    for (pc_json_ref e = pc_json_first(doc, root); e != PC_JSON_NONE; e = pc_json_next(doc, e))
        refs[k++] = e;
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        pc_json_ref v = refs[x % (uint64_t)items];
        size_t l1, c1, l2, c2;
        pc_json_location(doc, v, &l1, &c1);
        pc_json_offset_location(t.s, t.n, pc_json_offset(doc, v), &l2, &c2);
        if (l1 != l2 || c1 != c2)
            fail_msg("offset %zu: %zu:%zu, expected %zu:%zu", pc_json_offset(doc, v), l1, c1, l2,
                     c2);
    }
    /* the end of the input, then the start again */
    size_t l, c, le, ce;
    pc_json_doc_offset_location(doc, t.n + 10, &l, &c);
    pc_json_offset_location(t.s, t.n, t.n, &le, &ce);
    assert_int_equal(l, le);
    assert_int_equal(c, ce);
    pc_json_doc_offset_location(doc, 0, &l, &c);
    assert_int_equal(l, 1);
    assert_int_equal(c, 1);
    free(refs);
    pc_json_free(doc);
    free(t.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_record_positions_indented),
        cmocka_unit_test(test_bad_record_positions_one_line),
        cmocka_unit_test(test_locations_any_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
