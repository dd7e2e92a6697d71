/* dump.json text as Python's json.dump(indent=1) writes it, and the streaming re-serialiser. */
#include "precheck/dump/dump_write.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the dump re-serialiser ---- */

typedef struct rewriter {
    const char *data;
    size_t size;
    const char *name;
    const pc_dump_rewrite_hooks *hooks;
    pc_json_writer w;
    pc_json_doc *doc;
} rewriter;

static pc_status writer_status(rewriter *r)
{
    return r->w.status;
}

/* Tokenises data[begin, end) and hands it to hook (or copies it). */
static pc_status rewrite_value(rewriter *r, const char *key, size_t begin, size_t end, bool entry)
{
    pc_status st = pc_json_parse_range(r->doc, r->data, r->size, begin, end);
    if (st)
        return st;
    pc_json_ref v = pc_json_root(r->doc);
    const pc_dump_rewrite_hooks *h = r->hooks;
    if (entry && h && h->entry)
        st = h->entry(h->ctx, &r->w, key, r->doc, v);
    else if (!entry && h && h->top_member)
        st = h->top_member(h->ctx, &r->w, key, r->doc, v);
    else
        pc_json_write_copy(&r->w, r->doc, v, r->data, r->size);
    return st ? st : writer_status(r);
}

/* The members of "data" (the object at data[begin, ...)), one entry at a time. */
static pc_status rewrite_data(rewriter *r, size_t begin)
{
    pc_json_scanner s;
    pc_status st = pc_json_scanner_init(&s, r->data, r->size, begin, r->name);
    if (st == PC_OK)
        pc_json_write_begin_object(&r->w);
    while (st == PC_OK) {
        const char *key;
        size_t key_len, key_offset, vb, ve;
        bool done;
        st = pc_json_scanner_next(&s, &key, &key_len, &key_offset, &vb, &ve, &done);
        if (st || done)
            break;
        pc_json_write_key(&r->w, key, key_len);
        st = rewrite_value(r, key, vb, ve, true);
    }
    if (st == PC_OK) {
        pc_json_write_end_object(&r->w);
        st = writer_status(r);
    }
    pc_json_scanner_free(&s);
    return st;
}

pc_status pc_dump_rewrite(const char *data, size_t size, const char *name, FILE *out,
                          const pc_dump_rewrite_hooks *hooks)
{
    rewriter r = {.data = data, .size = size, .name = name ? name : "<json>", .hooks = hooks};
    pc_json_writer_init(&r.w, out, 1, PC_JSON_ENSURE_ASCII);
    pc_status st = pc_json_doc_new(&r.doc, r.name);
    if (st)
        return st;
    pc_json_scanner s;
    st = pc_json_scanner_init(&s, data, size, 0, r.name);
    if (st == PC_OK)
        pc_json_write_begin_object(&r.w);
    while (st == PC_OK) {
        const char *key;
        size_t key_len, key_offset, vb, ve;
        bool done;
        /* the scanner finds where each value ends by matching brackets (no tokenising), so
         * a big "data" costs one fast pass before it is streamed */
        st = pc_json_scanner_next(&s, &key, &key_len, &key_offset, &vb, &ve, &done);
        if (st || done)
            break;
        bool is_data = key_len == 4 && memcmp(key, "data", 4) == 0;
        if (is_data && hooks && hooks->before_data) {
            st = hooks->before_data(hooks->ctx, &r.w);
            if (st == PC_OK)
                st = writer_status(&r);
            if (st)
                break;
        }
        pc_json_write_key(&r.w, key, key_len);
        while (vb < ve && data[vb] && strchr(" \t\r\n", data[vb]))
            vb++;
        if (is_data && vb < ve && data[vb] == '{')
            st = rewrite_data(&r, vb);
        else
            st = rewrite_value(&r, key, vb, ve, false);
    }
    if (st == PC_OK)
        st = pc_json_expect_end(data, size, s.pos, r.name);
    if (st == PC_OK) {
        pc_json_write_end_object(&r.w);
        st = pc_json_writer_finish(&r.w);
    }
    pc_json_scanner_free(&s);
    pc_json_free(r.doc);
    return st;
}
