/*
 * --junit FILE on run_ut, api_precision_compare and diff, through the binary. A small checker
 * parses the XML (well-formed: tags balanced, attributes quoted, no bare & or <) and holds it to
 * the JUnit schema's structure as Jenkins and GitLab read it: <testsuites> of <testsuite> of
 * <testcase classname name time>, each case holding at most one <failure message type> or
 * <skipped message>, and a <system-out>; the counts tests/failures/errors/skipped of every
 * suite and of the whole equal what the cases hold. Then the cases are held to the run's CSVs.
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DUMP(name) PC_TEST_FIXTURES "/msprobe/dumps/" name "/step0/rank/dump.json"
#define FAULTS     "--backend faulty:swap_block:*,eps:layer_norm"

/* ---- the checker ---- */

enum { MAX_ATTRS = 16, MAX_CASES = 256 };

typedef struct xml_elem {
    char name[32];
    char keys[MAX_ATTRS][32];
    char values[MAX_ATTRS][1024];
    int n_attrs;
    bool empty; /* <x/> */
    bool close; /* </x> */
} xml_elem;

typedef struct junit_case {
    char classname[256], name[256];
    int outcome; /* 0 passed, 1 failure, 2 skipped */
    char message[1024];
} junit_case;

typedef struct junit_doc {
    junit_case cases[MAX_CASES];
    int n;
    long tests, failures, skipped;
} junit_doc;

/* Text between tags: no bare '<', every '&' an entity. */
static void check_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_true(s[i] != '<');
        if (s[i] == '&') {
            static const char *const ents[] = {"&amp;",  "&lt;",  "&gt;",
                                               "&quot;", "&#39;", "&apos;"};
            bool ok = false;
            for (size_t k = 0; k < 6; k++)
                ok = ok || strncmp(s + i, ents[k], strlen(ents[k])) == 0;
            assert_true(ok);
        }
    }
}

/* The tag at *p ('<' ...), *p moved past it. */
static void read_tag(const char **p, xml_elem *e)
{
    const char *s = *p;
    memset(e, 0, sizeof *e);
    assert_true(*s == '<');
    s++;
    if (*s == '/') {
        e->close = true;
        s++;
    }
    size_t n = strcspn(s, " \t\n/>");
    assert_true(n > 0 && n < sizeof e->name);
    memcpy(e->name, s, n);
    s += n;
    for (;;) {
        s += strspn(s, " \t\n");
        if (*s == '>') {
            s++;
            break;
        }
        if (s[0] == '/' && s[1] == '>') {
            assert_false(e->close);
            e->empty = true;
            s += 2;
            break;
        }
        assert_false(e->close);
        size_t k = strcspn(s, "= \t\n>");
        assert_true(k > 0 && k < 32 && s[k] == '=' && s[k + 1] == '"');
        assert_true(e->n_attrs < MAX_ATTRS);
        for (int i = 0; i < e->n_attrs; i++) /* no attribute twice */
            assert_false(strlen(e->keys[i]) == k && strncmp(e->keys[i], s, k) == 0);
        memcpy(e->keys[e->n_attrs], s, k);
        s += k + 2;
        const char *end = strchr(s, '"');
        assert_non_null(end);
        check_text(s, (size_t)(end - s));
        snprintf(e->values[e->n_attrs], sizeof e->values[0], "%.*s", (int)(end - s), s);
        e->n_attrs++;
        s = end + 1;
    }
    *p = s;
}

static const char *attr_of(const xml_elem *e, const char *key)
{
    for (int i = 0; i < e->n_attrs; i++)
        if (strcmp(e->keys[i], key) == 0)
            return e->values[i];
    return NULL;
}

static long count_attr(const xml_elem *e, const char *key)
{
    const char *v = attr_of(e, key);
    assert_non_null(v);
    char *end;
    long n = strtol(v, &end, 10);
    assert_true(*end == 0 && end != v && n >= 0);
    return n;
}

/* Skips text (checked) up to the next tag. */
static void skip_text(const char **p)
{
    const char *lt = strchr(*p, '<');
    size_t n = lt ? (size_t)(lt - *p) : strlen(*p);
    check_text(*p, n);
    *p += n;
}

static void parse_junit(const char *path, junit_doc *doc)
{
    char *xml = pc_test_slurp(path, NULL);
    const char *p = xml;
    memset(doc, 0, sizeof *doc);
    assert_true(strncmp(p, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 38) == 0);
    p += 38;
    skip_text(&p);
    xml_elem e;
    read_tag(&p, &e);
    assert_string_equal(e.name, "testsuites");
    assert_non_null(attr_of(&e, "name"));
    assert_non_null(attr_of(&e, "time"));
    long tests = count_attr(&e, "tests"), failures = count_attr(&e, "failures"),
         skipped = count_attr(&e, "skipped"), errors = count_attr(&e, "errors");
    long sum_tests = 0, sum_failures = 0, sum_skipped = 0;
    for (;;) {
        skip_text(&p);
        read_tag(&p, &e);
        if (e.close) {
            assert_string_equal(e.name, "testsuites");
            break;
        }
        assert_string_equal(e.name, "testsuite");
        assert_false(e.empty);
        assert_non_null(attr_of(&e, "name"));
        assert_non_null(attr_of(&e, "time"));
        long st = count_attr(&e, "tests"), sf = count_attr(&e, "failures"),
             ss = count_attr(&e, "skipped");
        assert_int_equal(count_attr(&e, "errors"), 0);
        long ct = 0, cf = 0, cs = 0;
        for (;;) {
            skip_text(&p);
            read_tag(&p, &e);
            if (e.close) {
                assert_string_equal(e.name, "testsuite");
                break;
            }
            assert_string_equal(e.name, "testcase");
            assert_true(doc->n < MAX_CASES);
            junit_case *c = &doc->cases[doc->n++];
            assert_non_null(attr_of(&e, "classname"));
            assert_non_null(attr_of(&e, "name"));
            assert_non_null(attr_of(&e, "time"));
            snprintf(c->classname, sizeof c->classname, "%s", attr_of(&e, "classname"));
            snprintf(c->name, sizeof c->name, "%s", attr_of(&e, "name"));
            ct++;
            int outcomes = 0;
            while (!e.empty) {
                skip_text(&p);
                read_tag(&p, &e);
                if (e.close) {
                    assert_string_equal(e.name, "testcase");
                    break;
                }
                if (strcmp(e.name, "failure") == 0 || strcmp(e.name, "skipped") == 0) {
                    outcomes++;
                    c->outcome = e.name[0] == 'f' ? 1 : 2;
                    assert_non_null(attr_of(&e, "message"));
                    snprintf(c->message, sizeof c->message, "%s", attr_of(&e, "message"));
                    if (c->outcome == 1)
                        assert_non_null(attr_of(&e, "type"));
                } else {
                    assert_string_equal(e.name, "system-out");
                }
                if (!e.empty) { /* its text, then its end tag */
                    char name[32];
                    snprintf(name, sizeof name, "%s", e.name);
                    skip_text(&p);
                    read_tag(&p, &e);
                    assert_true(e.close);
                    assert_string_equal(e.name, name);
                }
                e.empty = false;
            }
            assert_true(outcomes <= 1);
            cf += c->outcome == 1;
            cs += c->outcome == 2;
        }
        assert_int_equal(st, ct);
        assert_int_equal(sf, cf);
        assert_int_equal(ss, cs);
        sum_tests += st;
        sum_failures += sf;
        sum_skipped += ss;
    }
    skip_text(&p);
    assert_int_equal(*p, 0);
    assert_int_equal(tests, sum_tests);
    assert_int_equal(failures, sum_failures);
    assert_int_equal(skipped, sum_skipped);
    assert_int_equal(errors, 0);
    doc->tests = tests;
    doc->failures = failures;
    doc->skipped = skipped;
    free(xml);
}

static const junit_case *case_of(const junit_doc *d, const char *name)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->cases[i].name, name) == 0)
            return &d->cases[i];
    return NULL;
}

/* The cases against a result CSV: one per API, error a failure, SKIP (and no error) skipped. */
static void check_against(const junit_doc *d, const char *result_csv, const char *command)
{
    static pc_test_status_row rows[256];
    int n = pc_test_read_results(result_csv, rows, 256);
    assert_int_equal(d->tests, n);
    long failures = 0, skipped = 0;
    for (int i = 0; i < n; i++) {
        const junit_case *c = case_of(d, rows[i].name);
        assert_non_null(c);
        bool error = strcmp(rows[i].fwd, "error") == 0 || strcmp(rows[i].bwd, "error") == 0;
        bool skip = strcmp(rows[i].fwd, "SKIP") == 0 || strcmp(rows[i].bwd, "SKIP") == 0;
        assert_int_equal(c->outcome, error ? 1 : skip ? 2 : 0);
        failures += error;
        skipped += !error && skip;
        /* classname: command.Type.op, the name's own parts */
        char want[256];
        const char *last = strrchr(rows[i].name, '.');
        PC_TEST_FMT(want, "%s.%.*s", command, (int)(last - rows[i].name), rows[i].name);
        assert_string_equal(c->classname, want);
    }
    assert_int_equal(d->failures, failures);
    assert_int_equal(d->skipped, skipped);
}

static void test_run_ut_and_precision_compare(void **state)
{
    (void)state;
    char a[512], b[512], c[512], log[600], args[4096], junit[600], result[1024], da[1024];
    static junit_doc doc;
    assert_non_null(pc_test_tmpdir(a, sizeof a));
    assert_non_null(pc_test_tmpdir(b, sizeof b));
    assert_non_null(pc_test_tmpdir(c, sizeof c));
    PC_TEST_FMT(log, "%s.log", b);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", DUMP("gpt_tensor"), a);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    /* the faulty device: errors (with their metric and limit) and the dump's SKIPs */
    PC_TEST_FMT(junit, "%s/run_ut.xml", c);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress " FAULTS " --junit %s",
                DUMP("gpt_tensor"), b, junit);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    parse_junit(junit, &doc);
    pc_test_find_file(b, "accuracy_checking_result_", result, sizeof result);
    check_against(&doc, result, "run_ut");
    assert_true(doc.failures > 0 && doc.skipped > 0);
    const junit_case *m = case_of(&doc, "Torch.matmul.1");
    assert_non_null(m);
    assert_int_equal(m->outcome, 1);
    assert_non_null(strstr(m->message, "cosine similarity"));
    assert_non_null(strstr(m->message, "must be &gt; 0.99"));
    /* the cases carry run_ut's per-API wall times (device and bench, from its summary) */
    {
        char *xml = pc_test_slurp(junit, NULL);
        bool timed = false;
        for (const char *t = strstr(xml, "<testcase"); t && !timed;
             t = strstr(t + 1, "<testcase")) {
            const char *tm = strstr(t, " time=\"");
            timed = tm && strtod(tm + 7, NULL) > 0;
        }
        free(xml);
        assert_true(timed);
    }
    /* an existing file is replaced (a CI workspace reused) */
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress --junit %s", DUMP("gpt_tensor"), b,
                junit);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    parse_junit(junit, &doc);
    assert_true(doc.failures < 3);

    /* api_precision_compare */
    pc_test_find_file(a, "accuracy_checking_details_", da, sizeof da);
    char bf[512], dbf[1024], cmpdir[512];
    assert_non_null(pc_test_tmpdir(bf, sizeof bf));
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress " FAULTS, DUMP("gpt_tensor"), bf);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_find_file(bf, "accuracy_checking_details_", dbf, sizeof dbf);
    assert_non_null(pc_test_tmpdir(cmpdir, sizeof cmpdir));
    PC_TEST_FMT(junit, "%s/cmp.xml", c);
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s --junit %s", dbf, da, cmpdir,
                junit);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    parse_junit(junit, &doc);
    pc_test_find_file(cmpdir, "api_precision_compare_result_", result, sizeof result);
    check_against(&doc, result, "api_precision_compare");
    assert_true(doc.failures > 0);

    /* diff: a failure for each API newly failing */
    PC_TEST_FMT(junit, "%s/diff.xml", c);
    PC_TEST_FMT(args, "diff %s %s --junit %s", a, bf, junit);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    parse_junit(junit, &doc);
    static pc_test_status_row ra[64], rb[64];
    char res_a[1024], res_b[1024];
    pc_test_find_file(a, "accuracy_checking_result_", res_a, sizeof res_a);
    pc_test_find_file(bf, "accuracy_checking_result_", res_b, sizeof res_b);
    int na = pc_test_read_results(res_a, ra, 64), nb = pc_test_read_results(res_b, rb, 64);
    long new_errors = 0;
    for (int i = 0; i < nb; i++) {
        const pc_test_status_row *o = pc_test_find_row(ra, na, rb[i].name);
        bool was = strcmp(o->fwd, "error") == 0 || strcmp(o->bwd, "error") == 0;
        bool is = strcmp(rb[i].fwd, "error") == 0 || strcmp(rb[i].bwd, "error") == 0;
        new_errors += is && !was;
        const junit_case *jc = case_of(&doc, rb[i].name);
        assert_non_null(jc);
        assert_int_equal(jc->outcome, is && !was ? 1 : 0);
    }
    assert_int_equal(doc.tests, nb);
    assert_int_equal(doc.failures, new_errors);
    assert_true(new_errors > 0);
}

/* The file goes through io/file_out.h: a link at the name is refused, its target untouched. */
static void test_link_refused(void **state)
{
    (void)state;
    char a[512], log[600], args[2048], target[600], link[600];
    assert_non_null(pc_test_tmpdir(a, sizeof a));
    PC_TEST_FMT(target, "%s.target", a);
    PC_TEST_FMT(link, "%s.xml", a);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("keep\n", f);
    fclose(f);
    assert_int_equal(symlink(target, link), 0);
    PC_TEST_FMT(log, "%s.log", a);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress --junit %s", DUMP("gpt_tensor"), a,
                link);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 1);
    pc_test_expect_in_log(log, "--junit");
    assert_true(pc_test_file_contains(target, "keep"));
    unlink(link);
    unlink(target);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_ut_and_precision_compare),
        cmocka_unit_test(test_link_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
