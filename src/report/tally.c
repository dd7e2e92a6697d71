/* What a run's results add up to: counts, SKIP reasons, and per API the row to look at first. */
#include "tally.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reason_names[SKIP_REASON_COUNT] = {
    [SKIP_NOT_SUPPORTED] = "not supported",
    [SKIP_LISTS] = "black or white list",
    [SKIP_CRASHED] = "the worker crashed",
    [SKIP_TIMEOUT] = "timed out",
    [SKIP_MEMORY] = "memory",
    [SKIP_INPUTS] = "inputs could not be made",
    [SKIP_DEVICE_ERROR] = "an error on the device or the bench",
    [SKIP_NO_BACKWARD] = "no backward compared",
};

const char *pc_tally_reason_name(skip_reason r)
{
    return (unsigned)r < SKIP_REASON_COUNT ? reason_names[r] : "";
}

static bool has(const char *s, const char *needle)
{
    return strstr(s, needle) != NULL;
}

/* msprobe's SKIP texts and precheck's, by what they say. */
skip_reason pc_tally_skip_reason(const char *m)
{
    if (has(m, "not support for run ut") || has(m, "is not supported by precheck") ||
        has(m, "There is not bench function") || has(m, "object is not callable") ||
        has(m, "is not supported by precheck's"))
        return SKIP_NOT_SUPPORTED;
    if (has(m, "in black list or not in white list"))
        return SKIP_LISTS;
    if (has(m, "killed by signal") || has(m, "exited with status"))
        return SKIP_CRASHED;
    if (has(m, "did not finish within"))
        return SKIP_TIMEOUT;
    if (has(m, "needs about") || has(m, "out of memory"))
        return SKIP_MEMORY;
    if (has(m, "Data info Min") || has(m, "tensor file") || has(m, "dump_tensor_data") ||
        has(m, "is not a pt or numpy file") || has(m, "Dtype is not supported"))
        return SKIP_INPUTS;
    return SKIP_DEVICE_ERROR;
}

bool pc_tally_higher_is_better(int metric)
{
    return metric == PC_METRIC_COSINE || metric == PC_METRIC_REL_ERR_HUNDREDTH ||
           metric == PC_METRIC_REL_ERR_THOUSANDTH || metric == PC_METRIC_REL_ERR_TEN_THOUSANDTH;
}

/* How far the decision is past its limit (0 within it), NaN and unknown as very far. */
double pc_tally_badness(const pc_row_decision *d, pc_verdict status)
{
    if (status == PC_VERDICT_PASS || status == PC_VERDICT_SKIP || status == PC_VERDICT_SPACE)
        return 0;
    if (d->metric < 0 || isnan(d->value))
        return 1e300;
    if (pc_tally_higher_is_better(d->metric))
        return (d->limit - d->value) / (1.0 - d->limit);
    return d->limit > 0 ? d->value / d->limit : d->value;
}

int pc_tally_severity(pc_verdict v)
{
    return v == PC_VERDICT_ERROR ? 3 : v == PC_VERDICT_WARNING ? 2 : v == PC_VERDICT_PASS ? 1 : 0;
}

static void consider(tally_row *w, const pc_detail_row *row, bool backward, size_t output)
{
    int sv = pc_tally_severity(row->status);
    double b = pc_tally_badness(&row->decision, row->status);
    if (w->set && (sv < pc_tally_severity(w->status) ||
                   (sv == pc_tally_severity(w->status) && b <= w->badness)))
        return;
    w->set = true;
    w->backward = backward;
    w->output = output;
    w->status = row->status;
    w->decision = row->decision;
    w->badness = b;
    snprintf(w->dtype, sizeof w->dtype, "%s", row->device_dtype);
    snprintf(w->shape, sizeof w->shape, "%s", row->shape);
}

/* A copy of s cut to max bytes; line breaks as spaces when flat (a message on one line). */
static char *copy(const char *s, size_t max, bool flat)
{
    size_t n = strlen(s);
    if (n > max)
        n = max;
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = 0;
        for (char *p = c; flat && *p; p++)
            if (*p == '\n')
                *p = ' ';
    }
    return c;
}

pc_status pc_tally_add(tally *t, const pc_api_result *res)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        tally_api *a = realloc(t->apis, cap * sizeof *a);
        if (!a)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        t->apis = a;
        t->cap = cap;
    }
    tally_api *a = &t->apis[t->n];
    memset(a, 0, sizeof *a);
    a->name = copy(res->full_name ? res->full_name : "", (size_t)-1, false);
    if (!a->name)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    t->n++;
    a->forward = res->forward;
    a->backward = res->backward;
    a->device_seconds = res->device_seconds;
    a->bench_seconds = res->bench_seconds;
    if ((unsigned)res->forward < TALLY_VERDICTS)
        t->forward[res->forward]++;
    if ((unsigned)res->backward < TALLY_VERDICTS)
        t->backward[res->backward]++;
    for (size_t i = 0; i < res->n_fwd; i++)
        consider(&a->worst, &res->fwd_rows[i], false, i);
    for (size_t i = 0; i < res->n_bwd; i++)
        consider(&a->worst, &res->bwd_rows[i], true, i);
    if (res->forward == PC_VERDICT_SKIP && res->n_fwd > 0) {
        t->reasons[pc_tally_skip_reason(res->fwd_rows[0].message)]++;
        a->skip_message = copy(res->fwd_rows[0].message, 300, true);
    } else if (res->backward == PC_VERDICT_SKIP && res->n_bwd > 0) {
        t->reasons[SKIP_NO_BACKWARD]++;
        a->skip_message = copy(res->bwd_rows[0].message, 300, true);
    }
    pc_verdict worst = pc_tally_severity(res->forward) >= pc_tally_severity(res->backward)
                           ? res->forward
                           : res->backward;
    if (pc_tally_severity(worst) > pc_tally_severity(t->worst_verdict) &&
        pc_tally_severity(worst) >= 2)
        t->worst_verdict = worst;
    return PC_OK;
}

void pc_tally_free(tally *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->apis[i].name);
        free(t->apis[i].skip_message);
    }
    free(t->apis);
    memset(t, 0, sizeof *t);
}

static bool worse(const tally_row *a, const tally_row *b)
{
    return pc_tally_severity(a->status) > pc_tally_severity(b->status) ||
           (pc_tally_severity(a->status) == pc_tally_severity(b->status) &&
            a->badness > b->badness);
}

size_t pc_tally_worst(const tally *t, size_t *out, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n && max > 0; i++) {
        const tally_row *r = &t->apis[i].worst;
        if (!r->set || pc_tally_severity(r->status) < 2)
            continue;
        size_t pos = k; /* the kept list is worst first; ties keep dump order */
        while (pos > 0 && worse(r, &t->apis[out[pos - 1]].worst))
            pos--;
        if (pos >= max)
            continue;
        for (size_t j = k < max ? k : max - 1; j > pos; j--)
            out[j] = out[j - 1];
        out[pos] = i;
        if (k < max)
            k++;
    }
    return k;
}

void pc_tally_row_text(const tally_row *r, char *buf, size_t size)
{
    const pc_row_decision *d = &r->decision;
    int n = snprintf(buf, size, "%s output %zu (%s %s)", r->backward ? "backward" : "forward",
                     r->output, r->dtype, r->shape);
    if (n < 0 || (size_t)n >= size)
        return;
    if (d->metric < 0) {
        snprintf(buf + n, size - (size_t)n, ": see the row's message");
        return;
    }
    const char *how = pc_tally_higher_is_better(d->metric) ? "must be >" : "must be <";
    if (d->metric == PC_METRIC_ERROR_RATE)
        how = "must be";
    snprintf(buf + n, size - (size_t)n, ": %s %.6g, %s %g", pc_metric_name((pc_metric)d->metric),
             d->value, how, d->limit);
}

bool pc_tally_failed(const tally_api *a)
{
    return pc_tally_severity(a->forward) >= 2 || pc_tally_severity(a->backward) >= 2;
}

size_t pc_tally_slowest(const tally *t, size_t *out, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        double s = t->apis[i].device_seconds + t->apis[i].bench_seconds;
        if (!(s > 0))
            continue;
        /* insertion into the kept max, the slowest first; an equal one stays behind */
        size_t at = k;
        while (at > 0 &&
               t->apis[out[at - 1]].device_seconds + t->apis[out[at - 1]].bench_seconds < s)
            at--;
        if (at >= max)
            continue;
        size_t last = k < max ? k : max - 1;
        for (size_t j = last; j > at; j--)
            out[j] = out[j - 1];
        out[at] = i;
        if (k < max)
            k++;
    }
    return k;
}
