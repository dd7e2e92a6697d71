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
    const char *s = pc_rep_strdup(&m->arena, buf);
    free(buf);
    return s;
}

static bool is_file(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
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
    DIR *d = opendir(opt->dir);
    if (!d)
        return pc_error_set(errno == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO,
                            "%s: cannot read the folder: %s", opt->dir, strerror(errno));
    ts_list result = {0}, details = {0}, cresult = {0}, cdetails = {0}, runs = {0}, cruns = {0};
    pc_status st = PC_OK;
    char ts[PC_REPORT_TS_LEN + 1];
    for (struct dirent *e = readdir(d); e && st == PC_OK; e = readdir(d)) {
        if (take_ts(e->d_name, "accuracy_checking_result_", ".csv", ts))
            st = ts_add(&result, ts);
        else if (take_ts(e->d_name, "accuracy_checking_details_", ".csv", ts))
            st = ts_add(&details, ts);
        else if (take_ts(e->d_name, "api_precision_compare_result_", ".csv", ts))
            st = ts_add(&cresult, ts);
        else if (take_ts(e->d_name, "api_precision_compare_details_", ".csv", ts))
            st = ts_add(&cdetails, ts);
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
        snprintf(name, sizeof name, "precheck_summary_%s.json", pick);
        m->summary_json = join(m, opt->dir, name);
        snprintf(name, sizeof name, "precheck_run_%s.json", pick);
        m->record_json = join(m, opt->dir, name);
        if (!is_file(m->summary_json))
            m->summary_json = NULL;
        if (!is_file(m->record_json))
            m->record_json = NULL;
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
    }
out:
    free(result.ts);
    free(details.ts);
    free(cresult.ts);
    free(cdetails.ts);
    free(runs.ts);
    free(cruns.ts);
    return st;
}

/* ---- the error data ---- */

void pc_rep_find_error_data(rep_model *m, const pc_report_options *opt)
{
    if (!m->run_ut_ts[0])
        return;
    char name[64];
    snprintf(name, sizeof name, "ut_error_data%s", m->run_ut_ts);
    const char *found = NULL;
    if (opt->error_data) {
        const char *base = strrchr(opt->error_data, '/');
        base = base && base[1] ? base + 1 : opt->error_data;
        const char *inside = join(m, opt->error_data, name);
        if (is_dir(inside))
            found = inside;
        else if (strncmp(base, "ut_error_data", 13) == 0 && is_dir(opt->error_data))
            found = pc_rep_strdup(&m->arena, opt->error_data);
        else
            pc_rep_note(m, "--error-data %s: neither it nor a folder %s in it holds error data.",
                        opt->error_data, name);
    }
    if (!found && m->info.error_data && is_dir(m->info.error_data))
        found = m->info.error_data;
    if (!found) {
        const char *here = join(m, opt->dir, name);
        if (is_dir(here))
            found = here;
    }
    m->error_dir = found;
    bool saved = false;
    for (size_t i = 0; i < m->info.n_settings; i++)
        if (strcmp(m->info.settings[i].key, "save_error_data") == 0 &&
            strcmp(m->info.settings[i].value, "yes") == 0)
            saved = true;
    if (!found && saved)
        pc_rep_note(m,
                    "The run saved its error data (-save_error_data) to %s, which is not there "
                    "any more; give its new place with --error-data DIR for the plots of the "
                    "tensors.",
                    m->info.error_data ? m->info.error_data : name);
}
