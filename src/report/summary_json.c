/*
 * summary.json: a run's verdicts for programs (CI gates, dashboards), schema
 * "precheck-summary" version 1, documented in docs/summary-json.md. Written at the end of the
 * run, also for an interrupted run (run.interrupted), as io/file_out.h writes every whole file:
 * atomically, never through a link, and over an existing file only for a resumed run (the same
 * run's record, rewritten whole).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precheck/io/file_out.h"
#include "precheck/report/sink.h"
#include "tally.h"

typedef struct json_sink {
    tally t;
    char *path;
    bool replace;
} json_sink;

static pc_status json_api(void *self, const pc_api_result *res)
{
    return pc_tally_add(&((json_sink *)self)->t, res);
}

static void str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f); /* JSON has no NaN or infinities: null (value_text says which) */
}

static void counts(FILE *f, const size_t *c, bool backward)
{
    fprintf(f, "{\"pass\": %zu, \"Warning\": %zu, \"error\": %zu, \"SKIP\": %zu",
            c[PC_VERDICT_PASS], c[PC_VERDICT_WARNING], c[PC_VERDICT_ERROR], c[PC_VERDICT_SKIP]);
    if (backward)
        fprintf(f, ", \"not compared\": %zu", c[PC_VERDICT_SPACE]);
    fputc('}', f);
}

static void worst(FILE *f, const tally_row *r)
{
    if (!r->set) {
        fputs("null", f);
        return;
    }
    const pc_row_decision *d = &r->decision;
    fprintf(f, "{\"direction\": \"%s\", \"output\": %zu, \"status\": ",
            r->backward ? "backward" : "forward", r->output);
    str(f, pc_verdict_text(r->status));
    fputs(", \"dtype\": ", f);
    str(f, r->dtype);
    fputs(", \"shape\": ", f);
    str(f, r->shape);
    if (d->metric >= 0) {
        fputs(", \"metric\": ", f);
        str(f, pc_metric_name((pc_metric)d->metric));
        fputs(", \"column\": ", f);
        str(f, pc_metric_column((pc_metric)d->metric));
        fputs(", \"value\": ", f);
        num(f, d->value);
        if (!isfinite(d->value))
            fprintf(f, ", \"value_text\": \"%s\"",
                    isnan(d->value) ? "nan"
                    : d->value > 0  ? "inf"
                                    : "-inf");
        fputs(", \"limit\": ", f);
        num(f, d->limit);
    }
    fputc('}', f);
}

/* "where": the failing API's place in the model (stack.json, construct.json), when known. */
static void where(FILE *f, const pc_locations *locs, const char *name)
{
    pc_location loc;
    if (!pc_locations_find(locs, name, &loc))
        return;
    fputs(", \"where\": {\"file\": ", f);
    str(f, loc.user ? loc.user->file : NULL);
    if (loc.user)
        fprintf(f, ", \"line\": %ld", loc.user->line);
    else
        fputs(", \"line\": null", f);
    fputs(", \"function\": ", f);
    str(f, loc.user ? loc.user->function : NULL);
    fputs(", \"code\": ", f);
    str(f, loc.user ? loc.user->code : NULL);
    fputs(", \"module\": ", f);
    str(f, loc.n_modules ? loc.modules[loc.n_modules - 1] : NULL);
    fputs(", \"modules\": [", f);
    for (size_t i = 0; i < loc.n_modules; i++) {
        fputs(i ? ", " : "", f);
        str(f, loc.modules[i]);
    }
    fputs("], \"stack\": [", f);
    for (size_t i = 0; i < loc.n_frames; i++) {
        fputs(i ? ", " : "", f);
        str(f, loc.frames[i].text);
    }
    fputs("]}", f);
}

static pc_status json_finish(void *self, const pc_run_end *e)
{
    json_sink *j = self;
    const tally *t = &j->t;
    pc_file_out out;
    pc_status st = pc_file_out_open(&out, j->path, j->replace ? PC_FILE_OUT_REPLACE : 0);
    if (st != PC_OK)
        return st;
    FILE *f = out.f;
    fputs("{\n  \"schema\": \"precheck-summary\",\n  \"version\": 1,\n  \"kind\": \"run_ut\",\n",
          f);
    fputs("  \"run\": {\"command\": ", f);
    str(f, e->command);
    fputs(", \"device\": ", f);
    str(f, e->device);
    fputs(", \"dump\": ", f);
    str(f, e->dump);
    fputs(", \"started\": ", f);
    str(f, e->started);
    fputs(", \"seconds\": ", f);
    num(f, e->seconds);
    fprintf(f,
            ", \"interrupted\": %s, \"apis_planned\": %zu, \"apis_done\": %zu, "
            "\"apis_from_earlier_run\": %zu",
            e->interrupted ? "true" : "false", e->total, e->done, e->done_before);
    fputs(", \"result_csv\": ", f);
    str(f, e->result_csv);
    fputs(", \"details_csv\": ", f);
    str(f, e->details_csv);
    fputs(", \"record\": ", f);
    str(f, e->identity_json);
    if (e->error_data_dir) {
        fputs(", \"error_data\": {\"folder\": ", f);
        str(f, e->error_data_dir);
        fprintf(f, ", \"files\": %zu, \"not_saved\": %zu, \"first_error\": ", e->error_data_files,
                e->error_data_unsaved);
        str(f, e->error_data_error);
        fputc('}', f);
    }
    fputs("},\n  \"counts\": {\"forward\": ", f);
    counts(f, t->forward, false);
    fputs(", \"backward\": ", f);
    counts(f, t->backward, true);
    fputs("},\n  \"skip_reasons\": {", f);
    int k = 0;
    for (int r = 0; r < SKIP_REASON_COUNT; r++)
        if (t->reasons[r]) {
            fprintf(f, "%s", k++ ? ", " : "");
            str(f, pc_tally_reason_name((skip_reason)r));
            fprintf(f, ": %zu", t->reasons[r]);
        }
    fputs("},\n  \"apis\": [", f);
    for (size_t i = 0; i < t->n; i++) {
        const tally_api *a = &t->apis[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        str(f, a->name);
        fputs(", \"forward\": ", f);
        str(f, pc_verdict_text(a->forward));
        fputs(", \"backward\": ", f);
        str(f, pc_verdict_text(a->backward));
        fputs(", \"worst\": ", f);
        worst(f, &a->worst);
        if (a->skip_message) {
            fputs(", \"skip_message\": ", f);
            str(f, a->skip_message);
        }
        fputs(", \"device_seconds\": ", f);
        num(f, a->device_seconds);
        fputs(", \"bench_seconds\": ", f);
        num(f, a->bench_seconds);
        if (pc_tally_failed(a))
            where(f, e->locations, a->name);
        fputc('}', f);
    }
    fputs(t->n ? "\n  ]\n}\n" : "]\n}\n", f);
    st = pc_file_out_commit(&out);
    pc_file_out_free(&out);
    return st;
}

static void json_free(void *self)
{
    json_sink *j = self;
    pc_tally_free(&j->t);
    free(j->path);
    free(j);
}

static const pc_sink_vt json_vt = {"json", json_api, json_finish, json_free};

pc_status pc_sink_json_new(pc_sink *out, const char *path, bool replace)
{
    json_sink *j = calloc(1, sizeof *j);
    size_t n = strlen(path) + 1;
    if (j)
        j->path = malloc(n);
    if (!j || !j->path) {
        free(j);
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    memcpy(j->path, path, n);
    j->replace = replace;
    *out = (pc_sink){&json_vt, j};
    return PC_OK;
}
