/*
 * The LLaMA-shaped dump generator declared in llama_dump.h (its shapes, styles and cost model
 * are described there).
 */
#define _GNU_SOURCE /* open_memstream */
#include "llama_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ltensor {
    const char *dtype; /* "torch.bfloat16", ... */
    int rank;
    long shape[4];
    double lo, hi;
    int grad; /* requires_grad */
} ltensor;

/* One argument: a tensor, a list of tensors, or a JSON text (scalars, null). */
typedef struct larg {
    const ltensor *t;
    const ltensor *const *list;
    int nlist;
    const char *json;
} larg;

typedef struct llama_gen {
    FILE *f; /* NULL: the cost only */
    llama_cfg c;
    llama_cost cost;
    int first;
    const char *names[64];
    int counters[64];
    int nnames;
} llama_gen;

static double lt_numel(const ltensor *t)
{
    double n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= (double)t->shape[i];
    return n;
}

static int lt_float(const ltensor *t)
{
    return strstr(t->dtype, "float") != NULL;
}

static double lt_size(const char *dtype, int bench)
{
    if (strcmp(dtype, "torch.bfloat16") == 0 || strcmp(dtype, "torch.float16") == 0)
        return bench ? 4 : 2;
    if (strcmp(dtype, "torch.float32") == 0)
        return bench ? 8 : 4;
    if (strcmp(dtype, "torch.bool") == 0)
        return 1;
    return 8; /* int64, float64 */
}

/* Bytes of t on both sides. */
static double lt_bytes2(const ltensor *t)
{
    return lt_numel(t) * (lt_size(t->dtype, 0) + lt_size(t->dtype, 1));
}

static void lt_put(llama_gen *g, const ltensor *t, int grad_record)
{
    FILE *f = g->f;
    fprintf(f, "{\"type\": \"torch.Tensor\", \"dtype\": \"%s\", \"shape\": [", t->dtype);
    for (int i = 0; i < t->rank; i++)
        fprintf(f, "%s%ld", i ? ", " : "", t->shape[i]);
    double lo = t->lo, hi = t->hi;
    if (grad_record) { /* gradients are small */
        lo = -1e-4;
        hi = 1e-4;
    }
    if (strcmp(t->dtype, "torch.bool") == 0)
        fprintf(f, "], \"Max\": true, \"Min\": false, \"Mean\": null, \"Norm\": null, ");
    else if (lo < -1e300) /* a masked score: msprobe writes -Infinity, and a mean and norm of inf */
        fprintf(f,
                "], \"Max\": %.9g, \"Min\": -Infinity, \"Mean\": -Infinity, \"Norm\": "
                "Infinity, ",
                hi);
    else
        fprintf(f, "], \"Max\": %.9g, \"Min\": %.9g, \"Mean\": %.9g, \"Norm\": %.9g, ", hi, lo,
                (hi + lo) / 2, (hi - lo) * 0.3 * (lt_numel(t) > 1 ? 64.0 : 1.0));
    fprintf(f, "\"requires_grad\": %s}", t->grad && !grad_record ? "true" : "false");
}

static int lg_index(llama_gen *g, const char *name)
{
    for (int i = 0; i < g->nnames; i++)
        if (strcmp(g->names[i], name) == 0)
            return g->counters[i]++;
    if (g->nnames == 64) {
        fprintf(stderr, "llama_dump: too many API names\n");
        exit(1);
    }
    g->names[g->nnames] = name;
    g->counters[g->nnames++] = 1;
    return 0;
}

static void lg_sep(llama_gen *g)
{
    fprintf(g->f, "%s\n  ", g->first ? "" : ",");
    g->first = 0;
}

/*
 * One API record (and its backward record when an output requires grad). gemm_flops: the
 * forward GEMM FLOPs of one side (0: not GEMM-like).
 */
static void lg_api(llama_gen *g, const char *name, const larg *args, int nargs, const char *kwargs,
                   const ltensor *outs, int nouts, double gemm_flops)
{
    int idx = lg_index(g, name);
    int backward = 0;
    for (int i = 0; i < nouts; i++)
        backward |= outs[i].grad && lt_float(&outs[i]);
    /* cost */
    double in2 = 0, out2 = 0, in_bench = 0, out_bench = 0, ingrad2 = 0, outgrad2 = 0;
    for (int i = 0; i < nargs; i++) {
        int n = args[i].t ? 1 : args[i].nlist;
        for (int k = 0; k < n; k++) {
            const ltensor *t = args[i].t ? args[i].t : args[i].list[k];
            if (!t)
                continue;
            in2 += lt_bytes2(t);
            in_bench += lt_numel(t) * lt_size(t->dtype, 1);
            if (t->grad && lt_float(t))
                ingrad2 += lt_bytes2(t);
        }
    }
    for (int i = 0; i < nouts; i++) {
        out2 += lt_bytes2(&outs[i]);
        out_bench += lt_numel(&outs[i]) * lt_size(outs[i].dtype, 1);
        if (outs[i].grad && lt_float(&outs[i]))
            outgrad2 += lt_bytes2(&outs[i]);
    }
    llama_cost *c = &g->cost;
    c->records++;
    if (strcmp(name, "Tensor.to") == 0) /* msprobe's built-in black list: run_ut skips it */
        in2 = out2 = in_bench = out_bench = ingrad2 = outgrad2 = gemm_flops = 0;
    double bytes = in2 + out2; /* inputs written, outputs compared */
    if (gemm_flops == 0)
        bytes += in2 + out2; /* the op itself reads its inputs and writes its outputs */
    if (backward) {
        c->backwards++;
        bytes += outgrad2 + ingrad2; /* incoming gradient written, input gradients compared */
        if (gemm_flops == 0)
            bytes += outgrad2 + in2 + ingrad2;
    }
    c->bytes += bytes;
    double f = gemm_flops * (backward ? 3.0 : 1.0);
    c->flops32 += f; /* the device's GEMMs run in float32 */
    c->flops64 += f; /* the bench computes in double, whatever dtype it holds (DESIGN) */
    if (in_bench + out_bench > c->largest) {
        c->largest = in_bench + out_bench;
        snprintf(c->largest_name, sizeof c->largest_name, "%s.%d", name, idx);
    }
    if (!g->f)
        return;
    FILE *fp = g->f;
    lg_sep(g);
    fprintf(fp, "\"%s.%d.forward\": {\"input_args\": [", name, idx);
    for (int i = 0; i < nargs; i++) {
        if (i)
            fprintf(fp, ", ");
        if (args[i].t) {
            lt_put(g, args[i].t, 0);
        } else if (args[i].list) {
            fprintf(fp, "[");
            for (int k = 0; k < args[i].nlist; k++) {
                if (k)
                    fprintf(fp, ", ");
                lt_put(g, args[i].list[k], 0);
            }
            fprintf(fp, "]");
        } else {
            fprintf(fp, "%s", args[i].json ? args[i].json : "null");
        }
    }
    fprintf(fp, "], \"input_kwargs\": {%s}, \"is_recompute\": false, \"output\": [",
            kwargs ? kwargs : "");
    for (int i = 0; i < nouts; i++) {
        if (i)
            fprintf(fp, ", ");
        lt_put(g, &outs[i], 0);
    }
    fprintf(fp, "]}");
    if (!backward)
        return;
    lg_sep(g);
    fprintf(fp, "\"%s.%d.backward\": {\"input\": [", name, idx);
    for (int i = 0; i < nouts; i++) {
        if (i)
            fprintf(fp, ", ");
        if (outs[i].grad && lt_float(&outs[i]))
            lt_put(g, &outs[i], 1);
        else
            fprintf(fp, "null");
    }
    fprintf(fp, "], \"output\": [");
    int first = 1;
    for (int i = 0; i < nargs; i++) {
        int n = args[i].t ? 1 : args[i].list ? args[i].nlist : 0;
        for (int k = 0; k < n; k++) {
            const ltensor *t = args[i].t ? args[i].t : args[i].list[k];
            fprintf(fp, "%s", first ? "" : ", ");
            first = 0;
            if (t->grad && lt_float(t))
                lt_put(g, t, 1);
            else
                fprintf(fp, "null");
        }
    }
    fprintf(fp, "]}");
}

#define LT(dt, r, a, b, c_, d, lo, hi, gr) ((ltensor){dt, r, {a, b, c_, d}, lo, hi, gr})
#define LA_T(x)                            ((larg){&(x), NULL, 0, NULL})
#define LA_J(s)                            ((larg){NULL, NULL, 0, s})
#define LA_L(arr, n)                       ((larg){NULL, arr, n, NULL})
#define LG_COUNT(a)                        ((int)(sizeof(a) / sizeof((a)[0])))

static const char *lg_dt(const llama_gen *g)
{
    return g->c.fp32 ? "torch.float32" : "torch.bfloat16";
}

/* An activation of the model's layout: [S, B, last] fused, [B, S, last] eager. */
static ltensor lg_act(const llama_gen *g, long last, double lo, double hi, int grad)
{
    if (g->c.eager)
        return LT(lg_dt(g), 3, g->c.batch, g->c.seq, last, 0, lo, hi, grad);
    return LT(lg_dt(g), 3, g->c.seq, g->c.batch, last, 0, lo, hi, grad);
}

static double lg_linear_flops(const llama_gen *g, long in, long out)
{
    return 2.0 * (double)g->c.seq * (double)g->c.batch * (double)in * (double)out;
}

static void lg_linear(llama_gen *g, const ltensor *x, long out, ltensor *y)
{
    ltensor w = LT(lg_dt(g), 2, out, x->shape[2], 0, 0, -0.05, 0.05, 1);
    *y = lg_act(g, out, -3.0, 3.0, 1);
    larg a[] = {LA_T(*x), LA_T(w), LA_J("null")};
    lg_api(g, "Functional.linear", a, LG_COUNT(a), NULL, y, 1,
           lg_linear_flops(g, x->shape[2], out));
}

static void lg_rms_norm(llama_gen *g, const ltensor *x, ltensor *y)
{
    ltensor w = LT(lg_dt(g), 1, g->c.hidden, 0, 0, 0, 0.8, 1.2, 1);
    *y = lg_act(g, g->c.hidden, -4.0, 4.0, 1);
    if (!g->c.eager) {
        ltensor outs[2] = {*y, LT("torch.float32", 3, g->c.seq, g->c.batch, 1, 0, 0.5, 20.0, 0)};
        larg a[] = {LA_T(*x), LA_T(w)};
        lg_api(g, "NPU.npu_rms_norm", a, LG_COUNT(a),
               "\"epsilon\": {\"type\": \"float\", \"value\": 1e-06}", outs, 2, 0);
        return;
    }
    /* LlamaRMSNorm: x.to(float32); pow(2).mean(-1, keepdim); + eps; rsqrt; x * r; w * x.to(dt) */
    ltensor x32 = *x, r = LT("torch.float32", 3, g->c.batch, g->c.seq, 1, 0, 0.0, 4.0, 1);
    x32.dtype = "torch.float32";
    larg a0[] = {LA_T(*x), LA_J("{\"type\": \"torch.dtype\", \"value\": \"torch.float32\"}")};
    lg_api(g, "Tensor.to", a0, LG_COUNT(a0), NULL, &x32, 1, 0);
    ltensor sq = x32;
    larg a1[] = {LA_T(x32), LA_J("{\"type\": \"int\", \"value\": 2}")};
    lg_api(g, "Tensor.pow", a1, LG_COUNT(a1), NULL, &sq, 1, 0);
    larg a2[] = {LA_T(sq), LA_J("{\"type\": \"int\", \"value\": -1}")};
    lg_api(g, "Tensor.mean", a2, LG_COUNT(a2), "\"keepdim\": {\"type\": \"bool\", \"value\": true}",
           &r, 1, 0);
    larg a3[] = {LA_T(r), LA_J("{\"type\": \"float\", \"value\": 1e-06}")};
    lg_api(g, "Tensor.__add__", a3, LG_COUNT(a3), NULL, &r, 1, 0);
    larg a4[] = {LA_T(r)};
    lg_api(g, "Torch.rsqrt", a4, LG_COUNT(a4), NULL, &r, 1, 0);
    larg a5[] = {LA_T(x32), LA_T(r)};
    lg_api(g, "Tensor.__mul__", a5, LG_COUNT(a5), NULL, &x32, 1, 0);
    larg a6[] = {LA_T(x32), LA_J("{\"type\": \"torch.dtype\", \"value\": \"torch.bfloat16\"}")};
    if (g->c.fp32)
        a6[1] = LA_J("{\"type\": \"torch.dtype\", \"value\": \"torch.float32\"}");
    lg_api(g, "Tensor.to", a6, LG_COUNT(a6), NULL, y, 1, 0);
    larg a7[] = {LA_T(w), LA_T(*y)};
    lg_api(g, "Tensor.__mul__", a7, LG_COUNT(a7), NULL, y, 1, 0);
}

static void lg_attention_fused(llama_gen *g, const ltensor *x, ltensor *o)
{
    const llama_cfg *c = &g->c;
    long h = c->hidden, s = c->seq, b = c->batch, n = c->heads, d = c->head_dim;
    ltensor qkv;
    lg_linear(g, x, 3 * h, &qkv);
    ltensor q = lg_act(g, h, -3.0, 3.0, 1);
    ltensor parts[3] = {q, q, q};
    char split[64];
    snprintf(split, sizeof split, "{\"type\": \"int\", \"value\": %ld}", h);
    larg sp[] = {LA_T(qkv), LA_J(split)};
    lg_api(g, "Torch.split", sp, LG_COUNT(sp), "\"dim\": {\"type\": \"int\", \"value\": -1}", parts,
           3, 0);
    ltensor q4 = LT(lg_dt(g), 4, s, b, n, d, -3.0, 3.0, 1);
    ltensor cs = LT(lg_dt(g), 4, s, 1, 1, d, -1.0, 1.0, 0);
    for (int i = 0; i < 2; i++) {
        larg a[] = {LA_T(q4), LA_T(cs), LA_T(cs)};
        lg_api(g, "NPU.npu_rotary_mul", a, LG_COUNT(a), NULL, &q4, 1, 0);
    }
    ltensor mask = LT("torch.bool", 2, 2048, 2048, 0, 0, 0, 1, 0);
    ltensor outs[4] = {lg_act(g, h, -2.5, 2.5, 1), LT("torch.float32", 4, b, n, s, 8, -1.0, 3.0, 1),
                       LT("torch.float32", 4, b, n, s, 8, 1.0, 500.0, 1),
                       LT(lg_dt(g), 1, 0, 0, 0, 0, 0, 0, 1)};
    ltensor qin = lg_act(g, h, -3.0, 3.0, 1);
    char hn[64];
    snprintf(hn, sizeof hn, "{\"type\": \"int\", \"value\": %ld}", n);
    larg a[] = {LA_T(qin), LA_T(qin), LA_T(qin), LA_J(hn),
                LA_J("{\"type\": \"str\", \"value\": \"SBH\"}")};
    /* the kwargs text, with the mask's record */
    FILE *save = g->f;
    char *mbuf = NULL;
    size_t msize = 0;
    if (save) {
        FILE *m = open_memstream(&mbuf, &msize);
        g->f = m;
        lt_put(g, &mask, 0);
        fclose(m);
        g->f = save;
    }
    char *kwargs = NULL;
    size_t ksize = 0;
    FILE *k = open_memstream(&kwargs, &ksize);
    fprintf(k,
            "\"pse\": null, \"padding_mask\": null, \"atten_mask\": %s, \"scale\": {\"type\": "
            "\"float\", \"value\": %.17g}, \"pre_tockens\": {\"type\": "
            "\"int\", \"value\": 65536}, \"next_tockens\": {\"type\": \"int\", \"value\": 0}, "
            "\"keep_prob\": {\"type\": \"float\", \"value\": 1.0}, \"inner_precise\": {\"type\": "
            "\"int\", \"value\": 0}, \"sparse_mode\": {\"type\": \"int\", \"value\": 2}",
            mbuf ? mbuf : "null", 1.0 / __builtin_sqrt((double)d));
    fclose(k);
    double flops = 4.0 * (double)b * (double)n * (double)s * (double)s * (double)d;
    lg_api(g, "NPU.npu_fusion_attention", a, LG_COUNT(a), kwargs, outs, 4, flops);
    free(kwargs);
    free(mbuf);
    lg_linear(g, &outs[0], h, o);
}

static void lg_attention_eager(llama_gen *g, const ltensor *x, ltensor *o)
{
    const llama_cfg *c = &g->c;
    long h = c->hidden, s = c->seq, b = c->batch, n = c->heads, d = c->head_dim;
    ltensor qh = LT(lg_dt(g), 4, b, n, s, d, -3.0, 3.0, 1);
    ltensor q4 = LT(lg_dt(g), 4, b, s, n, d, -3.0, 3.0, 1);
    const char *t12 = "{\"type\": \"int\", \"value\": 1}";
    const char *t2 = "{\"type\": \"int\", \"value\": 2}";
    for (int i = 0; i < 3; i++) {
        ltensor p;
        lg_linear(g, x, h, &p);
        larg a[] = {LA_T(q4), LA_J(t12), LA_J(t2)};
        lg_api(g, "Tensor.transpose", a, LG_COUNT(a), NULL, &qh, 1, 0);
    }
    /* rotary on q and k: q * cos + cat(-x2, x1) * sin */
    ltensor cs = LT(lg_dt(g), 4, b, 1, s, d, -1.0, 1.0, 0);
    ltensor half = LT(lg_dt(g), 4, b, n, s, d / 2, -3.0, 3.0, 1);
    for (int i = 0; i < 2; i++) {
        larg m1[] = {LA_T(qh), LA_T(cs)};
        lg_api(g, "Tensor.__mul__", m1, LG_COUNT(m1), NULL, &qh, 1, 0);
        larg ng[] = {LA_T(half)};
        lg_api(g, "Torch.neg", ng, LG_COUNT(ng), NULL, &half, 1, 0);
        const ltensor *items[] = {&half, &half};
        larg ct[] = {LA_L(items, 2)};
        lg_api(g, "Torch.cat", ct, LG_COUNT(ct), "\"dim\": {\"type\": \"int\", \"value\": -1}", &qh,
               1, 0);
        lg_api(g, "Tensor.__mul__", m1, LG_COUNT(m1), NULL, &qh, 1, 0);
        larg ad[] = {LA_T(qh), LA_T(qh)};
        lg_api(g, "Tensor.__add__", ad, LG_COUNT(ad), NULL, &qh, 1, 0);
    }
    ltensor kt = LT(lg_dt(g), 4, b, n, d, s, -3.0, 3.0, 1);
    larg tr[] = {LA_T(qh), LA_J(t2), LA_J("{\"type\": \"int\", \"value\": 3}")};
    lg_api(g, "Tensor.transpose", tr, LG_COUNT(tr), NULL, &kt, 1, 0);
    ltensor sc = LT(lg_dt(g), 4, b, n, s, s, -20.0, 20.0, 1);
    double mm = 2.0 * (double)b * (double)n * (double)s * (double)s * (double)d;
    larg m1[] = {LA_T(qh), LA_T(kt)};
    lg_api(g, "Torch.matmul", m1, LG_COUNT(m1), NULL, &sc, 1, mm);
    char sq[80];
    snprintf(sq, sizeof sq, "{\"type\": \"float\", \"value\": %.17g}", __builtin_sqrt((double)d));
    larg dv[] = {LA_T(sc), LA_J(sq)};
    lg_api(g, "Tensor.__truediv__", dv, LG_COUNT(dv), NULL, &sc, 1, 0);
    ltensor mask = LT(lg_dt(g), 4, b, 1, s, s, -3.3895313892515355e+38, 0.0, 0);
    larg am[] = {LA_T(sc), LA_T(mask)};
    lg_api(g, "Tensor.__add__", am, LG_COUNT(am), NULL, &sc, 1, 0);
    ltensor p32 = sc;
    p32.dtype = "torch.float32";
    p32.lo = 0.0;
    p32.hi = 1.0;
    larg sm[] = {LA_T(sc)};
    lg_api(g, "Functional.softmax", sm, LG_COUNT(sm),
           "\"dim\": {\"type\": \"int\", \"value\": -1}, \"dtype\": {\"type\": \"torch.dtype\", "
           "\"value\": \"torch.float32\"}",
           &p32, 1, 0);
    ltensor p = p32;
    p.dtype = lg_dt(g);
    larg to[] = {LA_T(p32),
                 LA_J(g->c.fp32 ? "{\"type\": \"torch.dtype\", \"value\": \"torch.float32\"}"
                                : "{\"type\": \"torch.dtype\", \"value\": \"torch.bfloat16\"}")};
    lg_api(g, "Tensor.to", to, LG_COUNT(to), NULL, &p, 1, 0);
    larg m2[] = {LA_T(p), LA_T(qh)};
    lg_api(g, "Torch.matmul", m2, LG_COUNT(m2), NULL, &qh, 1, mm);
    larg tb[] = {LA_T(qh), LA_J(t12), LA_J(t2)};
    lg_api(g, "Tensor.transpose", tb, LG_COUNT(tb), NULL, &q4, 1, 0);
    ltensor flat = lg_act(g, h, -2.5, 2.5, 1);
    char shp[96];
    snprintf(shp, sizeof shp,
             "{\"type\": \"int\", \"value\": %ld}, {\"type\": \"int\", \"value\": %ld}, "
             "{\"type\": \"int\", \"value\": %ld}",
             b, s, h);
    larg rs[] = {LA_T(q4), LA_J(shp)};
    lg_api(g, "Tensor.reshape", rs, LG_COUNT(rs), NULL, &flat, 1, 0);
    lg_linear(g, &flat, h, o);
}

static void lg_mlp(llama_gen *g, const ltensor *x, ltensor *y)
{
    long f = g->c.ffn;
    ltensor a = lg_act(g, f, -3.0, 3.0, 1);
    if (!g->c.eager) {
        ltensor gu;
        lg_linear(g, x, 2 * f, &gu);
        larg sw[] = {LA_T(gu)};
        lg_api(g, "NPU.npu_swiglu", sw, LG_COUNT(sw), "\"dim\": {\"type\": \"int\", \"value\": -1}",
               &a, 1, 0);
    } else {
        ltensor gate, up;
        lg_linear(g, x, f, &gate);
        larg si[] = {LA_T(gate)};
        lg_api(g, "Functional.silu", si, LG_COUNT(si), NULL, &a, 1, 0);
        lg_linear(g, x, f, &up);
        larg mu[] = {LA_T(a), LA_T(up)};
        lg_api(g, "Tensor.__mul__", mu, LG_COUNT(mu), NULL, &a, 1, 0);
    }
    lg_linear(g, &a, g->c.hidden, y);
}

static void lg_residual(llama_gen *g, const ltensor *x, ltensor *y)
{
    larg a[] = {LA_T(*x), LA_T(*y)};
    lg_api(g, "Tensor.__add__", a, LG_COUNT(a), NULL, y, 1, 0);
}

/* ---- the GPT-2-shaped model (llama_dump.h) ---- */

static const char *const J_INT[] = {
    "{\"type\": \"int\", \"value\": -2}", "{\"type\": \"int\", \"value\": -1}",
    "{\"type\": \"int\", \"value\": 0}", "{\"type\": \"int\", \"value\": 1}",
    "{\"type\": \"int\", \"value\": 2}"};
#define JI(v) J_INT[(v) + 2]

static void gpt_linear(llama_gen *g, const ltensor *x, long out, int bias, double lo, double hi,
                       ltensor *y)
{
    ltensor w = LT(lg_dt(g), 2, out, x->shape[2], 0, 0, -0.05, 0.05, 1);
    ltensor b = LT(lg_dt(g), 1, out, 0, 0, 0, -0.02, 0.02, 1);
    *y = lg_act(g, out, lo, hi, 1);
    larg a[] = {LA_T(*x), LA_T(w), bias ? LA_T(b) : LA_J("null")};
    lg_api(g, "Functional.linear", a, LG_COUNT(a), NULL, y, 1,
           lg_linear_flops(g, x->shape[2], out));
}

static void gpt_layer_norm(llama_gen *g, const ltensor *x, ltensor *y)
{
    long h = g->c.hidden;
    ltensor w = LT(lg_dt(g), 1, h, 0, 0, 0, 0.9, 1.1, 1);
    ltensor b = LT(lg_dt(g), 1, h, 0, 0, 0, -0.05, 0.05, 1);
    *y = lg_act(g, h, -4.0, 4.0, 1);
    char shape[80];
    snprintf(shape, sizeof shape, "[{\"type\": \"int\", \"value\": %ld}]", h);
    larg a[] = {LA_T(*x), LA_J(shape), LA_T(w), LA_T(b),
                LA_J("{\"type\": \"float\", \"value\": 1e-05}")};
    lg_api(g, "Functional.layer_norm", a, LG_COUNT(a), NULL, y, 1, 0);
}

static void gpt_dropout(llama_gen *g, ltensor *x)
{
    ltensor y = *x;
    y.hi = x->hi / 0.9;
    y.lo = x->lo < 0 ? x->lo / 0.9 : 0.0;
    larg a[] = {LA_T(*x), LA_J("{\"type\": \"float\", \"value\": 0.1}"),
                LA_J("{\"type\": \"bool\", \"value\": true}"),
                LA_J("{\"type\": \"bool\", \"value\": false}")};
    lg_api(g, "Functional.dropout", a, LG_COUNT(a), NULL, &y, 1, 0);
    *x = y;
}

static void gpt_attention(llama_gen *g, const ltensor *x, ltensor *o)
{
    const llama_cfg *c = &g->c;
    long h = c->hidden, s = c->seq, b = c->batch, n = c->heads, d = c->head_dim;
    ltensor qkv;
    gpt_linear(g, x, 3 * h, 1, -3.0, 3.0, &qkv);
    ltensor part = lg_act(g, h, -3.0, 3.0, 1);
    ltensor parts[3] = {part, part, part};
    char split[64];
    snprintf(split, sizeof split, "{\"type\": \"int\", \"value\": %ld}", h);
    larg sp[] = {LA_T(qkv), LA_J(split)};
    lg_api(g, "Tensor.split", sp, LG_COUNT(sp), "\"dim\": {\"type\": \"int\", \"value\": -1}",
           parts, 3, 0);
    /* q, k, v: view(B, S, n, d).transpose(1, 2) */
    ltensor bsnd = LT(lg_dt(g), 4, b, s, n, d, -3.0, 3.0, 1);
    ltensor bnsd = LT(lg_dt(g), 4, b, n, s, d, -3.0, 3.0, 1);
    for (int i = 0; i < 3; i++) {
        larg a[] = {LA_T(bsnd), LA_J(JI(1)), LA_J(JI(2))};
        lg_api(g, "Tensor.transpose", a, LG_COUNT(a), NULL, &bnsd, 1, 0);
    }
    ltensor kt = LT(lg_dt(g), 4, b, n, d, s, -3.0, 3.0, 1);
    larg tk[] = {LA_T(bnsd), LA_J(JI(-2)), LA_J(JI(-1))};
    lg_api(g, "Tensor.transpose", tk, LG_COUNT(tk), NULL, &kt, 1, 0);
    double mm = 2.0 * (double)b * (double)n * (double)s * (double)s * (double)d;
    ltensor sc = LT(lg_dt(g), 4, b, n, s, s, -25.0, 25.0, 1);
    larg m1[] = {LA_T(bnsd), LA_T(kt)};
    lg_api(g, "Torch.matmul", m1, LG_COUNT(m1), NULL, &sc, 1, mm);
    char sq[80];
    snprintf(sq, sizeof sq, "{\"type\": \"float\", \"value\": %.17g}", __builtin_sqrt((double)d));
    ltensor scd = sc;
    scd.lo = -3.2;
    scd.hi = 3.2;
    larg dv[] = {LA_T(sc), LA_J(sq)};
    lg_api(g, "Tensor.__truediv__", dv, LG_COUNT(dv), NULL, &scd, 1, 0);
    /* the causal mask: tril(ones(S, S)) == 0, made in the forward as nanoGPT-style code does */
    ltensor ones = LT("torch.bool", 2, s, s, 0, 0, 0, 1, 0);
    ltensor tril = ones;
    larg tr[] = {LA_T(ones)};
    lg_api(g, "Torch.tril", tr, LG_COUNT(tr), NULL, &tril, 1, 0);
    ltensor masked = scd;
    masked.lo = -__builtin_inf();
    larg mf[] = {LA_T(scd), LA_T(tril), LA_J("{\"type\": \"float\", \"value\": -Infinity}")};
    lg_api(g, "Tensor.masked_fill", mf, LG_COUNT(mf), NULL, &masked, 1, 0);
    ltensor p = LT(lg_dt(g), 4, b, n, s, s, 0.0, 1.0, 1);
    larg sm[] = {LA_T(masked)};
    lg_api(g, "Functional.softmax", sm, LG_COUNT(sm), "\"dim\": {\"type\": \"int\", \"value\": -1}",
           &p, 1, 0);
    gpt_dropout(g, &p);
    ltensor y = bnsd;
    larg m2[] = {LA_T(p), LA_T(bnsd)};
    lg_api(g, "Torch.matmul", m2, LG_COUNT(m2), NULL, &y, 1, mm);
    larg tb[] = {LA_T(y), LA_J(JI(1)), LA_J(JI(2))};
    lg_api(g, "Tensor.transpose", tb, LG_COUNT(tb), NULL, &bsnd, 1, 0);
    /* .contiguous().view(B, S, H) is not wrapped: the projection reads [B, S, H] */
    ltensor flat = lg_act(g, h, -2.5, 2.5, 1);
    gpt_linear(g, &flat, h, 1, -2.0, 2.0, o);
    gpt_dropout(g, o);
}

static void gpt_mlp(llama_gen *g, const ltensor *x, ltensor *y)
{
    ltensor up, act;
    gpt_linear(g, x, g->c.ffn, 1, -4.0, 4.0, &up);
    act = up;
    act.lo = -0.17;
    larg ge[] = {LA_T(up)};
    lg_api(g, "Functional.gelu", ge, LG_COUNT(ge), NULL, &act, 1, 0);
    gpt_linear(g, &act, g->c.hidden, 1, -2.0, 2.0, y);
    gpt_dropout(g, y);
}

static void gpt_model(llama_gen *g)
{
    const llama_cfg *c = &g->c;
    long s = c->seq;
    char sv[64];
    snprintf(sv, sizeof sv, "{\"type\": \"int\", \"value\": %ld}", s);
    ltensor pos = LT("torch.int64", 1, s, 0, 0, 0, 0.0, (double)(s - 1), 0);
    larg ar[] = {LA_J(sv)};
    lg_api(g, "Torch.arange", ar, LG_COUNT(ar),
           "\"device\": {\"type\": \"torch.device\", \"value\": \"cpu:None\"}", &pos, 1, 0);
    ltensor ids = LT("torch.int64", 2, c->batch, s, 0, 0, 0.0, (double)(c->vocab - 1), 0);
    ltensor wte = LT(lg_dt(g), 2, c->vocab, c->hidden, 0, 0, -0.1, 0.1, 1);
    ltensor wpe = LT(lg_dt(g), 2, s, c->hidden, 0, 0, -0.1, 0.1, 1);
    ltensor tok = lg_act(g, c->hidden, -0.1, 0.1, 1);
    ltensor pe = LT(lg_dt(g), 2, s, c->hidden, 0, 0, -0.1, 0.1, 1);
    const char *tail[] = {"null", "null", "{\"type\": \"float\", \"value\": 2.0}",
                          "{\"type\": \"bool\", \"value\": false}",
                          "{\"type\": \"bool\", \"value\": false}"};
    larg e1[] = {LA_T(ids),     LA_T(wte),     LA_J(tail[0]), LA_J(tail[1]),
                 LA_J(tail[2]), LA_J(tail[3]), LA_J(tail[4])};
    lg_api(g, "Functional.embedding", e1, LG_COUNT(e1), NULL, &tok, 1, 0);
    larg e2[] = {LA_T(pos),     LA_T(wpe),     LA_J(tail[0]), LA_J(tail[1]),
                 LA_J(tail[2]), LA_J(tail[3]), LA_J(tail[4])};
    lg_api(g, "Functional.embedding", e2, LG_COUNT(e2), NULL, &pe, 1, 0);
    ltensor x = lg_act(g, c->hidden, -0.2, 0.2, 1);
    larg ad[] = {LA_T(tok), LA_T(pe)};
    lg_api(g, "Tensor.__add__", ad, LG_COUNT(ad), NULL, &x, 1, 0);
    gpt_dropout(g, &x);
    for (int l = 0; l < c->layers; l++) {
        ltensor n1, att, n2, mlp;
        gpt_layer_norm(g, &x, &n1);
        gpt_attention(g, &n1, &att);
        lg_residual(g, &x, &att);
        x = att;
        x.lo -= 1.0;
        x.hi += 1.0;
        gpt_layer_norm(g, &x, &n2);
        gpt_mlp(g, &n2, &mlp);
        lg_residual(g, &x, &mlp);
        x = mlp;
    }
    ltensor nf, logits;
    gpt_layer_norm(g, &x, &nf);
    gpt_linear(g, &nf, c->vocab, 0, -12.0, 12.0, &logits);
    /* logits.view(-1, V) is not wrapped */
    ltensor l2 = LT(lg_dt(g), 2, s * c->batch, c->vocab, 0, 0, -12.0, 12.0, 1);
    ltensor labels = LT("torch.int64", 1, s * c->batch, 0, 0, 0, 0.0, (double)(c->vocab - 1), 0);
    ltensor loss = LT(lg_dt(g), 0, 0, 0, 0, 0, 7.5, 7.5, 1);
    larg ce[] = {LA_T(l2), LA_T(labels)};
    lg_api(g, "Functional.cross_entropy", ce, LG_COUNT(ce), NULL, &loss, 1, 0);
    ltensor one = LT(lg_dt(g), 0, 0, 0, 0, 0, 1.0, 1.0, 0);
    larg ol[] = {LA_T(loss)};
    lg_api(g, "Torch.ones_like", ol, LG_COUNT(ol),
           "\"memory_format\": {\"type\": \"torch.memory_format\", \"format\": "
           "\"preserve_format\"}",
           &one, 1, 0);
}

/* Writes the dump to f (NULL: only the cost); returns the cost. */
llama_cost llama_dump_write(FILE *f, const llama_cfg *cfg)
{
    llama_gen g = {.f = f, .c = *cfg, .first = 1};
    const llama_cfg *c = cfg;
    if (f)
        fprintf(f, "{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"framework\": "
                   "\"pytorch\",\n \"dump_data_dir\": null,\n \"data\": {");
    if (c->gpt) {
        gpt_model(&g);
        if (f)
            fprintf(f, "\n }\n}\n");
        return g.cost;
    }
    /* embedding: ids [B, S] -> [B, S, H] */
    ltensor ids = LT("torch.int64", 2, c->batch, c->seq, 0, 0, 2.0, (double)(c->vocab - 1), 0);
    ltensor emb = LT(lg_dt(&g), 2, c->vocab, c->hidden, 0, 0, -0.1, 0.1, 1);
    ltensor e = LT(lg_dt(&g), 3, c->batch, c->seq, c->hidden, 0, -0.1, 0.1, 1);
    larg ea[] = {LA_T(ids),
                 LA_T(emb),
                 LA_J("null"),
                 LA_J("null"),
                 LA_J("{\"type\": \"float\", \"value\": 2.0}"),
                 LA_J("{\"type\": \"bool\", \"value\": false}"),
                 LA_J("{\"type\": \"bool\", \"value\": false}")};
    lg_api(&g, "Functional.embedding", ea, LG_COUNT(ea), NULL, &e, 1, 0);
    ltensor x = lg_act(&g, c->hidden, -0.1, 0.1, 1);
    if (!c->eager) {
        larg tr[] = {LA_T(e), LA_J("{\"type\": \"int\", \"value\": 0}"),
                     LA_J("{\"type\": \"int\", \"value\": 1}")};
        lg_api(&g, "Tensor.transpose", tr, LG_COUNT(tr), NULL, &x, 1, 0);
    }
    for (int l = 0; l < c->layers; l++) {
        ltensor n1, att, n2, mlp;
        lg_rms_norm(&g, &x, &n1);
        if (c->eager)
            lg_attention_eager(&g, &n1, &att);
        else
            lg_attention_fused(&g, &n1, &att);
        lg_residual(&g, &x, &att);
        x = att;
        lg_rms_norm(&g, &x, &n2);
        lg_mlp(&g, &n2, &mlp);
        lg_residual(&g, &x, &mlp);
        x = mlp;
    }
    ltensor nf, logits;
    lg_rms_norm(&g, &x, &nf);
    lg_linear(&g, &nf, c->vocab, &logits);
    /* loss: logits.float().view(-1, V), labels [S*B] */
    ltensor l2 = LT("torch.float32", 2, c->seq * c->batch, c->vocab, 0, 0, -12.0, 12.0, 1);
    if (!c->fp32) {
        ltensor l32 = logits;
        l32.dtype = "torch.float32";
        larg fl[] = {LA_T(logits)};
        lg_api(&g, "Tensor.float", fl, LG_COUNT(fl), NULL, &l32, 1, 0);
    }
    ltensor labels =
        LT("torch.int64", 1, c->seq * c->batch, 0, 0, 0, 0.0, (double)(c->vocab - 1), 0);
    ltensor loss = LT("torch.float32", 0, 0, 0, 0, 0, 9.5, 10.5, 1);
    larg ce[] = {LA_T(l2), LA_T(labels)};
    lg_api(&g, "Functional.cross_entropy", ce, LG_COUNT(ce),
           "\"weight\": null, \"size_average\": null, \"ignore_index\": {\"type\": \"int\", "
           "\"value\": -100}, \"reduce\": null, \"reduction\": {\"type\": \"str\", \"value\": "
           "\"mean\"}, \"label_smoothing\": {\"type\": \"float\", \"value\": 0.0}",
           &loss, 1, 0);
    if (f)
        fprintf(f, "\n }\n}\n");
    return g.cost;
}
