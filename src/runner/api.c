/* One API of run_ut: SKIP rules, inputs, bench and device runs, backward, comparison and
 * error data (docs/msprobe-contract.md#replay). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/dump/api_rules.h"
#include "precheck/inputs/inputs.h"
#include "precheck/io/file_out.h"
#include "precheck/io/path_check.h"
#include "precheck/io/pt.h"
#include "precheck/ops/schema.h"
#include "precheck/runner/cost.h"
#include "runner_impl.h"

#define MSG_MAX 2048

/* ---- the memory guard ---- */

size_t pc_api_memory_estimate(const pc_dump_api *api)
{
    const pc_dump_entry *e = &api->forward;
    double in = (double)pc_dump_arg_bytes(&e->input_args),
           out = (double)pc_dump_arg_bytes(&e->output);
    for (size_t i = 0; i < e->kwarg_count; i++)
        in += (double)pc_dump_arg_bytes(&e->kwargs[i].value);
    if (out == 0)
        out = in;
    double largest = in > out ? in : out;
    double total = (in + out) * 3.0; /* device, and the bench at twice the width */
    if (api->backward)
        total *= 2.0;
    total += largest * 2.0; /* comparison scratch: 8 bytes per element of a 4-byte output */
    return total > 1e18 ? (size_t)1e18 : (size_t)total;
}

/* The failure of an API inside msprobe's catch-all: logged, and the API's SKIP record. */
static pc_status api_error(pc_api_result *res, const pc_dump_api *api, const char *msg)
{
    pc_api_log_failure(api, msg, false);
    return pc_api_result_skip(res, api->full_name, msg);
}

/* ---- outputs as compare values ---- */

/* Outputs of one call, or gradient slots of its positional tensors (list items included). */
#define CMP_TREE_MAX 256

typedef struct cmp_tree {
    pc_cmp_value root;
    pc_cmp_value items[CMP_TREE_MAX];
    size_t count;
} cmp_tree;

/* Whether the call's result is a tuple: a Tensor[] return, or several tensors (max and min
 * return one tensor without dim and (values, indices) with it). */
static bool returns_tuple(const pc_op *op, int count)
{
    return count > 1 || (op->schema->nreturns == 1 && op->schema->returns[0].is_list);
}

static void outputs_tree(cmp_tree *t, const pc_op *op, const pc_op_result *r, bool first_only)
{
    if (pc_api_result_is_bool(op, r)) {
        /* a Python bool (torch.equal, Tensor.allclose), held as a 0-dim bool tensor */
        int64_t origin[PC_TENSOR_MAX_DIMS] = {0};
        t->root = pc_cmp_bool(pc_tensor_get(&r->tensors[0], origin) != 0);
        return;
    }
    /* a null tensor is an output that is None (a device's tuple may hold one) */
    if (first_only || !returns_tuple(op, r->count)) {
        t->root = r->count > 0 && !pc_tensor_is_null(&r->tensors[0]) ? pc_cmp_tensor(&r->tensors[0])
                                                                     : pc_cmp_none();
        return;
    }
    t->count = 0;
    for (int i = 0; i < r->count && t->count < sizeof t->items / sizeof t->items[0]; i++)
        t->items[t->count++] =
            pc_tensor_is_null(&r->tensors[i]) ? pc_cmp_none() : pc_cmp_tensor(&r->tensors[i]);
    t->root = pc_cmp_tuple(t->items, t->count);
}

/* The call argument that came from input_args[pos], or NULL. */
static const pc_value *positional(const pc_op_call *call, int pos, int *index)
{
    for (int i = 0; i < call->nargs; i++)
        if (call->args[i].src_pos == pos) {
            if (index)
                *index = i;
            return &call->args[i];
        }
    return NULL;
}

static size_t input_arg_count(const pc_dump_api *api)
{
    const pc_dump_arg *a = &api->forward.input_args;
    return a->kind == PC_DUMP_ARG_LIST ? a->u.list.count : 0;
}

/* How many tensor records a record holds, depth first. */
static size_t tensor_records(const pc_dump_arg *a)
{
    if (a->kind == PC_DUMP_ARG_TENSOR)
        return 1;
    size_t n = 0;
    for (size_t i = 0; a->kind == PC_DUMP_ARG_LIST && i < a->u.list.count; i++)
        n += tensor_records(&a->u.list.items[i]);
    return n;
}

/* The gradient list msprobe collects: one slot per tensor among the positional arguments,
 * depth first, None where the tensor did not require grad. */
static void grads_tree(cmp_tree *t, const pc_dump_api *api, const pc_op_call *call,
                       const pc_op_grads *g)
{
    t->count = 0;
    size_t cap = sizeof t->items / sizeof t->items[0];
    for (size_t pos = 0; pos < input_arg_count(api); pos++) {
        int idx = -1;
        const pc_value *v = positional(call, (int)pos, &idx);
        if (!v)
            continue;
        if (v->kind == PC_VALUE_TENSOR && !v->wrapped && t->count < cap) {
            const pc_tensor *gt =
                v->requires_grad && !pc_tensor_is_null(&g->grads[idx]) ? &g->grads[idx] : NULL;
            t->items[t->count++] = gt ? pc_cmp_tensor(gt) : pc_cmp_none();
        } else if (v->kind == PC_VALUE_TENSOR_LIST) {
            const pc_dump_arg *rec = &api->forward.input_args.u.list.items[pos];
            for (int k = 0; k < v->tensors.count && t->count < cap; k++) {
                bool rg = rec->kind == PC_DUMP_ARG_LIST && (size_t)k < rec->u.list.count &&
                          rec->u.list.items[k].kind == PC_DUMP_ARG_TENSOR &&
                          rec->u.list.items[k].u.tensor->requires_grad;
                const pc_tensor *gt =
                    rg && k < g->lists[idx].count && !pc_tensor_is_null(&g->lists[idx].items[k])
                        ? &g->lists[idx].items[k]
                        : NULL;
                t->items[t->count++] = gt ? pc_cmp_tensor(gt) : pc_cmp_none();
            }
        } else if (v->kind == PC_VALUE_INDEX) {
            /* the tensors of an index (x[t], x[:, t]) have no gradient: None slots */
            size_t n = tensor_records(&api->forward.input_args.u.list.items[pos]);
            for (size_t k = 0; k < n && t->count < cap; k++)
                t->items[t->count++] = pc_cmp_none();
        }
    }
    t->root = pc_cmp_list(t->items, t->count);
}

static bool any_requires_grad(const pc_op_call *call, const pc_dump_api *api)
{
    for (int i = 0; i < call->nargs; i++)
        if (call->args[i].kind == PC_VALUE_TENSOR && call->args[i].requires_grad &&
            pc_dtype_is_float(call->args[i].tensor.dtype))
            return true;
    /* tensors inside positional lists (cat, stack): their records say */
    const pc_dump_arg *in = &api->forward.input_args;
    for (size_t p = 0; in->kind == PC_DUMP_ARG_LIST && p < in->u.list.count; p++) {
        const pc_dump_arg *a = &in->u.list.items[p];
        for (size_t k = 0; a->kind == PC_DUMP_ARG_LIST && k < a->u.list.count; k++)
            if (a->u.list.items[k].kind == PC_DUMP_ARG_TENSOR &&
                a->u.list.items[k].u.tensor->requires_grad)
                return true;
    }
    return false;
}

/* ---- -save_error_data ---- */

/* An error-data file is rewritten by a resumed run that re-runs its API (REPLACE); never through
 * a link at its name (io/file_out.h). */
#define ERROR_DATA_FLAGS (PC_FILE_OUT_REPLACE | PC_FILE_OUT_NO_SYNC)

/* The files of one API's error data: the result counts them, and those that could not be
 * saved (with the first one's error), for the run to say once at its end (run_ut.c). */
typedef struct saver {
    const char *dir;
    const char *prefix;
    int k;
    pc_api_result *res;
} saver;

static void save_failed(saver *s, const char *why)
{
    s->res->error_data_unsaved++;
    pc_log_debug("%s", why);
    if (!s->res->error_data_error)
        s->res->error_data_error = strdup(why);
}

static void save_tensor(saver *s, const pc_tensor *t)
{
    char path[PC_PATH_BUFFER_SIZE];
    s->res->error_data_files++;
    int n = snprintf(path, sizeof path, "%s/%s.%d.pt", s->dir, s->prefix, s->k++);
    if (n < 0 || (size_t)n >= sizeof path) {
        char why[PC_PATH_BUFFER_SIZE + 128];
        snprintf(why, sizeof why, "%s/%s.%d.pt: the path is too long to be saved", s->dir,
                 s->prefix, s->k - 1);
        save_failed(s, why);
        return;
    }
    if (pc_pt_write_file(path, t, ERROR_DATA_FLAGS) != PC_OK ||
        pc_path_set_file_mode(path) != PC_OK)
        save_failed(s, pc_error_message());
}

static void save_value(saver *s, const pc_cmp_value *v)
{
    switch (v->kind) {
    case PC_CMP_TENSOR:
        save_tensor(s, v->tensor);
        break;
    case PC_CMP_LIST:
    case PC_CMP_TUPLE:
    case PC_CMP_DICT:
        for (size_t i = 0; i < v->count; i++)
            save_value(s, &v->items[i]);
        break;
    default:
        s->k++;
        break;
    }
}

/* The generated positional inputs, walked as the dump lists them. */
/* The tensor an index value made from its record (or from element k of a list record). */
static const pc_tensor *index_tensor(const pc_value *v, int k)
{
    if (!v || v->kind != PC_VALUE_INDEX || k < 0 || k >= v->index.count ||
        v->index.items[k].kind != PC_INDEX_TENSOR)
        return NULL;
    int64_t t = v->index.items[k].i;
    return t >= 0 && t < v->tensors.count ? &v->tensors.items[t] : NULL;
}

static void save_arg(saver *s, const pc_dump_arg *a, const pc_value *v)
{
    if (v && v->kind == PC_VALUE_INDEX) { /* x[t] and x[..., t]: the index tensors */
        const pc_tensor *t;
        if (a->kind == PC_DUMP_ARG_TENSOR && (t = index_tensor(v, 0)))
            save_tensor(s, t);
        else if (a->kind == PC_DUMP_ARG_LIST)
            for (size_t i = 0; i < a->u.list.count; i++) {
                const pc_dump_arg *item = &a->u.list.items[i];
                if (item->kind == PC_DUMP_ARG_TENSOR && (t = index_tensor(v, (int)i)))
                    save_tensor(s, t);
                else
                    save_arg(s, item, NULL);
            }
        else
            s->k++;
        return;
    }
    if (a->kind == PC_DUMP_ARG_LIST) {
        for (size_t i = 0; i < a->u.list.count; i++) {
            const pc_dump_arg *item = &a->u.list.items[i];
            if (v && v->kind == PC_VALUE_TENSOR_LIST && (int)i < v->tensors.count &&
                item->kind == PC_DUMP_ARG_TENSOR)
                save_tensor(s, &v->tensors.items[i]);
            else
                save_arg(s, item, NULL);
        }
        return;
    }
    if (a->kind == PC_DUMP_ARG_TENSOR && v && v->kind == PC_VALUE_TENSOR)
        save_tensor(s, &v->tensor);
    else
        s->k++;
}

typedef struct api_run {
    const pc_api_runner *r;
    const pc_dump_api *api;
    pc_op_call call;
    pc_record_cache records;
    pc_op_result bench_out, dev_out;
    pc_op_grads bench_grads, dev_grads;
    pc_tensor grad, bench_grad;
    bool ran_backward;
    cmp_tree bo, dvo, bg, dg;
} api_run;

static void save_error_data(api_run *x, pc_api_result *res)
{
    const char *dir = x->r->error_data_dir;
    const char *full = x->api->full_name;
    char prefix[1024];
    saver s = {dir, prefix, 0, res};
    snprintf(prefix, sizeof prefix, "%s.forward.input", full);
    const pc_dump_arg *args = &x->api->forward.input_args;
    for (size_t i = 0; args->kind == PC_DUMP_ARG_LIST && i < args->u.list.count; i++)
        save_arg(&s, &args->u.list.items[i], positional(&x->call, (int)i, NULL));
    s.k = 0; /* msprobe restarts the counter for the kwargs (same names as the args) */
    for (size_t i = 0; i < x->api->forward.kwarg_count; i++) {
        const pc_dump_field *f = &x->api->forward.kwargs[i];
        int si = pc_schema_find_arg(x->call.op->schema, f->key);
        save_arg(&s, &f->value, si >= 0 ? &x->call.args[si] : NULL);
    }
    s.k = 0;
    snprintf(prefix, sizeof prefix, "%s.forward.output.bench", full);
    save_value(&s, &x->bo.root);
    s.k = 0;
    snprintf(prefix, sizeof prefix, "%s.forward.output.device", full);
    save_value(&s, &x->dvo.root);
    if (!x->ran_backward)
        return;
    s.k = 0;
    snprintf(prefix, sizeof prefix, "%s.backward.input", full);
    save_tensor(&s, &x->bench_grad);
    s.k = 0;
    snprintf(prefix, sizeof prefix, "%s.backward.output.bench", full);
    save_value(&s, &x->bg.root);
    s.k = 0;
    snprintf(prefix, sizeof prefix, "%s.backward.output.device", full);
    save_value(&s, &x->dg.root);
}

/* ---- the pipeline ---- */

/* Adds the time since *t to *acc and restarts *t. */
static void lap(const pc_api_runner *r, double *acc, double *t)
{
    (void)r; /* always measured: each API's own device and bench times go into its result */
    double n = pc_clock_seconds();
    *acc += n - *t;
    *t = n;
}

/* The incoming gradient of output out_index: the backward record's input[0], rebuilt like any
 * input. */
static pc_status incoming_grad(api_run *x, pc_inputs *in, int out_index)
{
    const pc_dump_entry *b = x->api->backward;
    const pc_dump_arg *gin = &b->input;
    if (b->error)
        return pc_error_set(PC_ERR_INVALID, "%s", b->error);
    if (gin->kind == PC_DUMP_ARG_ABSENT)
        return pc_error_set(PC_ERR_INVALID,
                            "the backward entry %s has no \"input\" (nor msprobe 1.0's "
                            "\"grad_output\"): no gradient to run the backward with",
                            b->key);
    if (gin->kind != PC_DUMP_ARG_LIST)
        return pc_error_set(PC_ERR_INVALID,
                            "\"input\" of the backward entry %s is not a list (found: %s): no "
                            "gradient to run the backward with",
                            b->key, gin->error ? gin->error : pc_dump_arg_kind_name(gin->kind));
    if (gin->u.list.count == 0)
        return pc_error_set(PC_ERR_INVALID, "list index out of range");
    const pc_dump_arg *g0 = &gin->u.list.items[0];
    const pc_tensor *out0 = &x->dev_out.tensors[out_index];
    if (g0->kind == PC_DUMP_ARG_NULL) {
        if (pc_tensor_numel(out0) != 1)
            return pc_error_set(PC_ERR_INVALID,
                                "grad can be implicitly created only for scalar outputs");
        pc_status st = pc_tensor_alloc_like(&x->grad, out0, out0->dtype);
        if (st == PC_OK)
            pc_tensor_fill(&x->grad, 1.0);
        return st;
    }
    if (g0->kind != PC_DUMP_ARG_TENSOR)
        return g0->error ? pc_error_set(PC_ERR_INVALID, "%s", g0->error)
                         : pc_error_set(PC_ERR_INVALID,
                                        "input[0] of the backward entry %s is not a tensor "
                                        "(found: %s): no gradient to run the backward with",
                                        b->key, pc_dump_arg_kind_name(g0->kind));
    return pc_inputs_provide(in, x->api, g0, &x->grad);
}

/* The bench's forward, through the bench cache when there is one (*keyed: fkey is its key). */
static pc_status bench_forward(api_run *x, pc_cache_key *fkey, bool *keyed)
{
    const pc_api_runner *r = x->r;
    if (r->bench_cache && pc_cache_worth_keeping(x->api) &&
        pc_cache_key_call(fkey, "bench", r->bench_key, &x->call) == PC_OK) {
        *keyed = true;
        if (pc_cache_load_outputs(r->bench_cache, fkey, &x->bench_out) == PC_OK) {
            pc_log_debug("%s: bench outputs from the bench cache", x->api->full_name);
            return PC_OK;
        }
    }
    pc_status st = pc_backend_forward(r->bench, &x->call, &x->bench_out);
    if (st == PC_OK && *keyed &&
        pc_cache_store_outputs(r->bench_cache, fkey, &x->bench_out) != PC_OK)
        pc_log_warning("%s", pc_error_message());
    return st;
}

/* The bench's backward, through the bench cache when the forward had a key. */
static pc_status bench_backward(api_run *x, const pc_cache_key *fkey)
{
    const pc_api_runner *r = x->r;
    pc_cache_key gkey;
    bool keyed = fkey && pc_cache_key_grad(&gkey, fkey, &x->grad) == PC_OK;
    if (keyed && pc_cache_load_grads(r->bench_cache, &gkey, &x->call, &x->bench_grads) == PC_OK) {
        pc_log_debug("%s: bench gradients from the bench cache", x->api->full_name);
        return PC_OK;
    }
    pc_status st = pc_backend_backward(r->bench, &x->call, &x->grad, &x->bench_grads);
    if (st == PC_OK && keyed &&
        pc_cache_store_grads(r->bench_cache, &gkey, &x->call, &x->bench_grads) != PC_OK)
        pc_log_warning("%s", pc_error_message());
    return st;
}

static void api_run_free(api_run *x)
{
    pc_op_call_free(&x->call);
    pc_record_cache_free(&x->records);
    pc_op_result_free(&x->bench_out);
    pc_op_result_free(&x->dev_out);
    pc_op_grads_free(&x->bench_grads);
    pc_op_grads_free(&x->dev_grads);
    pc_tensor_free(&x->grad);
    pc_tensor_free(&x->bench_grad);
}

/* The isolation tests' trigger (runner.h, PC_RUN_FAULT_ENV). */
static void run_fault_hook(const char *full_name)
{
    const char *f = getenv(PC_RUN_FAULT_ENV);
    const char *colon = f ? strchr(f, ':') : NULL;
    if (colon && strncmp(f, "delay:", 6) == 0) {
        /* in steps of 10 ms, as work is done: a stop of the process (SIGSTOP) does not shorten
         * what is left, as a single sleep's end, fixed on the clock, would */
        for (long left = atol(colon + 1) % 1000; left > 0; left -= 10) {
            struct timespec ts = {0, (left < 10 ? left : 10) * 1000000L};
            nanosleep(&ts, NULL);
        }
        return;
    }
    if (!colon || strcmp(colon + 1, full_name) != 0)
        return;
    if (strncmp(f, "crash:", 6) == 0) {
        signal(SIGSEGV, SIG_DFL); /* a real crash, not a sanitizer's report */
        raise(SIGSEGV);
    }
    if (strncmp(f, "hang:", 5) == 0)
        for (;;)
            pause();
}

/* The checks before anything runs (pc_api_why_not_run): *decided when they make res. *why
 * is the answer, for pc_api_run's later cases. */
static pc_status run_early(const pc_api_runner *r, const pc_dump_api *api, pc_api_result *res,
                           bool *decided, pc_no_run *why)
{
    char msg[MSG_MAX];
    *decided = true;
    *why = pc_api_why_not_run(api, r->lists, r->max_api_bytes);
    switch (*why) {
    case PC_NO_RUN_UNSAFE_NAME: /* the run stops before it (run.c); never run if it did not */
        return api_error(res, api, "the API name holds a character msprobe forbids");
    case PC_NO_RUN_TYPE_REFUSED:
        pc_log_info("%s api is not supported for run ut. SKIP.", api->prefix);
        snprintf(msg, sizeof msg, "API %s not support for run ut. SKIP.", api->full_name);
        return pc_api_result_skip(res, api->full_name, msg);
    case PC_NO_RUN_NAME_UNSPLIT:
        snprintf(msg, sizeof msg, "API %s not support for run ut. SKIP.", api->full_name);
        pc_log_error("%s", msg);
        return pc_api_result_skip(res, api->full_name, msg);
    case PC_NO_RUN_LISTED:
        pc_api_lists_skip_message(api->api_name, msg, sizeof msg);
        pc_log_info("%s", msg);
        return pc_api_result_skip(res, api->full_name, msg);
    case PC_NO_RUN_BAD_RECORD:
        return api_error(res, api, pc_api_entry_error(api));
    case PC_NO_RUN_TOO_BIG: {
        size_t need = pc_api_memory_estimate(api);
        snprintf(msg, sizeof msg,
                 "This API needs about %.1f MB (its inputs and outputs on the device and the "
                 "bench%s), more than the %.1f MB it may use (--max-memory); skipped.",
                 (double)need / 1048576.0, api->backward ? ", forward and backward" : "",
                 (double)r->max_api_bytes / 1048576.0);
        return api_error(res, api, msg);
    }
    case PC_NO_RUN_NOT_EXECUTED: /* decided after the backward messages (pc_api_run) */
    case PC_NO_RUN_NO_OP:
    case PC_RUNS:
        break;
    }
    *decided = false;
    return PC_OK;
}

pc_status pc_api_run_early(const pc_api_runner *r, const pc_dump_api *api, pc_api_result *res,
                           bool *decided)
{
    pc_no_run why;
    return run_early(r, api, res, decided, &why);
}

pc_status pc_api_run(const pc_api_runner *r, const pc_dump_api *api, pc_api_result *res)
{
    char msg[MSG_MAX];
    bool decided = false;
    pc_no_run why;
    pc_status early = run_early(r, api, res, &decided, &why);
    if (decided)
        return early;
    run_fault_hook(api->full_name);

    /* backward messages, decided before execution */
    char bwd_msg[MSG_MAX] = "";
    bool need_grad = true;
    if (pc_api_has_kwarg(&api->forward, "out")) {
        pc_log_warning("%s function with out=... arguments don't support automatic "
                       "differentiation, skip backward.",
                       api->full_name);
        strcat(bwd_msg, "function with out=... arguments don't support automatic "
                        "differentiation, skip backward.");
        need_grad = false;
    }
    const pc_api_rule *rule = pc_api_rule_of(api->api_name);
    if (rule->no_backward) { /* repeat_interleave, masked_select (api_rules.def) */
        pc_log_info("%s", rule->no_backward);
        strcat(bwd_msg, rule->no_backward);
        need_grad = false;
    }

    if (why == PC_NO_RUN_NOT_EXECUTED) {
        /* msprobe runs nothing for these types (VF, ...): both outputs are None */
        pc_cmp_value none = pc_cmp_none();
        pc_api_outputs outs = {&none, &none, NULL, NULL, bwd_msg};
        return pc_compare_api(res, api->full_name, &outs, &r->compare);
    }
    const pc_api_name *name = pc_api_find_op(api, msg, sizeof msg);
    if (!name)
        return api_error(res, api, msg);

    api_run *x = calloc(1, sizeof *x);
    if (!x)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    x->r = r;
    x->api = api;
    /* this API's seconds per stage: its result carries the device's and the bench's (the summary
     * JSON, the report, the slowest APIs in the log), r->timing sums them over the run */
    pc_run_timing api_tm = {0}, *tm = &api_tm;
    double t0 = pc_clock_seconds();
    tm->apis++;
    pc_inputs in = {.max_bytes = r->max_tensor_bytes};
    pc_inputs_begin(&in, r->dump, r->seed, api);
    x->records.in = &in;
    pc_status st =
        pc_api_bind(r->dump, api, &name, r->seed, r->device->vt->flags & PC_BACKEND_WANTS_RECORDS,
                    &x->records, &x->call);
    lap(r, &tm->inputs, &t0);
    if (st == PC_OK) {
        pc_dtype ac = pc_autocast_dtype(&x->call, api);
        x->call.autocast = ac != PC_DTYPE_INVALID ? 1 + (int)ac : 0;
        x->call.needs_backward = api->backward && need_grad;
    }
    const pc_op_call *dev_call = &x->call;
    if (st == PC_OK && !pc_backend_supports(r->device, dev_call, msg, sizeof msg))
        st = pc_error_set(PC_ERR_UNSUPPORTED, "%s", msg);
    /* the CPU bench runs first, then the device */
    pc_cache_key fkey;
    bool keyed = false;
    if (st == PC_OK)
        st = bench_forward(x, &fkey, &keyed);
    lap(r, &tm->bench, &t0);
    if (st == PC_OK)
        st = pc_backend_forward(r->device, dev_call, &x->dev_out);
    lap(r, &tm->device, &t0);
    if (st == PC_ERR_NOMEM)
        goto done;
    if (st != PC_OK) {
        snprintf(msg, sizeof msg, "%s", pc_error_message());
        st = api_error(res, api, msg);
        goto done;
    }
    bool first_only = rule->first_output_only;
    /* Tensor.__setitem__: msprobe compares None with None (a SKIP details row, forward pass)
     * and runs no backward */
    bool none_out = pc_api_returns_none(api);
    if (none_out) {
        x->bo.root = pc_cmp_none();
        x->dvo.root = pc_cmp_none();
    } else {
        outputs_tree(&x->bo, x->call.op, &x->bench_out, first_only);
        outputs_tree(&x->dvo, x->call.op, &x->dev_out, first_only);
    }

    if (api->backward && need_grad && x->bench_out.count > 0 && !none_out) {
        bool tuple = returns_tuple(x->call.op, x->bench_out.count);
        int grad_index = tuple ? rule->grad_index : 0;
        if (grad_index < 0) {
            strcat(bwd_msg, "Multiple backward is not supported.");
        } else if (!x->call.op->backward) {
            snprintf(bwd_msg + strlen(bwd_msg), sizeof bwd_msg - strlen(bwd_msg),
                     "precheck has no backward for %s yet, skip backward.", x->call.op->name);
        } else if (grad_index >= x->dev_out.count) {
            snprintf(msg, sizeof msg, "Run backward error when grad_index is %d", grad_index);
            st = api_error(res, api, msg);
            goto done;
        } else {
            /* the op's backward takes the gradient of output grad_index (0 for both APIs) */
            st = incoming_grad(x, &in, grad_index);
            if (st == PC_OK && !any_requires_grad(&x->call, api))
                st = pc_error_set(PC_ERR_INVALID, "element 0 of tensors does not require grad "
                                                  "and does not have a grad_fn");
            lap(r, &tm->inputs, &t0);
            if (st == PC_OK)
                st = bench_backward(x, keyed ? &fkey : NULL);
            lap(r, &tm->bench, &t0);
            bool device_grads = true;
            if (st == PC_OK) {
                st = pc_backend_backward(r->device, dev_call, &x->grad, &x->dev_grads);
                if (st == PC_ERR_NOT_FOUND) {
                    /* the device has no gradients for this call (replay: none recorded in a
                     * form that maps): the backward is SKIP with why, the forward stands */
                    snprintf(bwd_msg + strlen(bwd_msg), sizeof bwd_msg - strlen(bwd_msg), "%s",
                             pc_error_message());
                    device_grads = false;
                    st = PC_OK;
                }
            }
            lap(r, &tm->device, &t0);
            if (st == PC_ERR_NOMEM)
                goto done;
            if (st != PC_OK) {
                snprintf(msg, sizeof msg, "%s", pc_error_message());
                st = api_error(res, api, msg);
                goto done;
            }
            x->ran_backward = device_grads;
            grads_tree(&x->bg, api, &x->call, &x->bench_grads);
            grads_tree(&x->dg, api, &x->call, &x->dev_grads);
        }
    }
    pc_api_outputs outs = {&x->bo.root, &x->dvo.root, x->ran_backward ? &x->bg.root : NULL,
                           x->ran_backward ? &x->dg.root : NULL, bwd_msg};
    st = pc_compare_api(res, api->full_name, &outs, &r->compare);
    lap(r, &tm->compare, &t0);
    if (st == PC_OK && r->error_data_dir && res->forward != PC_VERDICT_SKIP &&
        (res->forward != PC_VERDICT_PASS ||
         (res->backward != PC_VERDICT_PASS && res->backward != PC_VERDICT_SPACE))) {
        if (x->ran_backward &&
            pc_bench_prepare_grad(&x->call, r->policy, &x->grad, &x->bench_grad) != PC_OK)
            pc_tensor_share(&x->bench_grad, &x->grad);
        save_error_data(x, res);
    }
done:
    if (st == PC_OK) {
        res->device_seconds = api_tm.device;
        res->bench_seconds = api_tm.bench;
    }
    if (r->timing) {
        r->timing->inputs += api_tm.inputs;
        r->timing->bench += api_tm.bench;
        r->timing->device += api_tm.device;
        r->timing->compare += api_tm.compare;
        r->timing->apis += api_tm.apis;
    }
    /* the API is done: what a backend kept for its backward goes (the bench's raised inputs) */
    pc_backend_idle(r->bench);
    pc_backend_idle(r->device);
    api_run_free(x);
    free(x);
    return st;
}
