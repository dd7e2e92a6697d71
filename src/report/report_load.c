/*
 * The report's model of a folder: what the CSVs and JSON files of its runs (report_find.c
 * picks them) say, joined by API name. The CSVs are the truth of the page (a resumed run's CSVs
 * hold APIs its summary.json does not count); the JSON files add what the CSVs cannot say (the
 * device, the dump, the settings, the time taken).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/excerpt.h"
#include "precheck/core/strbuf.h"
#include "precheck/io/csv_read.h"
#include "precheck/io/json.h"
#include "precheck/io/msprobe_csv.h"
#include "precheck/io/path_check.h"
#include "report_impl.h"
#include "tally.h"

/* ---- verdict words ---- */

rep_verdict pc_rep_verdict_of(const char *cell)
{
    if (!cell)
        return RV_NONE;
    static const char *const words[] = {"pass", "Warning", "error", "SKIP", " "};
    for (int v = 0; v < 5; v++)
        if (strcmp(cell, words[v]) == 0)
            return (rep_verdict)v;
    return cell[0] ? RV_OTHER : RV_SPACE;
}

const char *pc_rep_verdict_word(rep_verdict v)
{
    static const char *const words[RV_COUNT] = {"pass",         "Warning", "error", "SKIP",
                                                "not compared", "-",       "other"};
    return (unsigned)v < RV_COUNT ? words[v] : "other";
}

const char *pc_rep_verdict_token(rep_verdict v)
{
    static const char *const tokens[RV_COUNT] = {"pass", "warning", "error", "skip",
                                                 "none", "absent",  "other"};
    return (unsigned)v < RV_COUNT ? tokens[v] : "other";
}

int pc_rep_verdict_severity(rep_verdict v)
{
    return v == RV_ERROR ? 3 : v == RV_WARNING ? 2 : v == RV_PASS ? 1 : 0;
}

bool pc_rep_number(const char *cell, double *out)
{
    if (!cell)
        return false;
    while (*cell == ' ')
        cell++;
    if (!*cell)
        return false;
    if (strcmp(cell, "nan") == 0 || strcmp(cell, "NaN") == 0 || strcmp(cell, "-nan") == 0) {
        *out = (double)NAN;
        return true;
    }
    if (strcmp(cell, "inf") == 0 || strcmp(cell, "-inf") == 0) {
        *out = cell[0] == '-' ? -HUGE_VAL : HUGE_VAL;
        return true;
    }
    /* digits, a sign, a point and an exponent only: strtod would also take "infinity", hex */
    for (const char *p = cell; *p && *p != ' '; p++)
        if (!strchr("0123456789+-.eE", *p))
            return false;
    char *end;
    double v = strtod(cell, &end);
    while (*end == ' ')
        end++;
    if (end == cell || *end)
        return false;
    *out = v;
    return true;
}

/* ---- notes ---- */

void pc_rep_note(rep_model *m, const char *fmt, ...)
{
    if (m->n_notes == sizeof m->notes / sizeof m->notes[0])
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    const char *s = pc_arena_strdup(&m->arena, buf);
    if (s)
        m->notes[m->n_notes++] = s;
}

/* ---- the APIs, by name ---- */

static const char *type_of(rep_model *m, const char *name)
{
    size_t n = strcspn(name, ".");
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), name);
    return pc_arena_strdup(&m->arena, buf);
}

/* items, an array of *cap elements of size bytes whose first count are used, with room for
 * one more: grown (to first elements, then twice as many) when full. NULL when out of memory
 * (the message is set; items stays as it was). */
static void *room_for_one(void *items, size_t count, size_t *cap, size_t size, size_t first)
{
    if (count < *cap)
        return items;
    size_t n = *cap ? 2 * *cap : first;
    void *p = n <= SIZE_MAX / size ? realloc(items, n * size) : NULL;
    if (!p) {
        pc_error_set(PC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    *cap = n;
    return p;
}

/* The API named name, made when new. NULL when out of memory (the message is set). */
static rep_api *api_get(rep_model *m, const char *name)
{
    size_t len = strlen(name);
    uint64_t hash = pc_hash_fnv1a64(name, len);
    pc_strmap_entry *e = pc_strmap_find_hashed(&m->index, name, len, hash);
    if (e)
        return &m->apis[e->value.index];
    rep_api *apis = room_for_one(m->apis, m->n_apis, &m->cap_apis, sizeof *apis, 256);
    if (!apis)
        return NULL;
    m->apis = apis;
    rep_api *a = &m->apis[m->n_apis];
    memset(a, 0, sizeof *a);
    a->name = pc_arena_strdup(&m->arena, name);
    a->type = type_of(m, name);
    if (!a->name || !a->type) {
        pc_error_set(PC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    a->order = m->n_apis;
    a->fwd = a->bwd = a->cfwd = a->cbwd = RV_NONE;
    a->message = a->cmessage = "";
    a->fwd_text = a->bwd_text = a->cfwd_text = a->cbwd_text = "";
    a->worst = a->cworst = -1;
    /* the key is the copy in the arena, which lives as long as the map */
    e = pc_strmap_put_hashed(&m->index, a->name, len, hash, NULL);
    if (!e) {
        pc_error_set(PC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    e->value.index = m->n_apis++;
    return a;
}

rep_api *pc_rep_api_find(const rep_model *m, const char *name)
{
    size_t len = strlen(name);
    const pc_strmap_entry *e =
        pc_strmap_find_hashed(&m->index, name, len, pc_hash_fnv1a64(name, len));
    return e ? &m->apis[e->value.index] : NULL;
}

/* "X.forward.output.3" -> api "X", backward false, output 3 (io/msprobe_csv.h); a name
 * without that ending, or with an output past 1000000, is its own API (output -1). The API's
 * name is the text of api (valid until api changes); NULL when out of memory (message set). */
static const char *split_row_name(const char *name, pc_strbuf *api, bool *backward, int *output)
{
    pc_mcsv_row row;
    size_t len = strlen(name);
    bool ok = pc_mcsv_row_parse(name, len, &row) && row.output <= 1000000;
    pc_strbuf_truncate(api, 0);
    pc_strbuf_append(api, name, ok ? row.api_len : len);
    *backward = ok && row.backward;
    *output = ok ? (int)row.output : -1;
    if (pc_strbuf_error(api)) {
        pc_error_set(PC_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return pc_strbuf_str(api);
}

/* ---- the JSON files ---- */

static const char *jstr(rep_model *m, const pc_json_doc *doc, pc_json_ref obj, const char *key)
{
    const char *s = pc_json_string(doc, pc_json_object_get(doc, obj, key), NULL);
    return s ? pc_arena_strdup(&m->arena, s) : NULL;
}

static long jlong(const pc_json_doc *doc, pc_json_ref obj, const char *key)
{
    int64_t v;
    return pc_json_get_int64(doc, pc_json_object_get(doc, obj, key), &v) == PC_OK ? (long)v : -1;
}

static const char *base_of(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path;
}

/* Why a summary is not the run's, or NULL when it is: its "kind" (none: run_ut's, from before
 * there were two) and the CSV it names (when both are known: a folder moved keeps the names). */
static const char *not_of_run(const pc_json_doc *doc, const char *kind, const char *result_csv,
                              const char *details_csv)
{
    pc_json_ref root = pc_json_root(doc), run = pc_json_object_get(doc, root, "run");
    const char *k = pc_json_string(doc, pc_json_object_get(doc, root, "kind"), NULL);
    if (strcmp(k ? k : "run_ut", kind) != 0)
        return "the other command's";
    const char *r = pc_json_string(doc, pc_json_object_get(doc, run, "result_csv"), NULL);
    const char *d = pc_json_string(doc, pc_json_object_get(doc, run, "details_csv"), NULL);
    if (r && result_csv)
        return strcmp(base_of(r), base_of(result_csv)) == 0 ? NULL : "of another result CSV";
    if (d && details_csv)
        return strcmp(base_of(d), base_of(details_csv)) == 0 ? NULL : "of another details CSV";
    return NULL;
}

/* The first of the n summaries at try that is the run's (kind, CSVs), parsed into *out; NULL
 * when none is. *problem: why the first that could not be read was not (NULL when all could);
 * *other: a summary of the stamp that is the other command's, or NULL. */
static const char *find_summary(rep_model *m, const char *const *try, size_t n, const char *kind,
                                const char *result_csv, const char *details_csv, pc_json_doc **out,
                                const char **problem, const char **other)
{
    *problem = *other = NULL;
    for (size_t i = 0; i < n; i++) {
        pc_json_doc *doc = NULL;
        if (pc_json_parse_file(&doc, try[i]) != PC_OK) {
            if (!*problem)
                *problem = pc_arena_strdup(&m->arena, pc_error_message());
            continue;
        }
        const char *schema =
            pc_json_string(doc, pc_json_object_get(doc, pc_json_root(doc), "schema"), NULL);
        const char *why = !schema || strcmp(schema, "precheck-summary") != 0
                              ? "not a precheck summary (no \"schema\": \"precheck-summary\")"
                              : not_of_run(doc, kind, result_csv, details_csv);
        if (!why) {
            *out = doc;
            return try[i];
        }
        if (strcmp(why, "the other command's") == 0) {
            if (!*other)
                *other = try[i];
        } else if (!*problem) {
            char text[512];
            snprintf(text, sizeof text, "%s is %s", base_of(try[i]), why);
            *problem = pc_arena_strdup(&m->arena, text);
        }
        pc_json_free(doc);
    }
    return NULL;
}

static void read_summary(rep_model *m)
{
    rep_run_info *in = &m->info;
    pc_json_doc *doc = NULL;
    const char *other;
    m->summary_json = find_summary(m, m->summary_try, m->n_summary_try, "run_ut", m->result_csv,
                                   m->details_csv, &doc, &in->summary_problem, &other);
    if (!m->summary_json) {
        if (other && !in->summary_problem)
            pc_rep_note(m,
                        "%s is not this run_ut run's summary but api_precision_compare's (an "
                        "older precheck gave both commands' summaries one name, and the later "
                        "replaced the earlier): the run's device, time and counts are not "
                        "known; its command and settings come from its run record.",
                        base_of(other));
        return;
    }
    in->summary_problem = NULL;
    pc_json_ref root = pc_json_root(doc);
    pc_json_ref run = pc_json_object_get(doc, root, "run");
    in->has_summary = true;
    in->device = jstr(m, doc, run, "device");
    in->dump = jstr(m, doc, run, "dump");
    in->command = jstr(m, doc, run, "command");
    in->started = jstr(m, doc, run, "started");
    double secs;
    if (pc_json_get_double(doc, pc_json_object_get(doc, run, "seconds"), &secs) == PC_OK &&
        isfinite(secs) && secs >= 0)
        in->seconds = secs;
    bool b;
    if (pc_json_get_bool(doc, pc_json_object_get(doc, run, "interrupted"), &b) == PC_OK)
        in->interrupted = b;
    in->planned = jlong(doc, run, "apis_planned");
    in->done = jlong(doc, run, "apis_done");
    in->earlier = jlong(doc, run, "apis_from_earlier_run");
    m->summary_doc = doc;
}

static void read_compare_summary(rep_model *m)
{
    rep_compare_info *in = &m->cinfo;
    pc_json_doc *doc = NULL;
    const char *other;
    m->csummary_json =
        find_summary(m, m->csummary_try, m->n_csummary_try, "api_precision_compare", m->cresult_csv,
                     m->cdetails_csv, &doc, &in->summary_problem, &other);
    if (!m->csummary_json)
        return;
    in->summary_problem = NULL;
    pc_json_ref run = pc_json_object_get(doc, pc_json_root(doc), "run");
    in->has_summary = true;
    in->command = jstr(m, doc, run, "command");
    in->started = jstr(m, doc, run, "started");
    in->npu_csv = jstr(m, doc, run, "npu_csv");
    in->gpu_csv = jstr(m, doc, run, "gpu_csv");
    double secs;
    if (pc_json_get_double(doc, pc_json_object_get(doc, run, "seconds"), &secs) == PC_OK &&
        isfinite(secs) && secs >= 0)
        in->seconds = secs;
    m->csummary_doc = doc;
}

/* A merged folder's record names the shards' records ("a; b; ..."): each shard's run is in
 * the summary beside its record (precheck_summary_<ts>.json of the record's <ts>). A shard
 * whose files are gone is left out. */
static void read_shards(rep_model *m, const char *list)
{
    rep_run_info *in = &m->info;
    const char *p = list;
    while (*p && in->n_shards < sizeof in->shards / sizeof in->shards[0]) {
        size_t len = strcspn(p, ";");
        char record[PC_PATH_BUFFER_SIZE + 128];
        snprintf(record, sizeof record, "%.*s", (int)len, p);
        p += len;
        while (*p == ';' || *p == ' ')
            p++;
        char *name = strrchr(record, '/');
        name = name ? name + 1 : record;
        if (strncmp(name, "precheck_run_", 13) != 0)
            continue;
        char summary[sizeof record + 16];
        snprintf(summary, sizeof summary, "%.*sprecheck_summary_%s", (int)(name - record), record,
                 name + 13);
        pc_json_doc *doc = NULL;
        if (pc_path_check_not_link(summary) != PC_OK || pc_json_parse_file(&doc, summary) != PC_OK)
            continue;
        pc_json_ref run = pc_json_object_get(doc, pc_json_root(doc), "run");
        size_t k = in->n_shards++;
        in->shards[k].command = jstr(m, doc, run, "command");
        in->shards[k].started = jstr(m, doc, run, "started");
        double secs;
        in->shards[k].seconds =
            pc_json_get_double(doc, pc_json_object_get(doc, run, "seconds"), &secs) == PC_OK &&
                    isfinite(secs) && secs >= 0
                ? secs
                : -1;
        pc_json_free(doc);
    }
}

static void read_record(rep_model *m)
{
    rep_run_info *in = &m->info;
    pc_json_doc *doc = NULL;
    if (pc_json_parse_file(&doc, m->record_json) != PC_OK) {
        in->record_problem = pc_arena_strdup(&m->arena, pc_error_message());
        return;
    }
    pc_json_ref root = pc_json_root(doc);
    in->has_record = true;
    if (!in->command)
        in->command = jstr(m, doc, root, "command");
    for (int pass = 0; pass < 2; pass++) {
        pc_json_ref obj = pc_json_object_get(doc, root, pass == 0 ? "identity" : "about");
        for (pc_json_ref k = pc_json_first(doc, obj);
             k != PC_JSON_NONE && in->n_settings < sizeof in->settings / sizeof in->settings[0];
             k = pc_json_next(doc, k)) {
            const char *key = pc_json_string(doc, k, NULL);
            const char *value = pc_json_string(doc, pc_json_member_value(doc, k), NULL);
            if (!key || !value)
                continue;
            rep_setting *s = &in->settings[in->n_settings++];
            s->key = pc_arena_strdup(&m->arena, key);
            s->value = pc_arena_strdup(&m->arena, value);
            s->decides = pass == 0;
            if (pass == 1 && strcmp(key, "dump") == 0 && !in->dump)
                in->dump = s->value;
            if (pass == 1 && strcmp(key, "error_data") == 0)
                in->error_data = s->value;
            if (pass == 1 && strcmp(key, "backend") == 0 && !in->device)
                in->device = s->value;
            if (pass == 1 && strcmp(key, "merged_from") == 0)
                read_shards(m, s->value);
        }
    }
    pc_json_free(doc);
}

/* ---- the CSVs ---- */

typedef struct csv_file {
    pc_csv_reader *r;
    const char *path;
    size_t ncols;
    const char *header[64];
    rep_model *m;
} csv_file;

static pc_status csv_open(csv_file *f, rep_model *m, const char *path)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->m = m;
    pc_status st = pc_csv_reader_open(path, &f->r);
    bool has = false;
    if (st == PC_OK)
        st = pc_csv_reader_next(f->r, &has);
    if (st != PC_OK)
        return st;
    if (!has)
        return pc_error_set(PC_ERR_FORMAT, "%s is empty: it has no header row", path);
    f->ncols = pc_csv_reader_field_count(f->r);
    if (f->ncols > 64)
        f->ncols = 64;
    for (size_t i = 0; i < f->ncols; i++) {
        f->header[i] = pc_arena_strdup(&m->arena, pc_csv_reader_field(f->r, i, NULL));
        if (!f->header[i])
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    return PC_OK;
}

static int csv_col(const csv_file *f, const char *name)
{
    for (size_t i = 0; i < f->ncols; i++)
        if (strcmp(f->header[i], name) == 0)
            return (int)i;
    return -1;
}

/* The column of run_ut's details CSV named as header column col, or -1. */
static int details_col(const csv_file *f, pc_mcsv_details_col col)
{
    return csv_col(f, pc_mcsv_column(PC_MCSV_DETAILS, (size_t)col));
}

/* The current record's cell of column col, copied ("" when missing); NULL when out of memory. */
static const char *csv_cell(csv_file *f, int col)
{
    const char *s = col >= 0 ? pc_csv_reader_field(f->r, (size_t)col, NULL) : NULL;
    return pc_arena_strdup(&f->m->arena, s ? s : "");
}

static pc_status not_ours(const csv_file *f, const char *what)
{
    pc_excerpt ex;
    return pc_error_set(PC_ERR_FORMAT, "%s is not %s: its header starts with %s", f->path, what,
                        pc_excerpt_of(&ex, f->ncols ? f->header[0] : ""));
}

static pc_status read_result(rep_model *m, const char *path, bool compare)
{
    csv_file f;
    pc_status st = csv_open(&f, m, path);
    pc_mcsv_kind kind = compare ? PC_MCSV_PCMP_RESULT : PC_MCSV_RESULT;
    int name = csv_col(&f, pc_mcsv_column(kind, PC_MCSV_RES_API_NAME));
    int fwd = csv_col(&f, pc_mcsv_column(kind, PC_MCSV_RES_FORWARD));
    int bwd = csv_col(&f, pc_mcsv_column(kind, PC_MCSV_RES_BACKWARD));
    int msg = csv_col(&f, pc_mcsv_column(kind, PC_MCSV_RES_MESSAGE));
    if (st == PC_OK && (name < 0 || fwd < 0 || bwd < 0))
        st = not_ours(&f, compare ? "an api_precision_compare result CSV"
                                  : "an accuracy_checking_result CSV of run_ut");
    bool has = true;
    while (st == PC_OK && (st = pc_csv_reader_next(f.r, &has)) == PC_OK && has) {
        const char *n = csv_cell(&f, name);
        rep_api *a = n ? api_get(m, n) : NULL;
        const char *v0 = csv_cell(&f, fwd), *v1 = csv_cell(&f, bwd), *mm = csv_cell(&f, msg);
        if (!a || !v0 || !v1 || !mm) {
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
            break;
        }
        rep_verdict f0 = pc_rep_verdict_of(v0), f1 = pc_rep_verdict_of(v1);
        if (compare) {
            a->cfwd = f0;
            a->cbwd = f1;
            a->cfwd_text = v0;
            a->cbwd_text = v1;
            a->cmessage = mm;
            m->ccounts[0][f0]++;
            m->ccounts[1][f1]++;
        } else {
            a->fwd = f0;
            a->bwd = f1;
            a->fwd_text = v0;
            a->bwd_text = v1;
            a->message = mm;
            m->counts[0][f0]++;
            m->counts[1][f1]++;
        }
    }
    pc_csv_reader_free(f.r);
    return st;
}

/* msprobe's status rule read back from a details row: the cascade cosine, max absolute error,
 * the shares of relative errors within 1% / 0.1% / 0.01% stops at the metric that decides and
 * leaves the later cells blank, so the decider is the last of them that has a value; an
 * integer output is judged by its error rate alone. */
static void decide(rep_row *r)
{
    static const struct {
        pc_metric metric;
        double limit;
    } cascade[] = {
        {PC_METRIC_COSINE, 0.99},
        {PC_METRIC_MAX_ABS_ERR, 0.001},
        {PC_METRIC_REL_ERR_HUNDREDTH, 0.99},
        {PC_METRIC_REL_ERR_THOUSANDTH, 0.999},
        {PC_METRIC_REL_ERR_TEN_THOUSANDTH, 0.9999},
    };
    r->decision = (pc_row_decision){-1, 0, 0};
    if (r->status != RV_PASS && r->status != RV_WARNING && r->status != RV_ERROR)
        return;
    double v;
    for (size_t i = 0; i < sizeof cascade / sizeof cascade[0]; i++)
        if (pc_rep_number(r->cell[cascade[i].metric], &v))
            r->decision = (pc_row_decision){(int)cascade[i].metric, v, cascade[i].limit};
    if (r->decision.metric < 0 && pc_rep_number(r->cell[PC_METRIC_ERROR_RATE], &v))
        r->decision = (pc_row_decision){PC_METRIC_ERROR_RATE, v, 0};
    r->badness = pc_tally_badness(&r->decision, (pc_verdict)r->status);
}

static pc_status read_details(rep_model *m)
{
    csv_file f;
    pc_status st = csv_open(&f, m, m->details_csv);
    int name = details_col(&f, PC_MCSV_DET_API_NAME), status = details_col(&f, PC_MCSV_DET_STATUS);
    int bench = details_col(&f, PC_MCSV_DET_BENCH_DTYPE);
    int dtype = details_col(&f, PC_MCSV_DET_DEVICE_DTYPE);
    int shape = details_col(&f, PC_MCSV_DET_SHAPE), msg = details_col(&f, PC_MCSV_DET_MESSAGE);
    int metric[PC_METRIC_COUNT];
    for (int i = 0; i < PC_METRIC_COUNT; i++)
        metric[i] = csv_col(&f, pc_metric_column((pc_metric)i));
    if (st == PC_OK && (name < 0 || status < 0 || dtype < 0))
        st = not_ours(&f, "an accuracy_checking_details CSV of run_ut");
    bool has = true;
    char api_text[256];
    pc_strbuf api;
    pc_strbuf_init(&api, api_text, sizeof api_text, 0);
    while (st == PC_OK && (st = pc_csv_reader_next(f.r, &has)) == PC_OK && has) {
        rep_row r;
        memset(&r, 0, sizeof r);
        r.name = csv_cell(&f, name);
        r.bench_dtype = csv_cell(&f, bench);
        r.dtype = csv_cell(&f, dtype);
        r.shape = csv_cell(&f, shape);
        r.status_text = csv_cell(&f, status);
        r.message = csv_cell(&f, msg);
        bool ok = r.name && r.bench_dtype && r.dtype && r.shape && r.status_text && r.message;
        for (int i = 0; i < PC_METRIC_COUNT && ok; i++)
            ok = (r.cell[i] = csv_cell(&f, metric[i])) != NULL;
        if (!ok) {
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
            break;
        }
        const char *api_name = split_row_name(r.name, &api, &r.backward, &r.output);
        r.status = pc_rep_verdict_of(r.status_text);
        decide(&r);
        rep_api *a = api_name ? api_get(m, api_name) : NULL;
        rep_row *rows = a ? room_for_one(a->rows, a->n_rows, &a->cap_rows, sizeof *rows, 4) : NULL;
        if (!rows) {
            st = PC_ERR_NOMEM;
            break;
        }
        a->rows = rows;
        a->rows[a->n_rows++] = r;
        m->n_rows++;
    }
    pc_strbuf_reset(&api);
    pc_csv_reader_free(f.r);
    return st;
}

static pc_status read_compare_details(rep_model *m)
{
    csv_file f;
    pc_status st = csv_open(&f, m, m->cdetails_csv);
    const char *const *header = pc_pcmp_details_header();
    int col[PC_PCMP_DETAILS_COLUMNS];
    for (int i = 0; i < PC_PCMP_DETAILS_COLUMNS; i++)
        col[i] = csv_col(&f, header[i]);
    if (st == PC_OK && (col[CC_NAME] < 0 || col[CC_RESULT] < 0))
        st = not_ours(&f, "an api_precision_compare details CSV");
    bool has = true;
    char api_text[256];
    pc_strbuf api;
    pc_strbuf_init(&api, api_text, sizeof api_text, 0);
    while (st == PC_OK && (st = pc_csv_reader_next(f.r, &has)) == PC_OK && has) {
        rep_crow r;
        memset(&r, 0, sizeof r);
        bool ok = true;
        for (int i = 0; i < PC_PCMP_DETAILS_COLUMNS && ok; i++)
            ok = (r.cell[i] = csv_cell(&f, col[i])) != NULL;
        if (!ok) {
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
            break;
        }
        r.name = r.cell[CC_NAME];
        const char *api_name = split_row_name(r.name, &api, &r.backward, &r.output);
        r.status = pc_rep_verdict_of(r.cell[CC_RESULT]);
        rep_api *a = api_name ? api_get(m, api_name) : NULL;
        rep_crow *crows =
            a ? room_for_one(a->crows, a->n_crows, &a->cap_crows, sizeof *crows, 4) : NULL;
        if (!crows) {
            st = PC_ERR_NOMEM;
            break;
        }
        a->crows = crows;
        a->crows[a->n_crows++] = r;
        m->n_crows++;
    }
    pc_strbuf_reset(&api);
    pc_csv_reader_free(f.r);
    return st;
}

/* ---- the order of the table ---- */

/* msprobe's row for a None output: a SKIP row that leaves its direction's verdict alone. */
#define NONE_OUTPUT "Bench output is None, skip this test."

/* error, Warning, then what did not run (SKIP, other words), then pass, then nothing. */
static int table_rank(rep_verdict v)
{
    switch (v) {
    case RV_ERROR:
        return 4;
    case RV_WARNING:
        return 3;
    case RV_SKIP:
    case RV_OTHER:
        return 2;
    case RV_PASS:
        return 1;
    default:
        return 0;
    }
}

static void rank_api(rep_api *a)
{
    for (size_t i = 0; i < a->n_rows; i++) {
        const rep_row *r = &a->rows[i];
        int sv = pc_rep_verdict_severity(r->status);
        if (a->worst >= 0) {
            const rep_row *w = &a->rows[a->worst];
            int ws = pc_rep_verdict_severity(w->status);
            if (sv < ws || (sv == ws && !(r->badness > w->badness)))
                continue;
        }
        a->worst = (long)i;
    }
    /* a real NPU/GPU difference before a row the rule alone fails ("rule, not device") */
    size_t cerrors = 0, crules = 0;
    for (size_t i = 0; i < a->n_crows; i++) {
        const rep_crow *c = &a->crows[i], *w = a->cworst >= 0 ? &a->crows[a->cworst] : NULL;
        int sv = 2 * (c->status == RV_ERROR ? 3 : c->status == RV_SKIP ? 2 : 1) + !c->rule;
        int ws = !w ? -1
                    : 2 * (w->status == RV_ERROR  ? 3
                           : w->status == RV_SKIP ? 2
                                                  : 1) +
                          !w->rule;
        if (sv > ws)
            a->cworst = (long)i;
        cerrors += c->status == RV_ERROR;
        crules += c->status == RV_ERROR && c->rule;
    }
    a->crule_only = cerrors > 0 && crules == cerrors;
    /* an API known only from its details rows: its verdicts from them, as msprobe made them
     * (a SKIP row of a None output leaves the verdict pass; a direction is SKIP when its one
     * row is the SKIP row of a message) */
    if (a->fwd == RV_NONE && a->n_rows) {
        pc_verdict f[2] = {PC_VERDICT_PASS, PC_VERDICT_PASS};
        size_t rows[2] = {0, 0};
        bool skip[2] = {false, false};
        for (size_t i = 0; i < a->n_rows; i++) {
            int d = a->rows[i].backward;
            rep_verdict s = a->rows[i].status;
            rows[d]++;
            skip[d] = s == RV_SKIP && strcmp(a->rows[i].message, NONE_OUTPUT) != 0;
            if (s == RV_ERROR || (s == RV_WARNING && f[d] != PC_VERDICT_ERROR))
                f[d] = (pc_verdict)s;
        }
        a->fwd = !rows[0] ? RV_NONE : rows[0] == 1 && skip[0] ? RV_SKIP : (rep_verdict)f[0];
        a->bwd = !rows[1] ? RV_SPACE : rows[1] == 1 && skip[1] ? RV_SKIP : (rep_verdict)f[1];
    }
    int r0 = table_rank(a->fwd) > table_rank(a->bwd) ? table_rank(a->fwd) : table_rank(a->bwd);
    int r1 = table_rank(a->cfwd) > table_rank(a->cbwd) ? table_rank(a->cfwd) : table_rank(a->cbwd);
    /* api_precision_compare's errors first (the verdict msprobe users act on), then run_ut's
     * order, then the rest of api_precision_compare's */
    a->severity = (r1 == 4 && !a->crule_only) * 64 + r0 * 8 + r1;
    a->badness = a->worst >= 0 ? a->rows[a->worst].badness : 0;
}

/* ---- the whole model ---- */

pc_status pc_rep_model_load(rep_model *m, const pc_report_options *opt)
{
    memset(m, 0, sizeof *m);
    pc_arena_init(&m->arena, 1 << 16, 0); /* a report holds little: no 4 MiB chunks */
    m->dir = opt->dir;
    m->info.seconds = -1;
    m->info.planned = m->info.done = m->info.earlier = -1;
    m->run_ut_seconds_from_files = m->compare_seconds_from_files = -1;
    m->cinfo.seconds = -1;
    pc_status st = pc_rep_find_runs(m, opt);
    if (st != PC_OK)
        return st;
    if (m->n_summary_try)
        read_summary(m);
    if (m->n_csummary_try)
        read_compare_summary(m);
    if (m->record_json)
        read_record(m);
    if (m->info.summary_problem)
        pc_rep_note(m,
                    "The summary of run_ut run %s could not be read (%s); the page is made from "
                    "the CSVs.",
                    m->run_ut_ts, m->info.summary_problem);
    if (m->cinfo.summary_problem)
        pc_rep_note(m,
                    "The summary of api_precision_compare run %s could not be read (%s); the page "
                    "is made from the CSVs.",
                    m->compare_ts, m->cinfo.summary_problem);
    if (m->info.record_problem)
        pc_rep_note(m, "%s could not be read: %s", base_of(m->record_json), m->info.record_problem);
    if (st == PC_OK && m->result_csv)
        st = read_result(m, m->result_csv, false);
    if (st == PC_OK && m->details_csv)
        st = read_details(m);
    if (st == PC_OK && m->cresult_csv)
        st = read_result(m, m->cresult_csv, true);
    if (st == PC_OK && m->cdetails_csv)
        st = read_compare_details(m);
    if (st != PC_OK)
        return st;
    pc_rep_read_extras(m);
    for (size_t i = 0; i < m->n_apis; i++) {
        rank_api(&m->apis[i]);
        if (!m->result_csv && m->apis[i].fwd != RV_NONE) { /* counts from the details rows */
            m->counts[0][m->apis[i].fwd]++;
            m->counts[1][m->apis[i].bwd]++;
        }
    }
    return pc_rep_find_error_data(m, opt);
}

void pc_rep_model_free(rep_model *m)
{
    for (size_t i = 0; i < m->n_apis; i++) {
        free(m->apis[i].rows);
        free(m->apis[i].crows);
    }
    free(m->apis);
    pc_json_free(m->summary_doc);
    pc_json_free(m->csummary_doc);
    pc_strmap_free(&m->index);
    pc_arena_free(&m->arena);
    memset(m, 0, sizeof *m);
}
