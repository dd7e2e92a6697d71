/*
 * precheck diff OLD NEW (report/diff.h): the two runs read as the report reads a folder
 * (report_load.c's model), their APIs matched by name, each put in one class, and the metrics
 * of the details rows both runs hold compared by a factor.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "precheck/core/log.h"
#include "precheck/dump/dump_write.h"
#include "precheck/io/file_out.h"
#include "precheck/precision_compare/precision_compare.h"
#include "precheck/report/diff.h"
#include "report_impl.h"
#include "tally.h"

typedef struct diff_side {
    char dir[4200];
    char run[PC_REPORT_TS_LEN + 1]; /* named by a CSV, "" the newest */
    int kind;                       /* named by a CSV: 1 run_ut, 2 api_precision_compare, 0 any */
    rep_model m;
    bool loaded;
    char csv[4300]; /* the run's result CSV (or details CSV) */
} diff_side;

/* One metric that moved. */
typedef struct diff_moved {
    size_t api;       /* index into d->apis */
    const char *row;  /* the details row's name */
    const char *what; /* the metric's column */
    const char *old_text, *new_text;
    double factor; /* INFINITY: finite against inf/NaN */
    bool worse;
} diff_moved;

typedef struct diff_api {
    const char *name;
    const rep_api *o, *n; /* NULL: not in that run */
    pc_diff_change change;
    bool new_warning; /* Warning (or error) in NEW, neither in OLD */
    size_t moved, moved_worse;
} diff_api;

struct pc_report_diff {
    diff_side old, new;
    bool compare; /* api_precision_compare runs, else run_ut runs */
    double factor;
    diff_api *apis;
    size_t n_apis;
    diff_moved *moved;
    size_t n_moved, cap_moved;
    size_t counts[PC_DIFF_CHANGE_COUNT];
    size_t moved_apis;
    pc_arena arena;
};

static const char *const change_keys[PC_DIFF_CHANGE_COUNT] = {
    "new_error", "fixed", "still_failing", "verdict_changed", "only_old", "only_new", "same",
};

const char *pc_report_diff_change_key(pc_diff_change c)
{
    return (unsigned)c < PC_DIFF_CHANGE_COUNT ? change_keys[c] : "?";
}

bool pc_report_diff_parse_fail_on(const char *text, unsigned *bits)
{
    static const struct {
        const char *word;
        unsigned bit;
    } words[] = {
        {"new-error", PC_DIFF_FAIL_NEW_ERROR},
        {"new-warning", PC_DIFF_FAIL_NEW_WARNING},
        {"moved", PC_DIFF_FAIL_MOVED},
        {"missing", PC_DIFF_FAIL_MISSING},
        {"any", PC_DIFF_FAIL_ANY},
    };
    *bits = 0;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, ",");
        bool found = false;
        for (size_t i = 0; i < sizeof words / sizeof words[0] && !found; i++)
            if (strlen(words[i].word) == n && strncmp(p, words[i].word, n) == 0) {
                *bits |= words[i].bit;
                found = true;
            }
        if (!found)
            return false;
        p += n;
        if (*p == ',')
            p++;
    }
    return *bits != 0;
}

/* ---- the two runs ---- */

static const struct {
    const char *prefix;
    int kind;
} csv_names[] = {
    {"accuracy_checking_result_", 1},
    {"accuracy_checking_details_", 1},
    {"api_precision_compare_result_", 2},
    {"api_precision_compare_details_", 2},
};

/* OLD or NEW as given: a folder (the newest run), or a CSV of a run (that run). */
static pc_status resolve(diff_side *s, const char *path, const char *which)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return pc_error_set(PC_ERR_NOT_FOUND,
                            "%s %s: no such folder or file. Give run_ut's or "
                            "api_precision_compare's output folder (-o), or one CSV of a run.",
                            which, path);
    if (S_ISDIR(st.st_mode)) {
        snprintf(s->dir, sizeof s->dir, "%s", path);
        return PC_OK;
    }
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    for (size_t k = 0; k < sizeof csv_names / sizeof csv_names[0]; k++) {
        size_t p = strlen(csv_names[k].prefix), n = strlen(base);
        if (strncmp(base, csv_names[k].prefix, p) != 0 || n != p + PC_REPORT_TS_LEN + 4 ||
            strspn(base + p, "0123456789") != PC_REPORT_TS_LEN || strcmp(base + n - 4, ".csv"))
            continue;
        snprintf(s->run, sizeof s->run, "%.14s", base + p);
        s->kind = csv_names[k].kind;
        if (!slash)
            snprintf(s->dir, sizeof s->dir, ".");
        else if (slash == path)
            snprintf(s->dir, sizeof s->dir, "/");
        else
            snprintf(s->dir, sizeof s->dir, "%.*s", (int)(slash - path), path);
        return PC_OK;
    }
    return pc_error_set(PC_ERR_INVALID,
                        "%s %s: not a folder nor a CSV of run_ut or api_precision_compare "
                        "(accuracy_checking_{result,details}_<ts>.csv, "
                        "api_precision_compare_{result,details}_<ts>.csv)",
                        which, path);
}

static pc_status load_side(diff_side *s, const char *which)
{
    pc_report_options ro = {.dir = s->dir, .run = s->run[0] ? s->run : NULL};
    pc_status st = pc_rep_model_load(&s->m, &ro);
    s->loaded = true;
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", which);
    return PC_OK;
}

static bool has_run_ut(const rep_model *m)
{
    return m->run_ut_ts[0] != 0;
}

static bool has_compare(const rep_model *m)
{
    return m->compare_ts[0] != 0;
}

/* The kind both runs are: named by a CSV, else run_ut where both folders hold one, else
 * api_precision_compare. */
static pc_status pick_kind(pc_report_diff *d)
{
    int want = d->old.kind ? d->old.kind : d->new.kind;
    if (d->old.kind && d->new.kind && d->old.kind != d->new.kind)
        want = -1;
    if (!want)
        want = has_run_ut(&d->old.m) && has_run_ut(&d->new.m)     ? 1
               : has_compare(&d->old.m) && has_compare(&d->new.m) ? 2
                                                                  : -1;
    if (want == 1 && (!has_run_ut(&d->old.m) || !has_run_ut(&d->new.m)))
        want = -1;
    if (want == 2 && (!has_compare(&d->old.m) || !has_compare(&d->new.m)))
        want = -1;
    if (want < 0)
        return pc_error_set(
            PC_ERR_INVALID,
            "OLD %s holds %s and NEW %s holds %s: precheck diff compares two "
            "run_ut runs or two api_precision_compare runs. Give two folders "
            "(or CSVs) of the same command.",
            d->old.dir,
            d->old.kind == 2 || !has_run_ut(&d->old.m) ? "an api_precision_compare run"
                                                       : "a run_ut run",
            d->new.dir,
            d->new.kind == 2 || !has_run_ut(&d->new.m) ? "an api_precision_compare run"
                                                       : "a run_ut run");
    d->compare = want == 2;
    return PC_OK;
}

static void note_runs(const diff_side *s, const char *which, bool compare)
{
    const rep_model *m = &s->m;
    size_t runs = compare ? m->compare_runs : m->run_ut_runs;
    if (runs > 1 && !s->run[0])
        pc_log_warning("%s %s holds %zu %s runs: diff takes the newest, %s. To take another, "
                       "give its CSV instead of the folder.",
                       which, s->dir, runs, compare ? "api_precision_compare" : "run_ut",
                       compare ? m->compare_ts : m->run_ut_ts);
}

/* The dumps the two runs ran: pc_pcmp_check_runs on the details CSVs' names (their records sit
 * beside them); for api_precision_compare runs, on the -npu CSVs their summaries name. */
static pc_status check_dumps(pc_report_diff *d, bool allow_different)
{
    char a[4400], b[4400];
    if (!d->compare) {
        snprintf(a, sizeof a, "%s/accuracy_checking_details_%s.csv", d->old.dir,
                 d->old.m.run_ut_ts);
        snprintf(b, sizeof b, "%s/accuracy_checking_details_%s.csv", d->new.dir,
                 d->new.m.run_ut_ts);
        return pc_pcmp_check_runs(a, b, PC_PCMP_PAIR_DIFF, allow_different);
    }
    const char *na = d->old.m.cinfo.npu_csv, *nb = d->new.m.cinfo.npu_csv;
    struct stat st;
    if (!na || !nb || stat(na, &st) != 0 || stat(nb, &st) != 0) {
        pc_log_warning("That OLD and NEW judged runs of the same dump could not be verified (the "
                       "-npu CSVs their summaries name are %s and %s; an api_precision_compare "
                       "folder from msprobe has no summary): only the API names show that both "
                       "sides ran the same dump.",
                       na ? na : "(none)", nb ? nb : "(none)");
        return PC_OK;
    }
    return pc_pcmp_check_runs(na, nb, PC_PCMP_PAIR_DIFF, allow_different);
}

/* ---- matching ---- */

static bool present(const rep_api *a, bool compare)
{
    return compare ? a->cfwd != RV_NONE || a->n_crows : a->fwd != RV_NONE || a->n_rows;
}

static int by_name(const void *pa, const void *pb)
{
    const rep_api *a = *(const rep_api *const *)pa, *b = *(const rep_api *const *)pb;
    return strcmp(a->name, b->name);
}

static rep_api **sorted(const rep_model *m, bool compare, size_t *n)
{
    rep_api **v = malloc((m->n_apis ? m->n_apis : 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < m->n_apis; i++)
        if (present(&m->apis[i], compare))
            v[(*n)++] = &m->apis[i];
    qsort(v, *n, sizeof *v, by_name);
    return v;
}

static bool fails(const rep_api *a, bool compare)
{
    return compare ? a->cfwd == RV_ERROR || a->cbwd == RV_ERROR
                   : a->fwd == RV_ERROR || a->bwd == RV_ERROR;
}

static bool warns(const rep_api *a, bool compare)
{
    return fails(a, compare) || (compare ? a->cfwd == RV_WARNING || a->cbwd == RV_WARNING
                                         : a->fwd == RV_WARNING || a->bwd == RV_WARNING);
}

static void classify(diff_api *x, bool compare)
{
    if (!x->n) {
        x->change = PC_DIFF_ONLY_OLD;
        return;
    }
    if (!x->o) {
        x->change = PC_DIFF_ONLY_NEW;
        return;
    }
    bool fo = fails(x->o, compare), fn = fails(x->n, compare);
    x->new_warning = warns(x->n, compare) && !warns(x->o, compare);
    if (fn && !fo)
        x->change = PC_DIFF_NEW_ERROR;
    else if (fo && !fn)
        x->change = PC_DIFF_FIXED;
    else if (fo && fn)
        x->change = PC_DIFF_STILL;
    else if (compare ? x->o->cfwd != x->n->cfwd || x->o->cbwd != x->n->cbwd
                     : x->o->fwd != x->n->fwd || x->o->bwd != x->n->bwd)
        x->change = PC_DIFF_VERDICT;
    else
        x->change = PC_DIFF_SAME;
}

/* ---- metrics ---- */

/* The distance from a perfect result; false when the cell is no number. */
static bool distance(const char *cell, bool higher_is_better, double *out)
{
    double v;
    if (!pc_rep_number(cell, &v))
        return false;
    *out = higher_is_better ? 1.0 - v : fabs(v);
    if (isfinite(*out) && *out < PC_DIFF_FLOOR)
        *out = PC_DIFF_FLOOR;
    return true;
}

static pc_status add_moved(pc_report_diff *d, size_t api, const char *row, const char *what,
                           const char *old_cell, const char *new_cell, bool higher)
{
    double a, b;
    if (!distance(old_cell, higher, &a) || !distance(new_cell, higher, &b))
        return PC_OK;
    double factor;
    bool worse;
    if (!isfinite(a) || !isfinite(b)) {
        if (!isfinite(a) && !isfinite(b) && (isnan(a) == isnan(b)) && (isnan(a) || a == b))
            return PC_OK; /* NaN and NaN, inf and inf */
        factor = HUGE_VAL;
        worse = !isfinite(b) && isfinite(a);
        if (!isfinite(a) && !isfinite(b))
            worse = isnan(b);
    } else {
        factor = a > b ? a / b : b / a;
        worse = b > a;
    }
    if (!(factor > d->factor))
        return PC_OK;
    if (d->n_moved == d->cap_moved) {
        size_t cap = d->cap_moved ? 2 * d->cap_moved : 64;
        diff_moved *m = realloc(d->moved, cap * sizeof *m);
        if (!m)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        d->moved = m;
        d->cap_moved = cap;
    }
    d->moved[d->n_moved++] = (diff_moved){api, row, what, old_cell, new_cell, factor, worse};
    d->apis[api].moved++;
    d->apis[api].moved_worse += worse;
    return PC_OK;
}

static bool higher_is_better_compare(int col)
{
    return col == CC_THOUSANDTH;
}

static pc_status compare_metrics(pc_report_diff *d, size_t k)
{
    const diff_api *x = &d->apis[k];
    pc_status st = PC_OK;
    if (!d->compare) {
        for (size_t i = 0; i < x->n->n_rows && st == PC_OK; i++) {
            const rep_row *rn = &x->n->rows[i];
            const rep_row *ro = NULL;
            for (size_t j = 0; j < x->o->n_rows && !ro; j++)
                if (strcmp(x->o->rows[j].name, rn->name) == 0)
                    ro = &x->o->rows[j];
            for (int c = 0; ro && c < PC_METRIC_COUNT && st == PC_OK; c++)
                st = add_moved(d, k, rn->name, pc_metric_name((pc_metric)c), ro->cell[c],
                               rn->cell[c], pc_tally_higher_is_better(c));
        }
        return st;
    }
    static const int cols[] = {CC_SMALL_RATIO, CC_RMSE_RATIO, CC_MAX_REL_RATIO, CC_MEAN_REL_RATIO,
                               CC_EB_RATIO,    CC_INF_NAN,    CC_REL_ERR,       CC_ABS_ERR,
                               CC_BINARY,      CC_ULP_MEAN,   CC_ULP_PROP,      CC_ULP_PROP_RATIO,
                               CC_THOUSANDTH};
    const char *const *header = pc_pcmp_details_header();
    for (size_t i = 0; i < x->n->n_crows && st == PC_OK; i++) {
        const rep_crow *rn = &x->n->crows[i];
        const rep_crow *ro = NULL;
        for (size_t j = 0; j < x->o->n_crows && !ro; j++)
            if (strcmp(x->o->crows[j].name, rn->name) == 0)
                ro = &x->o->crows[j];
        for (size_t c = 0; ro && c < sizeof cols / sizeof cols[0] && st == PC_OK; c++)
            st = add_moved(d, k, rn->name, header[cols[c]], ro->cell[cols[c]], rn->cell[cols[c]],
                           higher_is_better_compare(cols[c]));
    }
    return st;
}

static int by_factor(const void *pa, const void *pb)
{
    const diff_moved *a = pa, *b = pb;
    if (a->worse != b->worse)
        return a->worse ? -1 : 1;
    if (a->factor != b->factor)
        return a->factor > b->factor ? -1 : 1;
    if (a->api != b->api)
        return a->api < b->api ? -1 : 1;
    return strcmp(a->row, b->row);
}

/* The NEW order of the APIs (their first appearance in NEW), then OLD's for those only there. */
static int by_order(const void *pa, const void *pb)
{
    const diff_api *a = pa, *b = pb;
    if (!a->n != !b->n)
        return a->n ? -1 : 1;
    size_t oa = a->n ? a->n->order : a->o->order, ob = b->n ? b->n->order : b->o->order;
    return oa < ob ? -1 : oa > ob;
}

static pc_status match(pc_report_diff *d)
{
    size_t no, nn;
    rep_api **vo = sorted(&d->old.m, d->compare, &no), **vn = sorted(&d->new.m, d->compare, &nn);
    d->apis = calloc(no + nn + 1, sizeof *d->apis);
    pc_status st = PC_OK;
    if (!vo || !vn || !d->apis) {
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t i = 0, j = 0;
    while (i < no || j < nn) {
        int c = i == no ? 1 : j == nn ? -1 : strcmp(vo[i]->name, vn[j]->name);
        diff_api *x = &d->apis[d->n_apis++];
        if (c <= 0)
            x->o = vo[i++];
        if (c >= 0)
            x->n = vn[j++];
        x->name = x->n ? x->n->name : x->o->name;
    }
    qsort(d->apis, d->n_apis, sizeof *d->apis, by_order);
    for (size_t k = 0; k < d->n_apis && st == PC_OK; k++) {
        diff_api *x = &d->apis[k];
        classify(x, d->compare);
        d->counts[x->change]++;
        if (x->o && x->n)
            st = compare_metrics(d, k);
        d->moved_apis += x->moved > 0;
    }
    if (st == PC_OK && d->n_moved)
        qsort(d->moved, d->n_moved, sizeof *d->moved, by_factor);
out:
    free(vo);
    free(vn);
    return st;
}

pc_status pc_report_diff_load(const pc_diff_options *opt, pc_report_diff **out)
{
    *out = NULL;
    pc_report_diff *d = calloc(1, sizeof *d);
    if (!d)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    d->factor = opt->factor > 1 ? opt->factor : PC_DIFF_DEFAULT_FACTOR;
    pc_status st = resolve(&d->old, opt->old_path, "OLD");
    if (st == PC_OK)
        st = resolve(&d->new, opt->new_path, "NEW");
    if (st == PC_OK && opt->new_run && !d->new.run[0])
        snprintf(d->new.run, sizeof d->new.run, "%s", opt->new_run);
    if (st == PC_OK)
        st = load_side(&d->old, "OLD");
    if (st == PC_OK)
        st = load_side(&d->new, "NEW");
    if (st == PC_OK)
        st = pick_kind(d);
    if (st == PC_OK) {
        note_runs(&d->old, "OLD", d->compare);
        note_runs(&d->new, "NEW", d->compare);
        st = check_dumps(d, opt->allow_different_dumps);
    }
    if (st == PC_OK) {
        const diff_side *s[2] = {&d->old, &d->new};
        diff_side *w[2] = {&d->old, &d->new};
        for (int i = 0; i < 2; i++) {
            const rep_model *m = &s[i]->m;
            const char *csv = d->compare ? (m->cresult_csv ? m->cresult_csv : m->cdetails_csv)
                                         : (m->result_csv ? m->result_csv : m->details_csv);
            snprintf(w[i]->csv, sizeof w[i]->csv, "%s", csv ? csv : "");
        }
        st = match(d);
    }
    if (st != PC_OK) {
        pc_report_diff_free(d);
        return st;
    }
    *out = d;
    return PC_OK;
}

void pc_report_diff_free(pc_report_diff *d)
{
    if (!d)
        return;
    if (d->old.loaded)
        pc_rep_model_free(&d->old.m);
    if (d->new.loaded)
        pc_rep_model_free(&d->new.m);
    free(d->apis);
    free(d->moved);
    pc_arena_free(&d->arena);
    free(d);
}

size_t pc_report_diff_count(const pc_report_diff *d, pc_diff_change c)
{
    return (unsigned)c < PC_DIFF_CHANGE_COUNT ? d->counts[c] : 0;
}

size_t pc_report_diff_moved_apis(const pc_report_diff *d)
{
    return d->moved_apis;
}

size_t pc_report_diff_moved_rows(const pc_report_diff *d)
{
    return d->n_moved;
}

/* Whether one API has a change the bits name. */
static bool api_fails(const diff_api *x, unsigned fail_on)
{
    if (x->change == PC_DIFF_NEW_ERROR &&
        (fail_on & (PC_DIFF_FAIL_NEW_ERROR | PC_DIFF_FAIL_NEW_WARNING)))
        return true;
    if (x->new_warning && (fail_on & PC_DIFF_FAIL_NEW_WARNING))
        return true;
    if (x->moved_worse && (fail_on & PC_DIFF_FAIL_MOVED))
        return true;
    if (x->change == PC_DIFF_ONLY_OLD && (fail_on & PC_DIFF_FAIL_MISSING))
        return true;
    /* still failing is no change; a still failing API whose verdicts changed is one */
    bool changed = x->change != PC_DIFF_SAME && x->change != PC_DIFF_STILL;
    if (x->change == PC_DIFF_STILL)
        changed = x->o->fwd != x->n->fwd || x->o->bwd != x->n->bwd || x->o->cfwd != x->n->cfwd ||
                  x->o->cbwd != x->n->cbwd;
    return (fail_on & PC_DIFF_FAIL_ANY) && (changed || x->moved);
}

bool pc_report_diff_fails(const pc_report_diff *d, unsigned fail_on)
{
    for (size_t k = 0; k < d->n_apis; k++)
        if (api_fails(&d->apis[k], fail_on))
            return true;
    return false;
}

/* ---- the text ---- */

static const char *command_of(const pc_report_diff *d)
{
    return d->compare ? "api_precision_compare" : "run_ut";
}

static const char *ts_of(const pc_report_diff *d, const diff_side *s)
{
    return d->compare ? s->m.compare_ts : s->m.run_ut_ts;
}

static void verdicts(char *buf, size_t size, const rep_api *a, bool compare)
{
    if (!a) {
        snprintf(buf, size, "-");
        return;
    }
    rep_verdict f = compare ? a->cfwd : a->fwd, b = compare ? a->cbwd : a->bwd;
    snprintf(buf, size, "%s/%s", pc_rep_verdict_word(f),
             b == RV_SPACE ? "-" : pc_rep_verdict_word(b));
}

/* Why an API of a run is where it is: its worst row against its limit. */
static void why(char *buf, size_t size, const rep_api *a, bool compare)
{
    buf[0] = 0;
    if (!a)
        return;
    if (!compare && a->worst >= 0) {
        const rep_row *r = &a->rows[a->worst];
        if (r->status != RV_ERROR && r->status != RV_WARNING && r->status != RV_SKIP)
            return;
        tally_row t = {.set = true,
                       .backward = r->backward,
                       .output = r->output < 0 ? 0 : (size_t)r->output,
                       .status = (pc_verdict)r->status,
                       .decision = r->decision};
        snprintf(t.dtype, sizeof t.dtype, "%s", r->dtype ? r->dtype : "");
        snprintf(t.shape, sizeof t.shape, "%s", r->shape ? r->shape : "");
        if (r->status == RV_SKIP && r->message) {
            snprintf(buf, size, "%s", r->message);
            return;
        }
        pc_tally_row_text(&t, buf, size);
    } else if (compare && a->cworst >= 0 && a->crows[a->cworst].status == RV_ERROR) {
        const rep_crow *r = &a->crows[a->cworst];
        const char *msg = r->cell[CC_MESSAGE];
        size_t n = strcspn(msg, "\r\n");
        snprintf(buf, size, "%s: %.*s", r->name, (int)n, msg);
    }
}

static void print_list(const pc_report_diff *d, FILE *out, pc_diff_change c, const char *title,
                       size_t max_lines)
{
    if (!d->counts[c])
        return;
    fprintf(out, "\n%s (%zu):\n", title, d->counts[c]);
    size_t shown = 0;
    for (size_t k = 0; k < d->n_apis; k++) {
        const diff_api *x = &d->apis[k];
        if (x->change != c)
            continue;
        if (max_lines && shown == max_lines) {
            fprintf(out, "  ... and %zu more (--json FILE lists them all)\n", d->counts[c] - shown);
            break;
        }
        shown++;
        char vo[64], vn[64], w[1200];
        verdicts(vo, sizeof vo, x->o, d->compare);
        verdicts(vn, sizeof vn, x->n, d->compare);
        if (c == PC_DIFF_ONLY_OLD || c == PC_DIFF_ONLY_NEW) {
            fprintf(out, "  %s (%s)\n", x->name, c == PC_DIFF_ONLY_OLD ? vo : vn);
            continue;
        }
        why(w, sizeof w, c == PC_DIFF_FIXED ? x->o : x->n, d->compare);
        fprintf(out, "  %-40s %s -> %s%s%s%s\n", x->name, vo, vn, w[0] ? "   " : "",
                c == PC_DIFF_FIXED && w[0] ? "was: " : "", w);
    }
}

static void factor_text(char *buf, size_t size, double f)
{
    if (isinf(f))
        snprintf(buf, size, "inf");
    else
        snprintf(buf, size, "%.3g", f);
}

void pc_report_diff_print(const pc_report_diff *d, FILE *out, size_t max_lines)
{
    size_t both = d->n_apis - d->counts[PC_DIFF_ONLY_OLD] - d->counts[PC_DIFF_ONLY_NEW];
    size_t unchanged = 0;
    for (size_t k = 0; k < d->n_apis; k++)
        unchanged += !api_fails(&d->apis[k], PC_DIFF_FAIL_ANY) && d->apis[k].o && d->apis[k].n;
    fprintf(out, "precheck diff of %s runs\n  OLD %s (run %s)\n  NEW %s (run %s)\n", command_of(d),
            d->old.csv, ts_of(d, &d->old), d->new.csv, ts_of(d, &d->new));
    fprintf(out,
            "\n%zu newly failing, %zu fixed, %zu still failing, %zu other verdict changes, "
            "%zu with metrics moved more than %g times (%zu rows), %zu only in OLD, %zu only in "
            "NEW; %zu APIs in both, %zu of them unchanged (the same verdicts, no metric "
            "moved)\n",
            d->counts[PC_DIFF_NEW_ERROR], d->counts[PC_DIFF_FIXED], d->counts[PC_DIFF_STILL],
            d->counts[PC_DIFF_VERDICT], d->moved_apis, d->factor, d->n_moved,
            d->counts[PC_DIFF_ONLY_OLD], d->counts[PC_DIFF_ONLY_NEW], both, unchanged);
    fprintf(out, "(verdicts are forward/backward)\n");
    print_list(d, out, PC_DIFF_NEW_ERROR, "newly failing", max_lines);
    print_list(d, out, PC_DIFF_FIXED, "fixed", max_lines);
    print_list(d, out, PC_DIFF_STILL, "still failing", max_lines);
    print_list(d, out, PC_DIFF_VERDICT, "other verdict changes", max_lines);
    if (d->n_moved) {
        fprintf(out, "\nmetrics moved more than %g times (%zu rows of %zu APIs), worse first:\n",
                d->factor, d->n_moved, d->moved_apis);
        for (size_t i = 0; i < d->n_moved; i++) {
            if (max_lines && i == max_lines) {
                fprintf(out, "  ... and %zu more (--json FILE lists them all)\n", d->n_moved - i);
                break;
            }
            const diff_moved *m = &d->moved[i];
            char f[32];
            factor_text(f, sizeof f, m->factor);
            fprintf(out, "  %-48s %s: %s -> %s (x%s %s)\n", m->row, m->what, m->old_text,
                    m->new_text, f, m->worse ? "worse" : "better");
        }
    }
    print_list(d, out, PC_DIFF_ONLY_OLD, "only in OLD", max_lines);
    print_list(d, out, PC_DIFF_ONLY_NEW, "only in NEW", max_lines);
}

/* ---- JSON ---- */

static void jkey(pc_json_writer *w, const char *k)
{
    pc_json_write_key(w, k, strlen(k));
}

static void jstr(pc_json_writer *w, const char *k, const char *v)
{
    jkey(w, k);
    if (v)
        pc_json_write_string(w, v, strlen(v));
    else
        pc_json_write_null(w);
}

static void jnum(pc_json_writer *w, const char *k, double v)
{
    jkey(w, k);
    if (isfinite(v))
        pc_json_write_double(w, v);
    else
        pc_json_write_null(w);
}

static void jverdicts(pc_json_writer *w, const char *k, const rep_api *a, bool compare)
{
    jkey(w, k);
    if (!a) {
        pc_json_write_null(w);
        return;
    }
    rep_verdict f = compare ? a->cfwd : a->fwd, b = compare ? a->cbwd : a->bwd;
    pc_json_write_begin_object(w);
    jstr(w, "forward", compare ? a->cfwd_text : a->fwd_text);
    jstr(w, "backward", compare ? a->cbwd_text : a->bwd_text);
    if (!(compare ? a->cfwd_text : a->fwd_text)) { /* no result CSV: the words of the rows */
        jstr(w, "forward_from_rows", pc_rep_verdict_word(f));
        jstr(w, "backward_from_rows", pc_rep_verdict_word(b));
    }
    pc_json_write_end_object(w);
}

static void jside(pc_json_writer *w, const char *k, const pc_report_diff *d, const diff_side *s)
{
    jkey(w, k);
    pc_json_write_begin_object(w);
    jstr(w, "dir", s->dir);
    jstr(w, "run", ts_of(d, s));
    jstr(w, "csv", s->csv);
    jstr(w, "dump", d->compare ? NULL : s->m.info.dump);
    jstr(w, "device", d->compare ? NULL : s->m.info.device);
    pc_json_write_end_object(w);
}

pc_status pc_report_diff_write_json(const pc_report_diff *d, const char *path, unsigned fail_on)
{
    pc_file_out o;
    pc_status st = pc_file_out_open(&o, path, PC_FILE_OUT_REPLACE);
    if (st != PC_OK)
        return pc_error_prefix(st, "--json %s", path);
    pc_json_writer w;
    pc_json_writer_init(&w, o.f, 1, PC_JSON_ENSURE_ASCII);
    pc_json_write_begin_object(&w);
    jstr(&w, "kind", "precheck_diff");
    jkey(&w, "version");
    pc_json_write_int(&w, 1);
    jstr(&w, "command", command_of(d));
    jside(&w, "old", d, &d->old);
    jside(&w, "new", d, &d->new);
    jnum(&w, "factor", d->factor);
    jkey(&w, "counts");
    pc_json_write_begin_object(&w);
    for (int c = 0; c < PC_DIFF_CHANGE_COUNT; c++) {
        jkey(&w, change_keys[c]);
        pc_json_write_int(&w, (int64_t)d->counts[c]);
    }
    jkey(&w, "moved_apis");
    pc_json_write_int(&w, (int64_t)d->moved_apis);
    jkey(&w, "moved_rows");
    pc_json_write_int(&w, (int64_t)d->n_moved);
    pc_json_write_end_object(&w);
    jkey(&w, "fails");
    pc_json_write_bool(&w, fail_on && pc_report_diff_fails(d, fail_on));
    jkey(&w, "apis");
    pc_json_write_begin_array(&w);
    for (size_t k = 0; k < d->n_apis; k++) {
        const diff_api *x = &d->apis[k];
        if (x->change == PC_DIFF_SAME && !x->moved)
            continue;
        char wo[1200], wn[1200];
        why(wo, sizeof wo, x->o, d->compare);
        why(wn, sizeof wn, x->n, d->compare);
        pc_json_write_begin_object(&w);
        jstr(&w, "name", x->name);
        jstr(&w, "change", change_keys[x->change]);
        jverdicts(&w, "old", x->o, d->compare);
        jverdicts(&w, "new", x->n, d->compare);
        jstr(&w, "old_why", wo[0] ? wo : NULL);
        jstr(&w, "new_why", wn[0] ? wn : NULL);
        jkey(&w, "moved");
        pc_json_write_int(&w, (int64_t)x->moved);
        pc_json_write_end_object(&w);
    }
    pc_json_write_end_array(&w);
    jkey(&w, "moved");
    pc_json_write_begin_array(&w);
    for (size_t i = 0; i < d->n_moved; i++) {
        const diff_moved *m = &d->moved[i];
        double a = (double)NAN, b = (double)NAN;
        pc_rep_number(m->old_text, &a);
        pc_rep_number(m->new_text, &b);
        pc_json_write_begin_object(&w);
        jstr(&w, "api", d->apis[m->api].name);
        jstr(&w, "row", m->row);
        jstr(&w, "metric", m->what);
        jnum(&w, "old", a);
        jnum(&w, "new", b);
        jstr(&w, "old_text", m->old_text);
        jstr(&w, "new_text", m->new_text);
        jnum(&w, "factor", m->factor);
        jkey(&w, "worse");
        pc_json_write_bool(&w, m->worse);
        pc_json_write_end_object(&w);
    }
    pc_json_write_end_array(&w);
    pc_json_write_end_object(&w);
    fputc('\n', o.f);
    st = pc_json_writer_finish(&w);
    if (st == PC_OK)
        st = pc_file_out_commit(&o);
    else
        pc_file_out_abort(&o);
    pc_file_out_free(&o);
    return st == PC_OK ? PC_OK : pc_error_prefix(st, "--json %s", path);
}

/* ---- JUnit ---- */

pc_status pc_report_diff_write_junit(const pc_report_diff *d, const char *path, unsigned fail_on)
{
    rep_junit_case *cases = calloc(d->n_apis + 1, sizeof *cases);
    if (!cases)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    pc_arena texts = PC_ARENA_INIT; /* the cases' texts, for this file only */
    pc_arena *a = &texts;
    fail_on |= PC_DIFF_FAIL_NEW_ERROR;
    for (size_t k = 0; k < d->n_apis; k++) {
        const diff_api *x = &d->apis[k];
        rep_junit_case *c = &cases[k];
        pc_rep_junit_names(a, "diff", x->name, c);
        char msg[1600], vo[64], vn[64], w[1200];
        verdicts(vo, sizeof vo, x->o, d->compare);
        verdicts(vn, sizeof vn, x->n, d->compare);
        why(w, sizeof w, x->n ? x->n : x->o, d->compare);
        snprintf(msg, sizeof msg, "%s: %s -> %s%s%s", change_keys[x->change], vo, vn,
                 w[0] ? "; " : "", w);
        c->outcome = RJ_PASSED;
        if (x->change == PC_DIFF_ONLY_OLD &&
            !(fail_on & (PC_DIFF_FAIL_MISSING | PC_DIFF_FAIL_ANY))) {
            c->outcome = RJ_SKIPPED;
            snprintf(msg, sizeof msg, "in OLD only: NEW did not run this API");
        } else if (api_fails(x, fail_on)) {
            c->outcome = RJ_FAILURE;
            c->type = change_keys[x->change];
            if (x->moved_worse && x->change == PC_DIFF_SAME) {
                for (size_t i = 0; i < d->n_moved; i++)
                    if (d->moved[i].api == k) {
                        char f[32];
                        factor_text(f, sizeof f, d->moved[i].factor);
                        snprintf(msg, sizeof msg, "moved: %s %s: %s -> %s (x%s)", d->moved[i].row,
                                 d->moved[i].what, d->moved[i].old_text, d->moved[i].new_text, f);
                        break;
                    }
                c->type = "moved";
            }
        } else if (x->change != PC_DIFF_SAME || x->moved) {
            c->out = pc_arena_strdup(a, msg);
        }
        c->message = pc_arena_strdup(a, msg);
    }
    char stamp[32], title[128];
    pc_rep_junit_timestamp(ts_of(d, &d->new), stamp);
    snprintf(title, sizeof title, "precheck diff %s %s -> %s", command_of(d), ts_of(d, &d->old),
             ts_of(d, &d->new));
    pc_status st = pc_rep_junit_write(path, title, cases, d->n_apis, -1, stamp);
    free(cases);
    pc_arena_free(&texts);
    return st;
}

/* ---- report --baseline ---- */

static int by_api_name(const void *pa, const void *pb)
{
    return strcmp((*(const rep_api *const *)pa)->name, (*(const rep_api *const *)pb)->name);
}

pc_status pc_rep_diff_mark(const pc_report_diff *d, rep_model *m)
{
    rep_api **v = malloc((m->n_apis ? m->n_apis : 1) * sizeof *v);
    if (!v)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < m->n_apis; i++)
        v[i] = &m->apis[i];
    qsort(v, m->n_apis, sizeof *v, by_api_name);
    pc_status st = PC_OK;
    for (size_t k = 0; k < d->n_apis && st == PC_OK; k++) {
        const diff_api *x = &d->apis[k];
        if (!x->n || (x->change == PC_DIFF_SAME && !x->moved) || x->change == PC_DIFF_STILL)
            continue;
        rep_api key = {.name = x->name}, *kp = &key;
        rep_api **hit = bsearch(&kp, v, m->n_apis, sizeof *v, by_api_name);
        if (!hit)
            continue;
        static const struct {
            const char *word, *token;
        } marks[PC_DIFF_CHANGE_COUNT] = {
            [PC_DIFF_NEW_ERROR] = {"new error", "error"}, [PC_DIFF_FIXED] = {"fixed", "pass"},
            [PC_DIFF_VERDICT] = {"changed", "warning"},   [PC_DIFF_ONLY_NEW] = {"new", "skip"},
            [PC_DIFF_SAME] = {"moved", "warning"},
        };
        char title[256], vo[64], vn[64];
        verdicts(vo, sizeof vo, x->o, d->compare);
        verdicts(vn, sizeof vn, x->n, d->compare);
        if (x->change == PC_DIFF_ONLY_NEW)
            snprintf(title, sizeof title, "not in the baseline run");
        else
            snprintf(title, sizeof title, "since the baseline: %s -> %s (forward/backward)%s", vo,
                     vn, x->moved ? "; metrics moved" : "");
        rep_api *a = *hit;
        a->mark_word = marks[x->change].word;
        a->mark_token = marks[x->change].token;
        a->mark_title = pc_arena_strdup(&m->arena, title);
        if (!a->mark_title)
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    free(v);
    return st;
}

static void section_list(html_buf *b, const pc_report_diff *d, pc_diff_change c, const char *title)
{
    if (!d->counts[c])
        return;
    pc_hb_fmt(b, "<h3>%s (%zu)</h3><ul>", title, d->counts[c]);
    size_t shown = 0;
    for (size_t k = 0; k < d->n_apis; k++) {
        const diff_api *x = &d->apis[k];
        if (x->change != c)
            continue;
        if (shown++ == 50) {
            pc_hb_fmt(b, "<li>... and %zu more (precheck diff --json FILE lists them all)</li>",
                      d->counts[c] - 50);
            break;
        }
        char vo[64], vn[64], w[1200];
        verdicts(vo, sizeof vo, x->o, d->compare);
        verdicts(vn, sizeof vn, x->n, d->compare);
        why(w, sizeof w, c == PC_DIFF_FIXED || c == PC_DIFF_ONLY_OLD ? x->o : x->n, d->compare);
        pc_hb_raw(b, "<li><code>");
        pc_hb_text(b, x->name);
        pc_hb_raw(b, "</code> ");
        pc_hb_text(b, vo);
        pc_hb_raw(b, " &rarr; ");
        pc_hb_text(b, vn);
        if (w[0]) {
            pc_hb_raw(b, c == PC_DIFF_FIXED ? " <span class=\"muted\">was: "
                                            : " <span class=\"muted\">");
            pc_hb_text(b, w);
            pc_hb_raw(b, "</span>");
        }
        pc_hb_raw(b, "</li>");
    }
    pc_hb_raw(b, "</ul>");
}

void pc_rep_diff_section(html_buf *b, const pc_report_diff *d)
{
    pc_hb_raw(b, "<section class=\"card\" id=\"changes\"><h2>Changes since the baseline</h2>"
                 "<p class=\"muted\">precheck report --baseline: this run against ");
    pc_hb_text(b, d->old.csv);
    pc_hb_raw(b, " (run ");
    pc_hb_text(b, ts_of(d, &d->old));
    pc_hb_fmt(b,
              ") of the same dump, as <code>precheck diff</code> tells it; verdicts are "
              "forward/backward, a metric moved when it changed more than %g times "
              "(docs/diff.md).</p><p id=\"change-counts\">",
              d->factor);
    pc_hb_fmt(b,
              "<b>%zu</b> newly failing, <b>%zu</b> fixed, <b>%zu</b> still failing, <b>%zu</b> "
              "other verdict changes, <b>%zu</b> with metrics moved, <b>%zu</b> only in the "
              "baseline, <b>%zu</b> only in this run.</p>",
              d->counts[PC_DIFF_NEW_ERROR], d->counts[PC_DIFF_FIXED], d->counts[PC_DIFF_STILL],
              d->counts[PC_DIFF_VERDICT], d->moved_apis, d->counts[PC_DIFF_ONLY_OLD],
              d->counts[PC_DIFF_ONLY_NEW]);
    section_list(b, d, PC_DIFF_NEW_ERROR, "Newly failing");
    section_list(b, d, PC_DIFF_FIXED, "Fixed");
    section_list(b, d, PC_DIFF_VERDICT, "Other verdict changes");
    section_list(b, d, PC_DIFF_ONLY_OLD, "Only in the baseline");
    section_list(b, d, PC_DIFF_ONLY_NEW, "Only in this run");
    if (d->n_moved) {
        size_t n = d->n_moved < 20 ? d->n_moved : 20;
        pc_hb_fmt(b, "<h3>Metrics moved most (%zu of %zu)</h3><ul>", n, d->n_moved);
        for (size_t i = 0; i < n; i++) {
            const diff_moved *m = &d->moved[i];
            char f[32];
            factor_text(f, sizeof f, m->factor);
            pc_hb_raw(b, "<li><code>");
            pc_hb_text(b, m->row);
            pc_hb_raw(b, "</code> ");
            pc_hb_text(b, m->what);
            pc_hb_raw(b, ": ");
            pc_hb_text(b, m->old_text);
            pc_hb_raw(b, " &rarr; ");
            pc_hb_text(b, m->new_text);
            pc_hb_raw(b, " (&times;");
            pc_hb_text(b, f);
            pc_hb_raw(b, m->worse ? " worse)</li>" : " better)</li>");
        }
        pc_hb_raw(b, "</ul>");
    }
    pc_hb_raw(b, "</section>\n");
}
