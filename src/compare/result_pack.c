/*
 * One API's result as bytes and back, so that a worker process can hand the structured result
 * (rows, metrics, verdicts, what decided them) to the parent, whose result sinks (the CSVs, the
 * summary, summary.json) all read the same thing. Both ends are the same build on the same
 * machine: fields go in native byte order, checked by a magic number with a version.
 */
#include <stdlib.h>
#include <string.h>

#include "compare_impl.h"
#include "precheck/compare/compare.h"

#define PACK_MAGIC 0x32525043u /* "PCR2" */

/* The writers append to a pc_strbuf and never fail on their own: its sticky error is checked
 * once, at the end of pc_api_result_pack. */

static void put_u32(pc_csv_buffer *b, uint32_t v)
{
    pc_strbuf_append(b, &v, sizeof v);
}

static void put_str(pc_csv_buffer *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : 0;
    put_u32(b, n);
    if (n > 0)
        pc_strbuf_append(b, s, n);
}

static void put_row(pc_csv_buffer *b, const pc_detail_row *r)
{
    put_str(b, r->bench_dtype);
    put_str(b, r->device_dtype);
    put_str(b, r->shape);
    put_str(b, r->message);
    for (int i = 0; i < PC_METRIC_COUNT; i++) {
        const pc_csv_cell *c = &r->metrics[i];
        put_u32(b, (uint32_t)c->kind);
        if (c->kind == PC_CSV_TEXT)
            put_str(b, c->v.text);
        else
            pc_strbuf_append(b, &c->v, sizeof c->v);
    }
    put_u32(b, (uint32_t)r->status);
    pc_strbuf_append(b, &r->decision, sizeof r->decision);
}

pc_status pc_api_result_pack(const pc_api_result *res, pc_csv_buffer *out)
{
    put_u32(out, PACK_MAGIC);
    put_str(out, res->full_name);
    uint32_t head[4] = {(uint32_t)res->forward, (uint32_t)res->backward, (uint32_t)res->n_fwd,
                        (uint32_t)res->n_bwd};
    pc_strbuf_append(out, head, sizeof head);
    for (size_t i = 0; i < res->n_fwd; i++)
        put_row(out, &res->fwd_rows[i]);
    for (size_t i = 0; i < res->n_bwd; i++)
        put_row(out, &res->bwd_rows[i]);
    put_u32(out, res->error_data_files);
    put_u32(out, res->error_data_unsaved);
    put_str(out, res->error_data_error);
    double seconds[2] = {res->device_seconds, res->bench_seconds};
    pc_strbuf_append(out, seconds, sizeof seconds);
    return pc_strbuf_error(out) ? pc_error_set(PC_ERR_NOMEM, "out of memory") : PC_OK;
}

/* ---- back ---- */

typedef struct reader {
    const char *p, *end;
} reader;

static bool get(reader *r, void *out, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return false;
    memcpy(out, r->p, n);
    r->p += n;
    return true;
}

/* A string into buf (cut to size - 1); *start/len: where it lies in the bytes. */
static bool get_str(reader *r, char *buf, size_t size, const char **start, uint32_t *len)
{
    uint32_t n;
    if (!get(r, &n, sizeof n) || (size_t)(r->end - r->p) < n)
        return false;
    if (buf && size > 0) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(buf, r->p, k);
        buf[k] = 0;
    }
    if (start)
        *start = r->p;
    if (len)
        *len = n;
    r->p += n;
    return true;
}

/* Text cells point into res->owned_text, which holds every such text of the result. */
static bool get_row(reader *r, pc_detail_row *row, pc_api_result *res)
{
    memset(row, 0, sizeof *row);
    if (!get_str(r, row->bench_dtype, sizeof row->bench_dtype, NULL, NULL) ||
        !get_str(r, row->device_dtype, sizeof row->device_dtype, NULL, NULL) ||
        !get_str(r, row->shape, sizeof row->shape, NULL, NULL) ||
        !get_str(r, row->message, sizeof row->message, NULL, NULL))
        return false;
    for (int i = 0; i < PC_METRIC_COUNT; i++) {
        uint32_t kind;
        if (!get(r, &kind, sizeof kind))
            return false;
        pc_csv_cell *c = &row->metrics[i];
        c->kind = (pc_csv_kind)kind;
        if (c->kind != PC_CSV_TEXT) {
            if (!get(r, &c->v, sizeof c->v))
                return false;
            continue;
        }
        const char *start;
        uint32_t len;
        if (!get_str(r, NULL, 0, &start, &len))
            return false;
        char *t = malloc(len + 1 + sizeof(char *));
        if (!t)
            return false;
        memcpy(t, &res->owned_text, sizeof(char *)); /* a chain of the result's texts */
        memcpy(t + sizeof(char *), start, len);
        t[sizeof(char *) + len] = 0;
        res->owned_text = t;
        c->v.text = t + sizeof(char *);
    }
    uint32_t status;
    if (!get(r, &status, sizeof status) || !get(r, &row->decision, sizeof row->decision))
        return false;
    row->status = (pc_verdict)status;
    return true;
}

pc_status pc_api_result_unpack(const char *data, size_t size, pc_api_result *res)
{
    pc_api_result_free(res);
    reader r = {data, data + size};
    uint32_t magic, head[4];
    const char *name;
    uint32_t name_len;
    if (!get(&r, &magic, sizeof magic) || magic != PACK_MAGIC ||
        !get_str(&r, NULL, 0, &name, &name_len) || !get(&r, head, sizeof head) ||
        head[2] > (1u << 20) || head[3] > (1u << 20))
        return pc_error_set(PC_ERR_FORMAT, "a worker's result is damaged");
    res->full_name = malloc(name_len + 1);
    res->fwd_rows = calloc(head[2] ? head[2] : 1, sizeof *res->fwd_rows);
    res->bwd_rows = calloc(head[3] ? head[3] : 1, sizeof *res->bwd_rows);
    if (!res->full_name || !res->fwd_rows || !res->bwd_rows) {
        pc_api_result_free(res);
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    memcpy(res->full_name, name, name_len);
    res->full_name[name_len] = 0;
    res->forward = (pc_verdict)head[0];
    res->backward = (pc_verdict)head[1];
    bool ok = true;
    for (uint32_t i = 0; i < head[2] && ok; i++, res->n_fwd++)
        ok = get_row(&r, &res->fwd_rows[i], res);
    for (uint32_t i = 0; i < head[3] && ok; i++, res->n_bwd++)
        ok = get_row(&r, &res->bwd_rows[i], res);
    const char *err = NULL;
    uint32_t err_len = 0;
    ok = ok && get(&r, &res->error_data_files, sizeof res->error_data_files) &&
         get(&r, &res->error_data_unsaved, sizeof res->error_data_unsaved) &&
         get_str(&r, NULL, 0, &err, &err_len);
    if (ok && err_len > 0) {
        res->error_data_error = malloc(err_len + 1);
        ok = res->error_data_error != NULL;
        if (ok) {
            memcpy(res->error_data_error, err, err_len);
            res->error_data_error[err_len] = 0;
        }
    }
    double seconds[2] = {0, 0};
    ok = ok && get(&r, seconds, sizeof seconds);
    res->device_seconds = seconds[0];
    res->bench_seconds = seconds[1];
    if (!ok || r.p != r.end) {
        pc_api_result_free(res);
        return pc_error_set(PC_ERR_FORMAT, "a worker's result is damaged");
    }
    return PC_OK;
}
