/* What run_ut (api.c) and run_overflow_check (overflow.c) do alike for one API before and
 * around its run: msprobe's API types, entry checks, the op lookup, the inputs through a
 * record cache and the binding, and the catch-all's log line (docs/msprobe-contract.md#replay). */
#include <stdlib.h>
#include <string.h>

#include "precheck/core/log.h"
#include "precheck/dump/api_rules.h"
#include "precheck/ops/schema.h"
#include "runner_impl.h"

bool pc_api_prefix_refused(const char *prefix)
{
    return pc_api_type_rule_of(prefix)->refused;
}

bool pc_api_type_executed(const char *type)
{
    return pc_api_type_rule_of(type)->executed;
}

bool pc_api_has_kwarg(const pc_dump_entry *e, const char *key)
{
    for (size_t i = 0; i < e->kwarg_count; i++)
        if (strcmp(e->kwargs[i].key, key) == 0)
            return true;
    return false;
}

/* The first argument record precheck could not read (its message), or NULL. */
static const char *arg_error(const pc_dump_arg *a)
{
    if (a->error)
        return a->error;
    if (a->kind == PC_DUMP_ARG_LIST)
        for (size_t i = 0; i < a->u.list.count; i++) {
            const char *e = arg_error(&a->u.list.items[i]);
            if (e)
                return e;
        }
    if (a->kind == PC_DUMP_ARG_OBJECT)
        for (size_t i = 0; i < a->u.object.count; i++) {
            const char *e = arg_error(&a->u.object.fields[i].value);
            if (e)
                return e;
        }
    return NULL;
}

const char *pc_api_entry_error(const pc_dump_api *api)
{
    const pc_dump_entry *e = &api->forward;
    if (e->error)
        return e->error;
    const char *err = arg_error(&e->input_args);
    for (size_t i = 0; !err && i < e->kwarg_count; i++)
        err = arg_error(&e->kwargs[i].value);
    return err;
}

pc_no_run pc_api_why_not_run(const pc_dump_api *api, const pc_api_lists *lists,
                             size_t max_api_bytes)
{
    if (api->unsafe_name)
        return PC_NO_RUN_UNSAFE_NAME;
    if (pc_api_prefix_refused(api->prefix))
        return PC_NO_RUN_TYPE_REFUSED;
    if (!api->api_name)
        return PC_NO_RUN_NAME_UNSPLIT;
    if (pc_api_lists_skip(lists, api->api_name))
        return PC_NO_RUN_LISTED;
    if (api->forward.error)
        return PC_NO_RUN_BAD_RECORD;
    if (max_api_bytes && pc_api_memory_estimate(api) > max_api_bytes)
        return PC_NO_RUN_TOO_BIG;
    if (pc_api_entry_error(api))
        return PC_NO_RUN_BAD_RECORD;
    if (!pc_api_type_executed(api->api_type))
        return PC_NO_RUN_NOT_EXECUTED;
    if (!pc_api_lookup(api->api_type, api->api_name))
        return PC_NO_RUN_NO_OP;
    return PC_RUNS;
}

const char *pc_no_run_text(pc_no_run why)
{
    switch (why) {
    case PC_RUNS:
        return "";
    case PC_NO_RUN_UNSAFE_NAME:
        return "the name starts with a character msprobe forbids: run_ut stops the run there";
    case PC_NO_RUN_TYPE_REFUSED:
        return "run_ut does not run this type (msprobe: not support for run ut)";
    case PC_NO_RUN_NAME_UNSPLIT:
        return "the name does not split into type, api and call index";
    case PC_NO_RUN_LISTED:
        return "in msprobe's built-in black list";
    case PC_NO_RUN_BAD_RECORD:
        return "a record of its forward entry cannot be read: its row is a SKIP naming it";
    case PC_NO_RUN_TOO_BIG:
        return "it needs more memory than --max-memory allows";
    case PC_NO_RUN_NOT_EXECUTED:
        return "msprobe executes no API of this type (its row is a pass with no outputs)";
    case PC_NO_RUN_NO_OP:
        return "not supported by precheck yet";
    }
    return "";
}

const pc_api_name *pc_api_find_op(const pc_dump_api *api, char *why, size_t size)
{
    const pc_api_name *name = pc_api_lookup(api->api_type, api->api_name);
    if (name)
        return name;
    /* every NPU op msprobe has a bench function for is in the table; for the others msprobe
     * fails with this exception, on every device */
    if (pc_api_type_rule_of(api->api_type)->no_bench)
        snprintf(why, size, "There is not bench function %s", api->api_name);
    else
        pc_api_supported(api->api_type, api->api_name, why, size);
    return NULL;
}

bool pc_api_returns_none(const pc_dump_api *api)
{
    return pc_api_rule_of(api->api_name)->returns_none;
}

bool pc_api_result_is_bool(const pc_op *op, const pc_op_result *r)
{
    const pc_schema *sc = op->schema;
    return sc->nreturns == 1 && sc->returns[0].type == PC_ARG_BOOL && !sc->returns[0].is_list &&
           r->count == 1 && pc_tensor_numel(&r->tensors[0]) == 1;
}

void pc_api_log_failure(const pc_dump_api *api, const char *msg, bool overflow_check)
{
    /* run_overflow_check names the API by the middle of a 3-segment name; a 4-segment name
     * crashes its handler there, where the evident intent is the API's name (linalg.norm) */
    const char *name = api->api_name ? api->api_name : api->full_name;
    if (overflow_check && strstr(msg, "not implemented for 'Half'"))
        pc_log_warning("API %s not support half tensor in CPU. This API does not support "
                       "overflow check, so it will be skipped.",
                       name);
    else if (strstr(msg, "expected scalar type Long"))
        pc_log_warning("API %s not support int32 tensor in CPU, please add %s to CONVERT_API "
                       "'int32_to_int64' list in accuracy_tools/msprobe/core/common/const.py "
                       "file.",
                       name, name);
    else if (overflow_check &&
             strstr(msg, "could not create a primitive descriptor for a matmul primitive"))
        pc_log_warning("API %s not support matmul primitive in CPU due to pytorch bug, so it "
                       "will be skipped.",
                       name);
    else
        pc_log_error("Run %s UT Error: %s", api->full_name, msg);
}

/* ---- the record cache ---- */

pc_status pc_record_cache_provide(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg,
                                  pc_tensor *out)
{
    pc_record_cache *c = ctx;
    for (int i = 0; i < c->count; i++)
        if (c->items[i].record == arg) {
            pc_tensor_share(out, &c->items[i].tensor);
            return PC_OK;
        }
    if (c->count == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        pc_record_tensor *items = realloc(c->items, (size_t)cap * sizeof *items);
        if (!items)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        c->items = items;
        c->cap = cap;
    }
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_inputs_provide(c->in, api, arg, &t);
    if (st != PC_OK)
        return st;
    c->items[c->count].record = arg;
    c->items[c->count++].tensor = t;
    pc_tensor_share(out, &t);
    return PC_OK;
}

/* Every tensor record under a, depth first, made through the cache. */
static pc_status cache_records(pc_record_cache *c, const pc_dump_api *api, const pc_dump_arg *a)
{
    if (a->kind == PC_DUMP_ARG_TENSOR) {
        if (a->error)
            return pc_error_set(PC_ERR_INVALID, "%s", a->error);
        pc_tensor t = PC_TENSOR_NULL;
        pc_status st = pc_record_cache_provide(c, api, a, &t);
        pc_tensor_free(&t);
        return st;
    }
    pc_status st = PC_OK;
    for (size_t i = 0; a->kind == PC_DUMP_ARG_LIST && i < a->u.list.count && st == PC_OK; i++)
        st = cache_records(c, api, &a->u.list.items[i]);
    return st;
}

void pc_record_cache_free(pc_record_cache *c)
{
    for (int i = 0; i < c->count; i++)
        pc_tensor_free(&c->items[i].tensor);
    free(c->items);
    c->items = NULL;
    c->count = c->cap = 0;
}

pc_status pc_api_bind(const pc_dump *dump, const pc_dump_api *api, const pc_api_name **name,
                      uint64_t seed, bool want_records, pc_record_cache *cache, pc_op_call *call)
{
    pc_status st = pc_op_bind_overloads(api, *name, pc_record_cache_provide, cache, call, name);
    call->seed = seed; /* dropout's masks: keyed by (seed, API, side) */
    if (st == PC_OK && want_records) {
        st = cache_records(cache, api, &api->forward.input_args);
        for (size_t i = 0; st == PC_OK && i < api->forward.kwarg_count; i++)
            st = cache_records(cache, api, &api->forward.kwargs[i].value);
    }
    if (st != PC_OK)
        return st;
    /* how msprobe runs the API on its device (backend.h, call.h) */
    call->dump = dump;
    call->api = api;
    call->records = cache->items;
    call->nrecords = cache->count;
    return PC_OK;
}
