/* A bound call's life and its readers: its start (also the call a composite op makes of
 * another op), sharing, freeing, arguments, gradients by input position (precheck/ops/call.h).
 * The binder that builds a call from a dump record is in src/inputs/bind.c. */
#include <stdlib.h>
#include <string.h>

#include "ops/ops_impl.h"

void pc_op_call_init(pc_op_call *c, const pc_op *op, pc_api_form form, const char *full_name)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    c->form = form;
    c->full_name = full_name;
    c->nargs = op->schema->nargs;
    for (int i = 0; i < c->nargs; i++) {
        c->args[i].kind = PC_VALUE_NONE;
        c->args[i].src_pos = -1;
        c->args[i].tensor = PC_TENSOR_NULL;
    }
}

pc_status pc_op_call_of(const pc_op_call *parent, const char *op_name, pc_op_call *out)
{
    for (int k = 0; k < PC_OP_MAX_CALLS && parent->op->calls[k]; k++)
        if (strcmp(parent->op->calls[k]->name, op_name) == 0) {
            pc_op_call_init(out, parent->op->calls[k], PC_FORM_PLAIN, parent->full_name);
            out->seed = parent->seed;
            return PC_OK;
        }
    memset(out, 0, sizeof *out);
    return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s is missing", parent->full_name, op_name);
}

void pc_op_call_share(pc_op_call *out, const pc_op_call *src)
{
    *out = *src;
    for (int i = 0; i < src->nargs; i++) {
        const pc_value *v = &src->args[i];
        if (v->kind == PC_VALUE_TENSOR)
            pc_tensor_share(&out->args[i].tensor, &v->tensor);
        if (v->kind == PC_VALUE_TENSOR_LIST || v->kind == PC_VALUE_INDEX) {
            out->args[i].tensors.items =
                calloc((size_t)(v->tensors.count ? v->tensors.count : 1), sizeof(pc_tensor));
            if (!out->args[i].tensors.items) { /* no failure path: fall back to no tensors */
                out->args[i].tensors.count = 0;
                continue;
            }
            for (int k = 0; k < v->tensors.count; k++)
                pc_tensor_share(&out->args[i].tensors.items[k], &v->tensors.items[k]);
        }
    }
}

void pc_op_call_free(pc_op_call *call)
{
    if (!call)
        return;
    for (int i = 0; i < call->nargs; i++) {
        pc_value *v = &call->args[i];
        pc_tensor_free(&v->tensor);
        for (int k = 0; k < v->tensors.count; k++)
            pc_tensor_free(&v->tensors.items[k]);
        free(v->tensors.items);
        v->tensors.items = NULL;
        v->tensors.count = 0;
        v->kind = PC_VALUE_NONE;
    }
    call->nargs = 0;
}

void pc_op_result_free(pc_op_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < PC_OP_MAX_OUTPUTS; i++)
        pc_tensor_free(&r->tensors[i]);
    r->count = 0;
}

void pc_op_grads_free(pc_op_grads *g)
{
    if (!g)
        return;
    for (int i = 0; i < PC_SCHEMA_MAX_ARGS; i++) {
        pc_tensor_free(&g->grads[i]);
        for (int k = 0; k < g->lists[i].count; k++)
            pc_tensor_free(&g->lists[i].items[k]);
        free(g->lists[i].items);
        g->lists[i].items = NULL;
        g->lists[i].count = 0;
    }
}

const pc_tensor *pc_op_grads_of_input(const pc_op_call *call, const pc_op_grads *g, int pos)
{
    for (int i = 0; i < call->nargs; i++)
        if (call->args[i].src_pos == pos)
            return pc_tensor_is_null(&g->grads[i]) ? NULL : &g->grads[i];
    return NULL;
}

const pc_value *pc_call_arg(const pc_op_call *call, int i)
{
    return &call->args[i];
}

const pc_tensor *pc_call_tensor(const pc_op_call *call, int i)
{
    const pc_value *v = &call->args[i];
    return v->kind == PC_VALUE_TENSOR ? &v->tensor : NULL;
}

const pc_tensor *pc_op_call_record_tensor(const pc_op_call *call, const pc_dump_arg *record)
{
    for (int i = 0; call->records && i < call->nrecords; i++)
        if (call->records[i].record == record)
            return &call->records[i].tensor;
    return NULL;
}
