/*
 * The page's coverage section: what run_ut ran per API type, which APIs and backward passes
 * were skipped and why (grouped by reason and message), the rows api_precision_compare skipped.
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"
#include "tally.h"

/* ---- coverage ---- */

#define GROUP_LISTED   8  /* API names after a kind of message */
#define GROUP_MESSAGES 24 /* each API's own message, on expand */

typedef struct group {
    char kind[600];  /* the message with its API's name, shapes and numbers taken out */
    const char *key; /* the first API's message */
    int reason;      /* a skip_reason, or -1 */
    const char *apis[GROUP_MESSAGES];
    const char *messages[GROUP_MESSAGES];
    size_t n;
    bool differ; /* the messages of the kind are not all the same text */
} group;

/* The kind of a message: the API's own name becomes "<API>" (its op's name "<op>"), a
 * bracketed list of numbers (a shape, an index) "(...)" or "[...]", and any other number "N":
 * the messages that differ only in those (one per reshaped gradient, per shape) are one kind. */
static bool is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void kind_of(const char *msg, const char *api, char *out, size_t size)
{
    size_t o = 0, alen = api ? strlen(api) : 0;
    /* the op's own name (linear of Functional.linear.0), as a whole word */
    const char *first = api ? strchr(api, '.') : NULL, *last = api ? strrchr(api, '.') : NULL;
    size_t olen = first && last > first ? (size_t)(last - first - 1) : 0;
    const char *op = olen ? first + 1 : NULL;
    for (const char *p = msg; *p && o + 8 < size;) {
        if (alen && strncmp(p, api, alen) == 0) {
            o += (size_t)snprintf(out + o, size - o, "<API>");
            p += alen;
            continue;
        }
        if (olen && strncmp(p, op, olen) == 0 && (p == msg || !is_word_char(p[-1])) &&
            !is_word_char(p[olen])) {
            o += (size_t)snprintf(out + o, size - o, "<op>");
            p += olen;
            continue;
        }
        if (*p == '(' || *p == '[') {
            char close = *p == '(' ? ')' : ']';
            size_t k = 1;
            while (p[k] &&
                   (isdigit((unsigned char)p[k]) || p[k] == ',' || p[k] == ' ' || p[k] == '-'))
                k++;
            if (p[k] == close && k > 1) {
                o += (size_t)snprintf(out + o, size - o, "%c...%c", *p, close);
                p += k + 1;
                continue;
            }
        }
        if (isdigit((unsigned char)*p)) {
            while (isdigit((unsigned char)*p) || *p == '.')
                p++;
            out[o++] = 'N';
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = 0;
}

static size_t group_add(group *g, size_t n, size_t cap, const char *key, int reason,
                        const char *api)
{
    char kind[sizeof g->kind];
    kind_of(key, api, kind, sizeof kind);
    size_t j = 0;
    while (j < n && strcmp(g[j].kind, kind) != 0)
        j++;
    if (j == n) {
        if (n == cap)
            return n;
        g[n] = (group){.key = key, .reason = reason};
        memcpy(g[n].kind, kind, sizeof kind);
        n++;
    }
    if (g[j].n < GROUP_MESSAGES) {
        g[j].apis[g[j].n] = api;
        g[j].messages[g[j].n] = key;
    }
    if (strcmp(g[j].key, key) != 0)
        g[j].differ = true;
    g[j].n++;
    return n;
}

static void group_list(html_buf *b, const group *g, size_t n)
{
    pc_hb_raw(b, "<ul class=\"skips\">");
    for (size_t j = 0; j < n; j++) {
        pc_hb_fmt(b, "<li><b>%zu</b> ", g[j].n);
        if (g[j].reason >= 0) {
            pc_hb_raw(b, "<span class=\"v v-skip\">");
            pc_hb_text(b, pc_tally_reason_name((skip_reason)g[j].reason));
            pc_hb_raw(b, "</span> ");
        }
        /* one message: as it is; several of one kind: the first, each API's on expand */
        if (g[j].differ)
            pc_hb_raw(b, "<details><summary>");
        pc_hb_raw(b, "<q>");
        pc_hb_text_cut(b, g[j].key, 500);
        pc_hb_raw(b, "</q>: ");
        for (size_t k = 0; k < g[j].n && k < GROUP_LISTED; k++) {
            pc_hb_raw(b, k ? ", <code>" : "<code>");
            pc_hb_text_cut(b, g[j].apis[k], 120);
            pc_hb_raw(b, "</code>");
        }
        if (g[j].n > GROUP_LISTED)
            pc_hb_fmt(b, " and %zu more", g[j].n - GROUP_LISTED);
        if (g[j].differ) {
            pc_hb_fmt(b,
                      " <span class=\"muted\">(%zu messages of this kind: each API's)</span>"
                      "</summary><ul>",
                      g[j].n);
            for (size_t k = 0; k < g[j].n && k < GROUP_MESSAGES; k++) {
                pc_hb_raw(b, "<li><code>");
                pc_hb_text_cut(b, g[j].apis[k], 120);
                pc_hb_raw(b, "</code>: ");
                pc_hb_text_cut(b, g[j].messages[k], 500);
                pc_hb_raw(b, "</li>");
            }
            if (g[j].n > GROUP_MESSAGES)
                pc_hb_fmt(b, "<li>and %zu more</li>", g[j].n - GROUP_MESSAGES);
            pc_hb_raw(b, "</ul></details>");
        }
        pc_hb_raw(b, "</li>");
    }
    pc_hb_raw(b, "</ul>");
}

void pc_html_coverage_section(html_buf *b, const rep_model *m)
{
    pc_hb_raw(b, "<section class=\"card\" id=\"coverage\"><h2>Coverage</h2>");
    if (m->run_ut_ts[0]) {
        rep_choice types = {0};
        for (size_t i = 0; i < m->n_apis; i++)
            if (m->apis[i].fwd != RV_NONE)
                pc_rep_choice_add(&types, m->apis[i].type);
        pc_hb_raw(b, "<h3>What run_ut ran</h3><table class=\"rows\"><thead><tr><th>API type</th>"
                     "<th>APIs</th><th>forward compared</th><th>forward SKIP</th><th>backward "
                     "compared</th><th>backward SKIP</th><th>no backward</th></tr></thead><tbody>");
        for (size_t t = 0; t < types.n; t++) {
            size_t c[6] = {0};
            for (size_t i = 0; i < m->n_apis; i++) {
                const rep_api *a = &m->apis[i];
                if (a->fwd == RV_NONE || strcmp(a->type, types.v[t]) != 0)
                    continue;
                c[0]++;
                c[a->fwd == RV_SKIP ? 2 : 1]++;
                c[a->bwd == RV_SKIP ? 4 : a->bwd == RV_SPACE || a->bwd == RV_NONE ? 5 : 3]++;
            }
            pc_hb_raw(b, "<tr><td>");
            pc_hb_text(b, types.v[t]);
            pc_hb_fmt(
                b,
                "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td "
                "class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td "
                "class=\"num\">%zu</td></tr>",
                c[0], c[1], c[2], c[3], c[4], c[5]);
        }
        pc_hb_raw(b, "</tbody></table>");
        group g[64];
        size_t n = 0;
        for (size_t i = 0; i < m->n_apis; i++) {
            const rep_api *a = &m->apis[i];
            if (a->fwd != RV_SKIP)
                continue;
            const char *msg = a->message[0]                                ? a->message
                              : a->n_rows && a->rows[0].message[0] != '\0' ? a->rows[0].message
                                                                           : "(no message)";
            n = group_add(g, n, 64, msg, (int)pc_tally_skip_reason(msg), a->name);
        }
        pc_hb_raw(b, "<h3>Skipped APIs, by reason</h3>");
        if (n)
            group_list(b, g, n);
        else
            pc_hb_raw(b, "<p class=\"muted\">None: every API ran.</p>");
        n = 0;
        for (size_t i = 0; i < m->n_apis; i++) {
            const rep_api *a = &m->apis[i];
            if (a->bwd != RV_SKIP || a->fwd == RV_SKIP)
                continue;
            const char *msg = a->message[0] ? a->message : "(no message)";
            for (size_t k = 0; k < a->n_rows; k++)
                if (a->rows[k].backward && a->rows[k].status == RV_SKIP && a->rows[k].message[0])
                    msg = a->rows[k].message;
            n = group_add(g, n, 64, msg, -1, a->name);
        }
        pc_hb_raw(b, "<h3>Backward skipped (the forward ran)</h3>");
        if (n)
            group_list(b, g, n);
        else
            pc_hb_raw(b, "<p class=\"muted\">None.</p>");
        size_t nb = 0;
        for (size_t i = 0; i < m->n_apis; i++)
            nb += m->apis[i].fwd != RV_NONE && m->apis[i].fwd != RV_SKIP &&
                  m->apis[i].bwd == RV_SPACE;
        pc_hb_fmt(b,
                  "<p>%zu API%s had no backward to compare (no backward record in the dump, or "
                  "none of their inputs needs a gradient).</p>",
                  nb, nb == 1 ? "" : "s");
    }
    if (m->compare_ts[0]) {
        group g[64];
        size_t n = 0;
        for (size_t i = 0; i < m->n_apis; i++)
            for (size_t k = 0; k < m->apis[i].n_crows; k++) {
                const rep_crow *r = &m->apis[i].crows[k];
                if (r->status == RV_SKIP)
                    n = group_add(g, n, 64, r->cell[CC_MESSAGE][0] ? r->cell[CC_MESSAGE] : "nan",
                                  -1, r->name);
            }
        pc_hb_raw(b, "<h3>Rows api_precision_compare skipped</h3>");
        if (n)
            group_list(b, g, n);
        else
            pc_hb_raw(b, "<p class=\"muted\">None.</p>");
    }
    pc_hb_raw(b, "</section>");
}
