/*
 * What the summaries add to the CSVs on the page: from run_ut's precheck_summary_<ts>.json each
 * API's wall time on the device and on the bench (apis[].device_seconds, bench_seconds) and a
 * failing API's place in the model (apis[].where); from api_precision_compare's summary the
 * rows the rule fails although the NPU and GPU rows are identical ("rule, not device",
 * rows_failed[].npu_gpu_identical) and both sides' figures of each failed check. Older summaries
 * lack these fields: the page then goes without them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/json.h"
#include "report_impl.h"

/* The joined strings are built in a pc_strbuf; the arena gets the copy. */
typedef pc_strbuf text;

static void put(text *t, const char *s)
{
    pc_strbuf_appends(t, s);
}

/* The text into the arena (NULL when empty or out of memory), and the buffer emptied. */
static const char *keep(rep_model *m, text *t)
{
    const char *s = !pc_strbuf_error(t) && pc_strbuf_len(t)
                        ? pc_arena_strdup(&m->arena, pc_strbuf_str(t))
                        : NULL;
    pc_strbuf_reset(t);
    return s;
}

static const char *jstring(const pc_json_doc *d, pc_json_ref obj, const char *key)
{
    return pc_json_string(d, pc_json_object_get(d, obj, key), NULL);
}

static void read_where(rep_model *m, rep_api *a, const pc_json_doc *d, pc_json_ref w)
{
    if (pc_json_type_of(d, w) != PC_JSON_OBJECT)
        return;
    text t = PC_STRBUF_INIT;
    const char *file = jstring(d, w, "file");
    if (file) {
        char line[32];
        double n = pc_json_number(d, pc_json_object_get(d, w, "line"));
        snprintf(line, sizeof line, ":%.0f", isfinite(n) ? n : 0.0);
        put(&t, file);
        put(&t, line);
        put(&t, " in ");
        put(&t, jstring(d, w, "function"));
        const char *code = jstring(d, w, "code");
        if (code && *code) {
            put(&t, ": ");
            put(&t, code);
        }
    }
    a->where = keep(m, &t);
    pc_json_ref mods = pc_json_object_get(d, w, "modules");
    for (pc_json_ref v = pc_json_first(d, mods); v != PC_JSON_NONE; v = pc_json_next(d, v)) {
        if (t.len)
            put(&t, " > ");
        put(&t, pc_json_string(d, v, NULL));
    }
    a->module_path = keep(m, &t);
    pc_json_ref stack = pc_json_object_get(d, w, "stack");
    for (pc_json_ref v = pc_json_first(d, stack); v != PC_JSON_NONE; v = pc_json_next(d, v)) {
        if (t.len)
            put(&t, "\n");
        put(&t, pc_json_string(d, v, NULL));
    }
    a->stack = keep(m, &t);
}

static void read_run_ut(rep_model *m)
{
    const pc_json_doc *d = m->summary_doc;
    if (!d)
        return;
    pc_json_ref apis = pc_json_object_get(d, pc_json_root(d), "apis");
    for (pc_json_ref e = pc_json_first(d, apis); e != PC_JSON_NONE; e = pc_json_next(d, e)) {
        const char *name = jstring(d, e, "name");
        rep_api *a = name ? pc_rep_api_find(m, name) : NULL;
        if (!a)
            continue;
        double dev = pc_json_number(d, pc_json_object_get(d, e, "device_seconds"));
        double bench = pc_json_number(d, pc_json_object_get(d, e, "bench_seconds"));
        if (isfinite(dev) && isfinite(bench) && dev >= 0 && bench >= 0) {
            a->has_times = true;
            a->device_seconds = dev;
            a->bench_seconds = bench;
        }
        read_where(m, a, d, pc_json_object_get(d, e, "where"));
    }
}

/* The API of a row name "X.forward.output.3" (the name up to ".forward." or ".backward."). */
static rep_api *api_of_row(const rep_model *m, const char *row)
{
    char name[512];
    const char *cut = NULL;
    for (const char *p = strstr(row, ".forward."); p; p = strstr(p + 1, ".forward."))
        cut = p;
    for (const char *p = strstr(row, ".backward."); p; p = strstr(p + 1, ".backward."))
        if (!cut || p > cut)
            cut = p;
    size_t n = cut ? (size_t)(cut - row) : strlen(row);
    if (n >= sizeof name)
        return NULL;
    memcpy(name, row, n);
    name[n] = 0;
    return pc_rep_api_find(m, name);
}

static void read_compare(rep_model *m)
{
    const pc_json_doc *d = m->csummary_doc;
    if (!d)
        return;
    pc_json_ref rows = pc_json_object_get(d, pc_json_root(d), "rows_failed");
    for (pc_json_ref e = pc_json_first(d, rows); e != PC_JSON_NONE; e = pc_json_next(d, e)) {
        const char *row = jstring(d, e, "row");
        rep_api *a = row ? api_of_row(m, row) : NULL;
        rep_crow *c = NULL;
        for (size_t i = 0; a && i < a->n_crows && !c; i++)
            if (strcmp(a->crows[i].name, row) == 0)
                c = &a->crows[i];
        if (!c)
            continue;
        c->rule = pc_json_truthy(d, pc_json_object_get(d, e, "npu_gpu_identical"));
        text t = PC_STRBUF_INIT;
        pc_json_ref checks = pc_json_object_get(d, e, "checks");
        for (pc_json_ref k = pc_json_first(d, checks); k != PC_JSON_NONE; k = pc_json_next(d, k)) {
            if (t.len)
                put(&t, "; ");
            put(&t, jstring(d, k, "check"));
            put(&t, " ");
            put(&t, jstring(d, k, "value"));
            put(&t, " (NPU ");
            const char *npu = jstring(d, k, "npu"), *gpu = jstring(d, k, "gpu");
            put(&t, npu && *npu ? npu : "?");
            put(&t, ", GPU ");
            put(&t, gpu && *gpu ? gpu : "?");
            put(&t, ")");
        }
        c->sides = keep(m, &t);
    }
}

void pc_rep_read_extras(rep_model *m)
{
    read_run_ut(m);
    read_compare(m);
    pc_json_free(m->summary_doc);
    pc_json_free(m->csummary_doc);
    m->summary_doc = m->csummary_doc = NULL;
}
