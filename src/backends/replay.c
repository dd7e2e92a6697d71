/*
 * The "replay" backend: the device results are the ones the device produced during training,
 * read from the tensor-mode dump (the forward record's output files and the backward record's
 * output files); only the bench is computed. It computes nothing: it reads the record the call
 * was bound from (call->dump, call->api).
 *
 * Gradients: the backward record's output lists the gradients of the inputs of the autograd
 * node that made the first output, in that node's input order, with null for inputs that need
 * no gradient -- or without them (batch_norm's running statistics, embedding's indices). They
 * are mapped onto the positional tensor arguments in order: an argument that requires grad
 * takes the next gradient; one that does not takes the next entry only if it is null. Every
 * mapped gradient must have its argument's shape, and nothing but nulls may be left over:
 * otherwise the node was another one and the backward is a SKIP saying so. linear and matmul
 * on 3-D/4-D inputs are the common case: torch 1.13 runs them as one addmm/bmm on flattened
 * operands and views the result, so the record holds the view's input gradient -- the
 * incoming gradient reshaped, which the SKIP message says after comparing the two files
 * element by element -- and no gradient of the inputs at all: there is nothing to map. Known
 * exceptions: linear on a 2-D input records addmm's (bias, input, weight^T), which is mapped;
 * cross_entropy records nll_loss's (same shape as the input, other values), which is refused by
 * name.
 */
#include <stdio.h>
#include <string.h>

#include "precheck/backends/backend.h"
#include "precheck/dump/api_rules.h"
#include "precheck/dump/data.h"
#include "precheck/ops/schema.h"

static const char *const missing_hint =
    "replay reads what the device produced from the dump's tensor files: dump with task "
    "\"tensor\" and data_mode [\"all\"]";

static pc_status load_record(const pc_dump *dump, const pc_dump_api *api, const pc_dump_arg *a,
                             const char *what, pc_tensor *out)
{
    char path[256];
    pc_dump_arg_path(api, a, path, sizeof path);
    if (a->kind != PC_DUMP_ARG_TENSOR)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s %s of %s is %s, not a tensor record", what,
                            path, api->full_name, pc_dump_arg_kind_name(a->kind));
    if (!pc_dump_tensor_file(a->u.tensor) || !dump->has_real_data)
        return pc_error_set(PC_ERR_NOT_FOUND, "%s %s of %s has no tensor file (%s)", what, path,
                            api->full_name, missing_hint);
    return pc_dump_load_tensor(dump, api, a, out);
}

/* The device outputs of api as the dump recorded them: output[0], or every output when the op
 * returns a tuple. Errors name the record and say how to dump what replay needs. */
static pc_status replay_outputs(const pc_dump *dump, const pc_dump_api *api, bool tuple,
                                pc_op_result *out)
{
    const pc_dump_arg *o = &api->forward.output;
    if (o->kind != PC_DUMP_ARG_LIST || o->u.list.count == 0)
        return pc_error_set(PC_ERR_NOT_FOUND, "the forward record of %s has no output (%s)",
                            api->full_name, missing_hint);
    size_t n = tuple ? o->u.list.count : 1;
    if (n > PC_OP_MAX_OUTPUTS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s has %zu outputs, more than precheck's %d",
                            api->full_name, n, PC_OP_MAX_OUTPUTS);
    pc_op_result r = {0};
    for (size_t i = 0; i < n; i++) {
        pc_status st = load_record(dump, api, &o->u.list.items[i], "device output", &r.tensors[i]);
        if (st != PC_OK) {
            pc_op_result_free(&r);
            return st;
        }
        r.count = (int)i + 1;
    }
    *out = r;
    return PC_OK;
}

/* Ops whose first autograd node is an inner one with inputs of the same shapes as the API's,
 * so that the shape check cannot tell. */
static const struct {
    const char *op, *node;
} inner_nodes[] = {
    {"cross_entropy", "nll_loss, whose input is log_softmax's output"},
};

/* linear (PC_OP_REPLAY_ADDMM) on a 2-D input is one addmm (bias, input, weight^T) or mm
 * (input, weight^T) node: its gradients, reordered, with the weight's transposed back.
 * PC_ERR_NOT_FOUND when the record does not have that form. */
static pc_status linear_2d(const pc_dump *dump, const pc_dump_api *api, const pc_op_call *call,
                           const pc_dump_arg *g, pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *w = pc_call_tensor(call, 1);
    const pc_tensor *b = call->nargs > 2 ? pc_call_tensor(call, 2) : NULL;
    size_t want = b ? 3 : 2;
    if (!x || !w || x->rank != 2 || g->u.list.count != want)
        return PC_ERR_NOT_FOUND;
    pc_op_grads r = {0};
    const pc_tensor *like[3] = {b, x, NULL};
    int slot[3] = {2, 0, 1};
    size_t first = b ? 0 : 1;
    for (size_t k = 0; k < want; k++) {
        const pc_dump_arg *item = &g->u.list.items[k];
        size_t role = first + k;
        if (item->kind == PC_DUMP_ARG_NULL || !call->args[slot[role]].requires_grad)
            continue;
        pc_tensor t = PC_TENSOR_NULL;
        pc_status st = load_record(dump, api, item, "device gradient", &t);
        if (st == PC_OK && role == 2) { /* weight^T back to the weight's layout */
            pc_tensor c = PC_TENSOR_NULL;
            st = pc_tensor_transpose(&t, &t, 0, 1);
            if (st == PC_OK)
                st = pc_tensor_contiguous(&c, &t);
            pc_tensor_free(&t);
            t = c;
        }
        const pc_tensor *ref = role == 2 ? w : like[role];
        if (st != PC_OK || !pc_tensor_same_shape(&t, ref)) {
            pc_tensor_free(&t);
            pc_op_grads_free(&r);
            return st != PC_OK ? st : PC_ERR_NOT_FOUND;
        }
        r.grads[slot[role]] = t;
    }
    *out = r;
    return PC_OK;
}

/* Whether the recorded gradient t holds exactly the incoming gradient's elements (the file of
 * the backward record's input[0]), in any shape; the incoming gradient's shape into shape. */
static bool is_incoming(const pc_dump *dump, const pc_dump_api *api, const pc_dump_entry *b,
                        const pc_tensor *t, char *shape, size_t size)
{
    if (b->input.kind != PC_DUMP_ARG_LIST || b->input.u.list.count == 0)
        return false;
    pc_tensor in = PC_TENSOR_NULL, x = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    bool same = false;
    if (load_record(dump, api, &b->input.u.list.items[0], "incoming gradient", &in) == PC_OK &&
        in.dtype == t->dtype && pc_tensor_numel(&in) == pc_tensor_numel(t) &&
        pc_tensor_contiguous(&x, &in) == PC_OK && pc_tensor_contiguous(&y, t) == PC_OK) {
        same = memcmp(pc_tensor_data(&x), pc_tensor_data(&y),
                      (size_t)pc_tensor_numel(t) * pc_dtype_size(t->dtype)) == 0;
        pc_shape_format(shape, size, in.shape, in.rank);
    }
    pc_tensor_free(&in);
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    return same;
}

/* The device gradients of the call's positional tensors from the backward record's output.
 * PC_ERR_UNSUPPORTED with the backward SKIP message in why when they cannot be mapped. */
static pc_status replay_grads(const pc_dump *dump, const pc_dump_api *api, const pc_op_call *call,
                              pc_op_grads *out, char *why, size_t size)
{
    const pc_dump_entry *b = api->backward;
    const pc_dump_arg *g = &b->output;
    if (g->kind != PC_DUMP_ARG_LIST) {
        snprintf(why, size, "The backward record of %s has no output gradients (%s).",
                 api->full_name, missing_hint);
        return PC_ERR_UNSUPPORTED;
    }
    for (size_t i = 0; i < sizeof inner_nodes / sizeof inner_nodes[0]; i++)
        if (strcmp(call->op->name, inner_nodes[i].op) == 0) {
            snprintf(why, size,
                     "The backward record of %s belongs to its inner autograd node (%s), so "
                     "replay cannot compare its backward.",
                     api->full_name, inner_nodes[i].node);
            return PC_ERR_UNSUPPORTED;
        }
    for (int i = 0; i < call->nargs; i++)
        if (call->args[i].kind == PC_VALUE_TENSOR_LIST && call->args[i].src_pos >= 0) {
            snprintf(why, size,
                     "The backward record of %s lists gradients of a tensor list, which replay "
                     "does not map onto the list's items yet.",
                     api->full_name);
            return PC_ERR_UNSUPPORTED;
        }
    if (call->op->rules & PC_OP_REPLAY_ADDMM) {
        pc_status st = linear_2d(dump, api, call, g, out);
        if (st == PC_OK)
            return PC_OK;
        if (st != PC_ERR_NOT_FOUND) {
            snprintf(why, size, "%s", pc_error_message());
            return PC_ERR_UNSUPPORTED;
        }
    }
    pc_op_grads r = {0};
    size_t next = 0, count = g->u.list.count;
    const pc_dump_arg *input = &api->forward.input_args;
    size_t npos = input->kind == PC_DUMP_ARG_LIST ? input->u.list.count : 0;
    for (size_t pos = 0; pos < npos; pos++) {
        int idx = -1;
        for (int i = 0; i < call->nargs; i++)
            if (call->args[i].src_pos == (int)pos)
                idx = i;
        if (idx < 0 || call->args[idx].kind != PC_VALUE_TENSOR)
            continue;
        const pc_value *v = &call->args[idx];
        const pc_dump_arg *item = next < count ? &g->u.list.items[next] : NULL;
        bool wants = v->requires_grad && !v->wrapped;
        if (!wants) {
            if (item && item->kind == PC_DUMP_ARG_NULL)
                next++;
            continue;
        }
        if (!item)
            break;
        next++;
        if (item->kind == PC_DUMP_ARG_NULL)
            continue;
        pc_tensor t = PC_TENSOR_NULL;
        pc_status st = load_record(dump, api, item, "device gradient", &t);
        if (st != PC_OK) {
            snprintf(why, size, "%s", pc_error_message());
            pc_op_grads_free(&r);
            return PC_ERR_UNSUPPORTED;
        }
        if (!pc_tensor_same_shape(&t, &v->tensor)) {
            char a[PC_SHAPE_FORMAT_MAX], c[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(a, sizeof a, t.shape, t.rank);
            pc_shape_format(c, sizeof c, v->tensor.shape, v->tensor.rank);
            char gs[PC_SHAPE_FORMAT_MAX];
            if (count == 1 && is_incoming(dump, api, b, &t, gs, sizeof gs)) {
                /* torch 1.13 computes linear and matmul on 3-D/4-D inputs as one addmm/bmm on
                 * flattened operands and views the result: the output's node is that view,
                 * and what the dump recorded is its input's gradient, the incoming gradient
                 * reshaped (checked element by element: a gradient of the same element count
                 * as an input is not taken for the input's) -- nothing of the inputs' */
                snprintf(why, size,
                         "The backward record of %.200s holds one gradient %.64s: the incoming "
                         "gradient %.64s reshaped (torch records the view behind %.64s's output), "
                         "not the gradient of input_args[%zu] %.64s; the dump has no device "
                         "gradient of the inputs, so replay cannot compare its backward.",
                         api->full_name, a, gs, api->api_name, pos, c);
                pc_tensor_free(&t);
                pc_op_grads_free(&r);
                return PC_ERR_UNSUPPORTED;
            }
            snprintf(why, size,
                     "The recorded gradient %s does not fit input_args[%zu] %s: the dump's "
                     "backward record belongs to an inner autograd node of %s, so replay cannot "
                     "compare its backward.",
                     a, pos, c, api->api_name);
            pc_tensor_free(&t);
            pc_op_grads_free(&r);
            return PC_ERR_UNSUPPORTED;
        }
        r.grads[idx] = t;
    }
    for (; next < count; next++)
        if (g->u.list.items[next].kind != PC_DUMP_ARG_NULL) {
            snprintf(why, size,
                     "The backward record of %s holds more gradients than the arguments that "
                     "require grad: they belong to an inner autograd node, so replay cannot "
                     "compare its backward.",
                     api->full_name);
            pc_op_grads_free(&r);
            return PC_ERR_UNSUPPORTED;
        }
    *out = r;
    return PC_OK;
}

/* ---- the vtable ---- */

static pc_status replay_open(void **state, const char *options, const pc_backend_host *host)
{
    *state = NULL;
    if (options && *options)
        return pc_error_set(PC_ERR_INVALID, "backend replay takes no options, got '%s'", options);
    return PC_OK;
}

static void replay_close(void *state) {}

static void replay_describe(void *state, char *buf, size_t size)
{
    snprintf(buf, size,
             "device under test: the device's own results recorded in the tensor-mode dump "
             "(--backend replay); only the bench runs here");
}

static bool replay_supports(void *state, const pc_op_call *call, char *why, size_t size)
{
    return call && call->op;
}

static pc_status need_record(const pc_op_call *call)
{
    if (!call->dump || !call->api)
        return pc_error_set(PC_ERR_INVALID, "%s: replay needs the dump record of the call",
                            call->full_name ? call->full_name : call->op->name);
    return PC_OK;
}

static pc_status replay_forward(void *state, const pc_op_call *call, pc_op_result *out)
{
    pc_status st = need_record(call);
    if (st != PC_OK)
        return st;
    /* a tuple when the dump recorded several outputs, or the op returns a list */
    const pc_dump_arg *o = &call->api->forward.output;
    const pc_schema *sc = call->op->schema;
    bool tuple = (o->kind == PC_DUMP_ARG_LIST && o->u.list.count > 1) ||
                 (sc->nreturns == 1 && sc->returns[0].is_list);
    return replay_outputs(call->dump, call->api, tuple, out);
}

/* Whether two recorded tensors hold the same elements (dtype and shape included). */
static bool same_elements(const pc_tensor *a, const pc_tensor *b)
{
    if (a->dtype != b->dtype || !pc_tensor_same_shape(a, b))
        return false;
    pc_tensor ca = PC_TENSOR_NULL, cb = PC_TENSOR_NULL;
    bool same = pc_tensor_contiguous(&ca, a) == PC_OK && pc_tensor_contiguous(&cb, b) == PC_OK &&
                memcmp(pc_tensor_data(&ca), pc_tensor_data(&cb), pc_tensor_nbytes(&ca)) == 0;
    pc_tensor_free(&ca);
    pc_tensor_free(&cb);
    return same;
}

/* A dropout dumped with dropout removed (p = 0 at run time: msprobe 1.3.0 to 8.1.1 on the CPU
 * by default, 8.3.3's rm_dropout) returned its input unchanged, so its gradient must be the
 * incoming one; when the recorded gradient differs, the hooks saw another node's tensors (the
 * softmax before it), and comparing them with dropout's backward would be an "error" that says
 * nothing about the device. Writes why into why and returns true in that case. */
static bool dropout_removed(const pc_dump *dump, const pc_dump_api *api, char *why, size_t size)
{
    const pc_dump_entry *b = api->backward;
    const pc_dump_arg *in = &api->forward.input_args, *out = &api->forward.output;
    if (!pc_api_is_dropout(api->full_name) || !b || in->kind != PC_DUMP_ARG_LIST ||
        !in->u.list.count || out->kind != PC_DUMP_ARG_LIST || !out->u.list.count ||
        b->input.kind != PC_DUMP_ARG_LIST || !b->input.u.list.count ||
        b->output.kind != PC_DUMP_ARG_LIST || !b->output.u.list.count)
        return false;
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL, dy = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    bool removed = load_record(dump, api, &in->u.list.items[0], "input", &x) == PC_OK &&
                   load_record(dump, api, &out->u.list.items[0], "output", &y) == PC_OK &&
                   load_record(dump, api, &b->input.u.list.items[0], "gradient", &dy) == PC_OK &&
                   load_record(dump, api, &b->output.u.list.items[0], "gradient", &dx) == PC_OK &&
                   same_elements(&x, &y) && !same_elements(&dy, &dx);
    pc_error_clear();
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    pc_tensor_free(&dy);
    pc_tensor_free(&dx);
    if (removed)
        snprintf(why, size,
                 "%s was dumped with dropout removed: its recorded output equals its input (p = 0 "
                 "at run time: msprobe's default on the CPU from 1.3.0 to 8.1.1, 8.3.3's "
                 "rm_dropout), so its gradient must be the incoming one, but the recorded "
                 "gradient differs: it belongs to another node (the one before dropout), so "
                 "replay cannot compare dropout's backward.",
                 api->full_name);
    return removed;
}

static pc_status replay_backward(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                                 pc_op_grads *out)
{
    pc_status st = need_record(call);
    if (st != PC_OK)
        return st;
    char why[1024];
    if (dropout_removed(call->dump, call->api, why, sizeof why))
        return pc_error_set(PC_ERR_NOT_FOUND, "%s", why);
    if (replay_grads(call->dump, call->api, call, out, why, sizeof why) != PC_OK)
        return pc_error_set(PC_ERR_NOT_FOUND, "%s", why);
    return PC_OK;
}

const pc_backend_vtable pc_backend_replay = {
    .abi_version = PC_BACKEND_ABI_VERSION,
    .name = "replay",
    .open = replay_open,
    .close = replay_close,
    .describe = replay_describe,
    .supports = replay_supports,
    .forward = replay_forward,
    .backward = replay_backward,
};
