/*
 * Which runs a folder holds (the time stamps in msprobe's and precheck's file names), which of
 * them the page shows (the newest, or --run), their files, and where their -save_error_data
 * tensors are.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "precheck/core/log.h"
#include "precheck/io/path_check.h"
#include "report_impl.h"

/* ---- the folder ---- */

typedef struct ts_list {
    char (*ts)[PC_REPORT_TS_LEN + 1];
    size_t n, cap;
} ts_list;

static bool take_ts(const char *name, const char *prefix, const char *suffix,
                    char ts[PC_REPORT_TS_LEN + 1])
{
    size_t p = strlen(prefix), s = strlen(suffix), n = strlen(name);
    if (n != p + PC_REPORT_TS_LEN + s || strncmp(name, prefix, p) != 0 ||
        strcmp(name + p + PC_REPORT_TS_LEN, suffix) != 0)
        return false;
    for (size_t i = 0; i < PC_REPORT_TS_LEN; i++)
        if (name[p + i] < '0' || name[p + i] > '9')
            return false;
    memcpy(ts, name + p, PC_REPORT_TS_LEN);
    ts[PC_REPORT_TS_LEN] = 0;
    return true;
}

/* take_ts for the JSON files, whose name may carry a suffix _<n> before the extension (a writer
 * never overwrites: a taken name gets _1, _2, ...); *n is 0 without one. */
static bool take_ts_n(const char *name, const char *prefix, const char *suffix,
                      char ts[PC_REPORT_TS_LEN + 1], unsigned *n)
{
    *n = 0;
    size_t p = strlen(prefix), s = strlen(suffix), len = strlen(name);
    if (len < p + PC_REPORT_TS_LEN + s || strncmp(name, prefix, p) != 0 ||
        strcmp(name + len - s, suffix) != 0 || strspn(name + p, "0123456789") < PC_REPORT_TS_LEN)
        return false;
    const char *rest = name + p + PC_REPORT_TS_LEN; /* "" or "_<n>" before the suffix */
    size_t k = len - s - p - PC_REPORT_TS_LEN;
    if (k && (k < 2 || k > 7 || rest[0] != '_' || rest[1] == '0' ||
              strspn(rest + 1, "0123456789") != k - 1))
        return false;
    if (k)
        *n = (unsigned)strtoul(rest + 1, NULL, 10);
    memcpy(ts, name + p, PC_REPORT_TS_LEN);
    ts[PC_REPORT_TS_LEN] = 0;
    return true;
}

/* The JSON files of the folder: the summaries and run records, by time stamp and suffix. */
typedef enum json_kind { JK_SUMMARY, JK_CSUMMARY, JK_RECORD } json_kind;

typedef struct json_file {
    char ts[PC_REPORT_TS_LEN + 1];
    unsigned n;
    json_kind kind;
    const char *path;
} json_file;

typedef struct json_list {
    json_file *f;
    size_t n, cap;
} json_list;

static pc_status json_add(json_list *l, const json_file *f)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        void *p = realloc(l->f, cap * sizeof *l->f);
        if (!p)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        l->f = p;
        l->cap = cap;
    }
    l->f[l->n++] = *f;
    return PC_OK;
}

/* The files of kind and stamp ts, newest suffix first, into out (at most max); how many. */
static size_t json_pick(const json_list *l, json_kind kind, const char *ts, const char **out,
                        size_t max)
{
    size_t n = 0;
    for (;;) {
        const json_file *best = NULL;
        for (size_t i = 0; i < l->n; i++) {
            const json_file *f = &l->f[i];
            if (f->kind != kind || strcmp(f->ts, ts) != 0 || (best && f->n <= best->n))
                continue;
            bool taken = false;
            for (size_t k = 0; k < n; k++)
                taken = taken || out[k] == f->path;
            if (!taken)
                best = f;
        }
        if (!best || n == max)
            return n;
        out[n++] = best->path;
    }
}

static pc_status ts_add(ts_list *l, const char *ts)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->ts[i], ts) == 0)
            return PC_OK;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        void *p = realloc(l->ts, cap * sizeof *l->ts);
        if (!p)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        l->ts = p;
        l->cap = cap;
    }
    memcpy(l->ts[l->n++], ts, PC_REPORT_TS_LEN + 1);
    return PC_OK;
}

static bool ts_has(const ts_list *l, const char *ts)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->ts[i], ts) == 0)
            return true;
    return false;
}

static const char *ts_newest(const ts_list *l)
{
    const char *best = NULL;
    for (size_t i = 0; i < l->n; i++)
        if (!best || strcmp(l->ts[i], best) > 0)
            best = l->ts[i];
    return best;
}

/* The local time a 14-digit stamp names, or -1. */
static time_t ts_time(const char *ts)
{
    struct tm tm = {0};
    if (sscanf(ts, "%4d%2d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec) != 6)
        return (time_t)-1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

static const char *join(rep_model *m, const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *buf = malloc(n);
    if (!buf)
        return NULL;
    snprintf(buf, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
    const char *s = pc_arena_strdup(&m->arena, buf);
    free(buf);
    return s;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether the report may read the file or folder at path, which it found by itself: a soft link
 * is skipped with a WARNING naming it (run_ut's rule for what it reads: a link could put any
 * file of the machine on the page), and so is a CSV or JSON name that is not a regular file (a
 * FIFO would hang the report). A name that vanished is skipped in silence. */
static bool may_read(rep_model *m, const char *path, bool folder)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return false;
    if (S_ISLNK(st.st_mode)) {
        pc_log_warning("%s is a soft link: the report skips it (precheck reads no file through a "
                       "link it finds; put the file itself there to report on it).",
                       path);
        pc_rep_note(m, "Skipped %s: it is a soft link.", path);
        return false;
    }
    if (folder ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
        pc_log_warning("%s is not a regular %s: the report skips it.", path,
                       folder ? "folder" : "file");
        pc_rep_note(m, "Skipped %s: it is not a regular %s.", path, folder ? "folder" : "file");
        return false;
    }
    return true;
}

/* A details file of the run ts: the same stamp, or one a second or two off (msprobe's
 * multi_run_ut reads the clock twice for the two names). */
static const char *details_of(const ts_list *details, const char *ts)
{
    if (ts_has(details, ts))
        return ts;
    time_t t = ts_time(ts);
    for (size_t i = 0; i < details->n; i++) {
        time_t d = ts_time(details->ts[i]);
        if (t != (time_t)-1 && d != (time_t)-1 && fabs(difftime(d, t)) <= 2)
            return details->ts[i];
    }
    return NULL;
}

static void list_runs(char *out, size_t size, const ts_list *l)
{
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < l->n && used + 20 < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", l->ts[i]);
    if (!l->n)
        snprintf(out, size, "none");
}

pc_status pc_rep_find_runs(rep_model *m, const pc_report_options *opt)
{
    pc_status st = pc_path_check_not_link(opt->dir);
    if (st != PC_OK)
        return pc_error_prefix(st, "precheck report DIR: give the folder itself, not a link to it");
    DIR *d = opendir(opt->dir);
    if (!d)
        return pc_error_set(errno == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO,
                            "%s: cannot read the folder: %s", opt->dir, strerror(errno));
    ts_list result = {0}, details = {0}, cresult = {0}, cdetails = {0}, runs = {0}, cruns = {0};
    json_list jsons = {0};
    char ts[PC_REPORT_TS_LEN + 1];
    static const struct {
        const char *prefix, *suffix;
        json_kind kind; /* of the JSON files (the first four are the CSVs) */
    } names[] = {
        {"accuracy_checking_result_", ".csv", 0},
        {"accuracy_checking_details_", ".csv", 0},
        {"api_precision_compare_result_", ".csv", 0},
        {"api_precision_compare_details_", ".csv", 0},
        {"precheck_summary_", ".json", JK_SUMMARY},
        {"api_precision_compare_summary_", ".json", JK_CSUMMARY},
        {"precheck_run_", ".json", JK_RECORD},
    };
    ts_list *csvs[4] = {&result, &details, &cresult, &cdetails};
    for (struct dirent *e = readdir(d); e && st == PC_OK; e = readdir(d)) {
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            unsigned n = 0;
            if (k < 4 ? !take_ts(e->d_name, names[k].prefix, names[k].suffix, ts)
                      : !take_ts_n(e->d_name, names[k].prefix, names[k].suffix, ts, &n))
                continue;
            const char *path = join(m, opt->dir, e->d_name);
            if (!path) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory");
                break;
            }
            if (!may_read(m, path, false))
                break;
            if (k < 4) {
                st = ts_add(csvs[k], ts);
            } else {
                json_file f = {.n = n, .kind = names[k].kind, .path = path};
                memcpy(f.ts, ts, sizeof f.ts);
                st = json_add(&jsons, &f);
            }
            break;
        }
    }
    closedir(d);
    /* a run is a result CSV, or a details CSV without one (an interrupted msprobe run) */
    for (size_t i = 0; i < result.n && st == PC_OK; i++)
        st = ts_add(&runs, result.ts[i]);
    for (size_t i = 0; i < details.n && st == PC_OK; i++)
        if (!details_of(&result, details.ts[i]))
            st = ts_add(&runs, details.ts[i]);
    for (size_t i = 0; i < cresult.n && st == PC_OK; i++)
        st = ts_add(&cruns, cresult.ts[i]);
    for (size_t i = 0; i < cdetails.n && st == PC_OK; i++)
        st = ts_add(&cruns, cdetails.ts[i]);
    m->run_ut_runs = runs.n;
    m->compare_runs = cruns.n;
    if (st != PC_OK)
        goto out;
    if (!runs.n && !cruns.n) {
        st = pc_error_set(PC_ERR_NOT_FOUND,
                          "%s holds no CSV of run_ut (accuracy_checking_result_<ts>.csv) or of "
                          "api_precision_compare (api_precision_compare_result_<ts>.csv): give "
                          "the folder that run_ut's -o or api_precision_compare's -o named",
                          opt->dir);
        goto out;
    }
    const char *pick = ts_newest(&runs), *cpick = ts_newest(&cruns);
    if (opt->run) {
        if (ts_has(&runs, opt->run)) {
            pick = opt->run;
        } else if (ts_has(&cruns, opt->run)) {
            cpick = opt->run;
        } else {
            char a[512], b[512];
            list_runs(a, sizeof a, &runs);
            list_runs(b, sizeof b, &cruns);
            st = pc_error_set(PC_ERR_NOT_FOUND,
                              "%s has no run %s: its run_ut runs are %s; its "
                              "api_precision_compare runs are %s",
                              opt->dir, opt->run, a, b);
            goto out;
        }
    }
    if (pick) {
        snprintf(m->run_ut_ts, sizeof m->run_ut_ts, "%s", pick);
        char name[128];
        if (ts_has(&result, pick)) {
            snprintf(name, sizeof name, "accuracy_checking_result_%s.csv", pick);
            m->result_csv = join(m, opt->dir, name);
        } else {
            pc_rep_note(m,
                        "run_ut run %s has no result CSV (accuracy_checking_result_%s.csv): the "
                        "verdicts per API are taken from its details rows.",
                        pick, pick);
        }
        const char *dts = details_of(&details, pick);
        if (dts) {
            snprintf(name, sizeof name, "accuracy_checking_details_%s.csv", dts);
            m->details_csv = join(m, opt->dir, name);
        } else {
            pc_rep_note(m,
                        "run_ut run %s has no details CSV (accuracy_checking_details_%s.csv): no "
                        "metrics, only the verdicts.",
                        pick, pick);
        }
        /* its summary and record: the same stamp, the newest suffix first (a resume writes
         * another); report_load.c takes the first summary that is run_ut's */
        m->n_summary_try = json_pick(&jsons, JK_SUMMARY, pick, m->summary_try,
                                     sizeof m->summary_try / sizeof m->summary_try[0]);
        const char *record = NULL;
        if (json_pick(&jsons, JK_RECORD, pick, &record, 1))
            m->record_json = record;
        if (runs.n > 1)
            pc_rep_note(m,
                        "This folder holds %zu run_ut runs; this page shows %s%s (precheck report "
                        "--run TS shows another).",
                        runs.n, pick,
                        opt->run && strcmp(opt->run, pick) == 0 ? "" : ", the newest");
        /* the time taken, from the files alone: the last write after the start */
        struct stat fst;
        time_t t0 = ts_time(pick);
        const char *last = m->result_csv ? m->result_csv : m->details_csv;
        m->run_ut_seconds_from_files = -1;
        if (last && t0 != (time_t)-1 && stat(last, &fst) == 0 && difftime(fst.st_mtime, t0) >= 0)
            m->run_ut_seconds_from_files = difftime(fst.st_mtime, t0);
    }
    if (cpick) {
        snprintf(m->compare_ts, sizeof m->compare_ts, "%s", cpick);
        char name[128];
        if (ts_has(&cresult, cpick)) {
            snprintf(name, sizeof name, "api_precision_compare_result_%s.csv", cpick);
            m->cresult_csv = join(m, opt->dir, name);
        }
        if (ts_has(&cdetails, cpick)) {
            snprintf(name, sizeof name, "api_precision_compare_details_%s.csv", cpick);
            m->cdetails_csv = join(m, opt->dir, name);
        }
        if (cruns.n > 1)
            pc_rep_note(m,
                        "This folder holds %zu api_precision_compare runs; this page shows %s%s "
                        "(precheck report --run TS shows another).",
                        cruns.n, cpick,
                        opt->run && strcmp(opt->run, cpick) == 0 ? "" : ", the newest");
        /* its summary: api_precision_compare_summary_<ts>.json, or, written by an older precheck,
         * a precheck_summary_<ts>.json of kind api_precision_compare (report_load.c checks) */
        size_t max = sizeof m->csummary_try / sizeof m->csummary_try[0];
        m->n_csummary_try = json_pick(&jsons, JK_CSUMMARY, cpick, m->csummary_try, max);
        m->n_csummary_try +=
            json_pick(&jsons, JK_SUMMARY, cpick, m->csummary_try + m->n_csummary_try,
                      max - m->n_csummary_try);
        struct stat fst;
        time_t t0 = ts_time(cpick);
        const char *last = m->cresult_csv ? m->cresult_csv : m->cdetails_csv;
        m->compare_seconds_from_files = -1;
        if (last && t0 != (time_t)-1 && stat(last, &fst) == 0 && difftime(fst.st_mtime, t0) >= 0)
            m->compare_seconds_from_files = difftime(fst.st_mtime, t0);
    }
out:
    free(jsons.f);
    free(result.ts);
    free(details.ts);
    free(cresult.ts);
    free(cdetails.ts);
    free(runs.ts);
    free(cruns.ts);
    return st;
}

/* ---- the error data ---- */

pc_status pc_rep_find_error_data(rep_model *m, const pc_report_options *opt)
{
    if (!m->run_ut_ts[0])
        return PC_OK;
    char name[64];
    snprintf(name, sizeof name, "ut_error_data%s", m->run_ut_ts);
    const char *found = NULL;
    bool linked = false; /* a candidate was a link (skipped, with its warning): look no further */
    if (opt->error_data) {
        pc_status st = pc_path_check_not_link(opt->error_data);
        if (st != PC_OK)
            return pc_error_prefix(st, "--error-data: give the folder itself, not a link to it");
        const char *base = strrchr(opt->error_data, '/');
        base = base && base[1] ? base + 1 : opt->error_data;
        const char *inside = join(m, opt->error_data, name);
        if (inside && is_dir(inside)) {
            found = may_read(m, inside, true) ? inside : NULL;
            linked = !found;
        } else if (strncmp(base, "ut_error_data", 13) == 0 && is_dir(opt->error_data)) {
            found = pc_arena_strdup(&m->arena, opt->error_data);
        } else {
            pc_rep_note(m, "--error-data %s: neither it nor a folder %s in it holds error data.",
                        opt->error_data, name);
        }
    }
    const char *here = join(m, opt->dir, name);
    const char *const places[2] = {m->info.error_data, here};
    for (int i = 0; i < 2 && !found && !linked; i++)
        if (places[i] && is_dir(places[i])) {
            found = may_read(m, places[i], true) ? places[i] : NULL;
            linked = !found;
        }
    m->error_dir = found;
    bool saved = false;
    for (size_t i = 0; i < m->info.n_settings; i++)
        if (strcmp(m->info.settings[i].key, "save_error_data") == 0 &&
            strcmp(m->info.settings[i].value, "yes") == 0)
            saved = true;
    if (!found && !linked && saved)
        pc_rep_note(m,
                    "The run saved its error data (-save_error_data) to %s, which is not there "
                    "any more; give its new place with --error-data DIR for the plots of the "
                    "tensors.",
                    m->info.error_data ? m->info.error_data : name);
    return PC_OK;
}
