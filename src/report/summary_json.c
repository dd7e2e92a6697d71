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
#include "precheck/io/json_write.h"
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

static void counts(pc_json_writer *w, const size_t *c, bool backward)
{
    static const struct {
        const char *key;
        pc_verdict verdict;
    } order[] = {{"pass", PC_VERDICT_PASS},
                 {"Warning", PC_VERDICT_WARNING},
                 {"error", PC_VERDICT_ERROR},
                 {"SKIP", PC_VERDICT_SKIP},
                 {"not compared", PC_VERDICT_SPACE}};
    pc_json_write_begin_object_inline(w);
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (order[i].verdict == PC_VERDICT_SPACE && !backward)
            continue;
        pc_json_write_keyz(w, order[i].key);
        pc_json_write_int(w, (int64_t)c[order[i].verdict]);
    }
    pc_json_write_end_object(w);
}

static void worst(pc_json_writer *w, const tally_row *r)
{
    if (!r->set) {
        pc_json_write_null(w);
        return;
    }
    const pc_row_decision *d = &r->decision;
    pc_json_write_begin_object_inline(w);
    pc_json_write_keyz(w, "direction");
    pc_json_write_stringz(w, r->backward ? "backward" : "forward");
    pc_json_write_keyz(w, "output");
    pc_json_write_int(w, (int64_t)r->output);
    pc_json_write_keyz(w, "status");
    pc_json_write_stringz(w, pc_verdict_text(r->status));
    pc_json_write_keyz(w, "dtype");
    pc_json_write_stringz(w, r->dtype);
    pc_json_write_keyz(w, "shape");
    pc_json_write_stringz(w, r->shape);
    if (d->metric >= 0) {
        pc_json_write_keyz(w, "metric");
        pc_json_write_stringz(w, pc_metric_name((pc_metric)d->metric));
        pc_json_write_keyz(w, "column");
        pc_json_write_stringz(w, pc_metric_column((pc_metric)d->metric));
        /* JSON has no NaN or infinities: null, and value_text says which */
        pc_json_write_keyz(w, "value");
        pc_json_write_double(w, d->value);
        if (!isfinite(d->value)) {
            pc_json_write_keyz(w, "value_text");
            pc_json_write_stringz(w, isnan(d->value) ? "nan" : d->value > 0 ? "inf" : "-inf");
        }
        pc_json_write_keyz(w, "limit");
        pc_json_write_double(w, d->limit);
    }
    pc_json_write_end_object(w);
}

/* "where": the failing API's place in the model (stack.json, construct.json), when known. */
static void where(pc_json_writer *w, const pc_locations *locs, const char *name)
{
    pc_location loc;
    if (!pc_locations_find(locs, name, &loc))
        return;
    pc_json_write_keyz(w, "where");
    pc_json_write_begin_object_inline(w);
    pc_json_write_keyz(w, "file");
    pc_json_write_stringz(w, loc.user ? loc.user->file : NULL);
    pc_json_write_keyz(w, "line");
    if (loc.user)
        pc_json_write_int(w, (int64_t)loc.user->line);
    else
        pc_json_write_null(w);
    pc_json_write_keyz(w, "function");
    pc_json_write_stringz(w, loc.user ? loc.user->function : NULL);
    pc_json_write_keyz(w, "code");
    pc_json_write_stringz(w, loc.user ? loc.user->code : NULL);
    pc_json_write_keyz(w, "module");
    pc_json_write_stringz(w, loc.n_modules ? loc.modules[loc.n_modules - 1] : NULL);
    pc_json_write_keyz(w, "modules");
    pc_json_write_begin_array_inline(w);
    for (size_t i = 0; i < loc.n_modules; i++)
        pc_json_write_stringz(w, loc.modules[i]);
    pc_json_write_end_array(w);
    pc_json_write_keyz(w, "stack");
    pc_json_write_begin_array_inline(w);
    for (size_t i = 0; i < loc.n_frames; i++)
        pc_json_write_stringz(w, loc.frames[i].text);
    pc_json_write_end_array(w);
    pc_json_write_end_object(w);
}

static pc_status json_finish(void *self, const pc_run_end *e)
{
    json_sink *j = self;
    const tally *t = &j->t;
    pc_file_out out;
    pc_status st = pc_file_out_open(&out, j->path, j->replace ? PC_FILE_OUT_REPLACE : 0);
    if (st != PC_OK)
        return st;
    pc_json_writer wr, *w = &wr;
    pc_json_writer_init(w, out.f, 2,
                        PC_JSON_NONFINITE_NULL | PC_JSON_DOUBLE_17G | PC_JSON_FINAL_NEWLINE);
    pc_json_write_begin_object(w);
    pc_json_write_keyz(w, "schema");
    pc_json_write_stringz(w, "precheck-summary");
    pc_json_write_keyz(w, "version");
    pc_json_write_int(w, 1);
    pc_json_write_keyz(w, "kind");
    pc_json_write_stringz(w, "run_ut");
    pc_json_write_keyz(w, "run");
    pc_json_write_begin_object_inline(w);
    pc_json_write_keyz(w, "command");
    pc_json_write_stringz(w, e->command);
    pc_json_write_keyz(w, "device");
    pc_json_write_stringz(w, e->device);
    pc_json_write_keyz(w, "dump");
    pc_json_write_stringz(w, e->dump);
    pc_json_write_keyz(w, "started");
    pc_json_write_stringz(w, e->started);
    pc_json_write_keyz(w, "seconds");
    pc_json_write_double(w, e->seconds);
    pc_json_write_keyz(w, "interrupted");
    pc_json_write_bool(w, e->interrupted);
    pc_json_write_keyz(w, "apis_planned");
    pc_json_write_int(w, (int64_t)e->total);
    pc_json_write_keyz(w, "apis_done");
    pc_json_write_int(w, (int64_t)e->done);
    pc_json_write_keyz(w, "apis_from_earlier_run");
    pc_json_write_int(w, (int64_t)e->done_before);
    pc_json_write_keyz(w, "result_csv");
    pc_json_write_stringz(w, e->result_csv);
    pc_json_write_keyz(w, "details_csv");
    pc_json_write_stringz(w, e->details_csv);
    pc_json_write_keyz(w, "record");
    pc_json_write_stringz(w, e->identity_json);
    if (e->error_data_dir) {
        pc_json_write_keyz(w, "error_data");
        pc_json_write_begin_object_inline(w);
        pc_json_write_keyz(w, "folder");
        pc_json_write_stringz(w, e->error_data_dir);
        pc_json_write_keyz(w, "files");
        pc_json_write_int(w, (int64_t)e->error_data_files);
        pc_json_write_keyz(w, "not_saved");
        pc_json_write_int(w, (int64_t)e->error_data_unsaved);
        pc_json_write_keyz(w, "first_error");
        pc_json_write_stringz(w, e->error_data_error);
        pc_json_write_end_object(w);
    }
    pc_json_write_end_object(w);
    pc_json_write_keyz(w, "counts");
    pc_json_write_begin_object_inline(w);
    pc_json_write_keyz(w, "forward");
    counts(w, t->forward, false);
    pc_json_write_keyz(w, "backward");
    counts(w, t->backward, true);
    pc_json_write_end_object(w);
    pc_json_write_keyz(w, "skip_reasons");
    pc_json_write_begin_object_inline(w);
    for (int r = 0; r < SKIP_REASON_COUNT; r++)
        if (t->reasons[r]) {
            pc_json_write_keyz(w, pc_tally_reason_name((skip_reason)r));
            pc_json_write_int(w, (int64_t)t->reasons[r]);
        }
    pc_json_write_end_object(w);
    pc_json_write_keyz(w, "apis");
    pc_json_write_begin_array(w);
    for (size_t i = 0; i < t->n; i++) {
        const tally_api *a = &t->apis[i];
        pc_json_write_begin_object_inline(w);
        pc_json_write_keyz(w, "name");
        pc_json_write_stringz(w, a->name);
        pc_json_write_keyz(w, "forward");
        pc_json_write_stringz(w, pc_verdict_text(a->forward));
        pc_json_write_keyz(w, "backward");
        pc_json_write_stringz(w, pc_verdict_text(a->backward));
        pc_json_write_keyz(w, "worst");
        worst(w, &a->worst);
        if (a->skip_message) {
            pc_json_write_keyz(w, "skip_message");
            pc_json_write_stringz(w, a->skip_message);
        }
        pc_json_write_keyz(w, "device_seconds");
        pc_json_write_double(w, a->device_seconds);
        pc_json_write_keyz(w, "bench_seconds");
        pc_json_write_double(w, a->bench_seconds);
        if (pc_tally_failed(a))
            where(w, e->locations, a->name);
        pc_json_write_end_object(w);
    }
    pc_json_write_end_array(w);
    pc_json_write_end_object(w);
    st = pc_json_writer_finish(w);
    if (st != PC_OK) {
        pc_file_out_free(&out);
        return st;
    }
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
