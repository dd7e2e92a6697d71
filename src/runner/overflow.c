/* run_overflow_check (docs/msprobe-contract.md#formats): per API, whether inf/NaN in the outputs of
 * the reference device and of the device under test agree; and the whole run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/core/log.h"
#include "precheck/core/progress.h"
#include "precheck/dump/api_rules.h"
#include "precheck/io/path_check.h"
#include "runner_impl.h"

#define MSG_MAX 2048

/* The smallest magnitude a float64 rounds to infinity at as a float32 (the midpoint between
 * FLT_MAX and 2^128, which ties to the even 2^128). */
#define F32_INF_FROM 0x1.ffffffp127

static bool overflows(double v)
{
    return isnan(v) || fabs(v) >= F32_INF_FROM;
}

bool pc_overflow_in_tensor(const pc_tensor *t)
{
    /* msprobe: max and min through .float(); max is NaN when any element is, +inf when any
     * element rounds to +inf, and min likewise: the same as asking every element */
    if (pc_tensor_is_null(t) || pc_tensor_numel(t) == 0 ||
        !(pc_dtype_is_float(t->dtype) || pc_dtype_is_complex(t->dtype)))
        return false;
    pc_tensor c = PC_TENSOR_NULL;
    if (pc_tensor_contiguous(&c, t) != PC_OK) {
        /* no memory for a copy of a strided view: walk it by index */
        int64_t idx[PC_TENSOR_MAX_DIMS] = {0}, n = pc_tensor_numel(t);
        for (int64_t k = 0; k < n; k++) {
            double re, im;
            pc_element_load(pc_tensor_element_ptr(t, idx), t->dtype, &re, &im);
            if (overflows(re) || overflows(im))
                return true;
            for (int d = t->rank - 1; d >= 0 && ++idx[d] == t->shape[d]; d--)
                idx[d] = 0;
        }
        return false;
    }
    const char *p = pc_tensor_data(&c);
    size_t es = pc_dtype_size(c.dtype);
    bool found = false;
    for (int64_t k = 0, n = pc_tensor_numel(&c); k < n && !found; k++) {
        double re, im;
        pc_element_load(p + (size_t)k * es, c.dtype, &re, &im);
        found = overflows(re) || overflows(im);
    }
    pc_tensor_free(&c);
    return found;
}

/* Whether a result is None: the call returned nothing, or one null tensor. */
static bool result_is_none(const pc_dump_api *api, const pc_op_result *r)
{
    return pc_api_returns_none(api) || r->count == 0 ||
           (r->count == 1 && pc_tensor_is_null(&r->tensors[0]));
}

static bool result_overflows(const pc_op_result *r)
{
    for (int i = 0; i < r->count; i++)
        if (pc_overflow_in_tensor(&r->tensors[i]))
            return true;
    return false;
}

/* A failure of the API inside msprobe's catch-all: logged, and not checked. */
static pc_status skipped(pc_overflow_result *res, const pc_dump_api *api, const char *msg)
{
    pc_api_log_failure(api, msg, true);
    res->verdict = PC_OVERFLOW_SKIPPED;
    return PC_OK;
}

static void both_none(pc_overflow_result *res, const pc_dump_api *api)
{
    pc_log_warning("The %s overflow is a normal overflow, out and npu_out is None.",
                   api->full_name);
    res->verdict = PC_OVERFLOW_NORMAL;
}

/* The forward of call on backend b. */
static pc_status forward_on(const pc_backend *b, const pc_op_call *call, pc_op_result *out)
{
    char why[MSG_MAX] = "";
    if (!pc_backend_supports(b, call, why, sizeof why))
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s", why);
    return pc_backend_forward(b, call, out);
}

/* The verdict on the two results (msprobe's order: None, bool, then the overflow). */
static void judge(pc_overflow_result *res, const pc_dump_api *api, const pc_op *op,
                  const pc_op_result *ref, const pc_op_result *dev)
{
    if (result_is_none(api, ref) && result_is_none(api, dev)) {
        both_none(res, api);
        return;
    }
    if (pc_api_result_is_bool(op, ref) || pc_api_result_is_bool(op, dev)) {
        pc_log_warning("The output of %s is bool type.This dtype not support overflow, so it "
                       "will be skipped.",
                       api->full_name);
        res->verdict = PC_OVERFLOW_SKIPPED;
        return;
    }
    res->reference_overflow = !result_is_none(api, ref) && result_overflows(ref);
    res->device_overflow = !result_is_none(api, dev) && result_overflows(dev);
    bool same = res->reference_overflow == res->device_overflow;
    res->verdict = same ? PC_OVERFLOW_NORMAL : PC_OVERFLOW_ABNORMAL;
    pc_log_warning("The %s overflow is %s overflow.", api->full_name,
                   same ? "a normal" : "an abnormal");
    /* precheck's addition: which side saw inf/NaN (msprobe's line does not say) */
    if (res->reference_overflow && res->device_overflow)
        pc_log_info("%s: inf or NaN in the outputs of both the reference device and the device "
                    "under test.",
                    api->full_name);
    else if (res->reference_overflow || res->device_overflow)
        pc_log_info("%s: inf or NaN in the outputs of the %s only, not of the %s.", api->full_name,
                    res->device_overflow ? "device under test" : "reference device",
                    res->device_overflow ? "reference device" : "device under test");
}

pc_status pc_overflow_check_api(const pc_overflow_runner *r, const pc_dump_api *api,
                                pc_overflow_result *res)
{
    char msg[MSG_MAX];
    *res = (pc_overflow_result){PC_OVERFLOW_SKIPPED, false, false};
    /* msprobe's run_overflow_check refuses the NPU type too: an INFO line, nothing checked */
    const pc_api_type_rule *type = pc_api_type_rule_of(api->prefix);
    if (type->refused || type->overflow_refused) {
        pc_log_info("%s api is not supported for run ut. SKIP.", api->prefix);
        return PC_OK;
    }
    const char *bad = pc_api_entry_error(api);
    if (bad)
        return skipped(res, api, bad);
    /* a name of other than 3 or 4 segments has no type: msprobe executes nothing for it, as for
     * the types it does not execute (VF, ...), and both outputs are None */
    if (!api->api_type || !pc_api_type_executed(api->api_type)) {
        both_none(res, api);
        return PC_OK;
    }
    const pc_api_name *name = pc_api_find_op(api, msg, sizeof msg);
    if (!name)
        return skipped(res, api, msg);

    pc_inputs in = {.max_bytes = r->max_tensor_bytes};
    pc_inputs_begin(&in, r->dump, r->seed, api);
    pc_record_cache records = {.in = &in};
    pc_op_call call = {0};
    pc_op_result ref = {0}, dev = {0};
    bool want_records = (r->reference->vt->flags | r->device->vt->flags) & PC_BACKEND_WANTS_RECORDS;
    pc_status st = pc_api_bind(r->dump, api, &name, r->seed, want_records, &records, &call);
    /* msprobe's "need_grad" here is the recorded output dtype (a bug that warns whenever it is
     * not a float dtype); the evident intent is run_ut's warning for an out= argument */
    if (st == PC_OK && pc_api_has_kwarg(&api->forward, "out"))
        pc_log_warning("%s function with out=... arguments don't support automatic "
                       "differentiation, skip backward.",
                       api->full_name);
    /* no autocast and no backward on either side; the CPU runs first, then the device */
    if (st == PC_OK)
        st = forward_on(r->reference, &call, &ref);
    if (st == PC_OK && r->device != r->reference)
        st = forward_on(r->device, &call, &dev);
    if (st == PC_ERR_NOMEM)
        goto done;
    if (st != PC_OK) {
        snprintf(msg, sizeof msg, "%s", pc_error_message());
        st = skipped(res, api, msg);
        goto done;
    }
    judge(res, api, call.op, &ref, r->device != r->reference ? &dev : &ref);
done:
    pc_backend_idle(r->reference);
    if (r->device != r->reference)
        pc_backend_idle(r->device);
    pc_op_result_free(&ref);
    pc_op_result_free(&dev);
    pc_op_call_free(&call);
    pc_record_cache_free(&records);
    return st;
}

/* ---- the whole run ---- */

typedef struct overflow_counts {
    size_t apis, normal, abnormal, skipped, both;
} overflow_counts;

static void count(overflow_counts *c, const pc_overflow_result *res)
{
    c->apis++;
    if (res->verdict == PC_OVERFLOW_NORMAL)
        c->normal++;
    else if (res->verdict == PC_OVERFLOW_ABNORMAL)
        c->abnormal++;
    else
        c->skipped++;
    if (res->reference_overflow && res->device_overflow)
        c->both++;
}

int pc_run_overflow_check(const pc_overflow_options *o)
{
    int rc = 1;
    pc_backend device = {0}, reference = {0};
    pc_dump *dump = NULL;
    pc_progress *progress = NULL;
    char dump_path[PC_PATH_BUFFER_SIZE];
    int ranks = pc_mpi_env_size();
    if (ranks > 1) { /* every rank would run the whole check and log it */
        pc_log_error("run_overflow_check runs in one process, and this one is one of %d ranks "
                     "of an MPI launcher (mpirun): start it without mpirun.",
                     ranks);
        goto out;
    }
    if (pc_path_check(o->api_info ? o->api_info : "", PC_PATH_FILE, PC_PATH_READ, ".json",
                      dump_path, sizeof dump_path) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    if (o->device_id < 0) {
        pc_log_error("Set NPU device id failed. device id is: %d", o->device_id);
        goto out;
    }
    /* opened here, in the process that runs the APIs; what must not cross fork (Python, a
     * device context) starts on the first API */
    pc_backend_host host = {
        .device_ids = &o->device_id,
        .device_count = 1,
        .workers = 0,
        .jit_compile = o->jit_compile,
        .python = o->python,
    };
    if (pc_backend_open_spec(&device, o->backend ? o->backend : "cpu", &host) != PC_OK ||
        pc_backend_open(&reference, &pc_backend_cpu, NULL, NULL) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    char line[1024];
    pc_backend_describe(&device, line, sizeof line);
    pc_log_info("%s", line);
    bool same = device.vt == &pc_backend_cpu;
    if (same)
        pc_log_info("The device under test is the reference device: both sides agree by "
                    "construction, and an overflow found comes from the inputs alone.");
    else
        pc_log_info("The reference side is precheck's reference device in the dumped dtypes; "
                    "an overflow is inf or NaN in an API's outputs, on either side.");
    pc_log_info("start UT test");
    if (pc_dump_open(&dump, dump_path) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto out;
    }
    if (dump->data_empty)
        pc_log_warning("data field is empty, no overflow data found.");
    pc_overflow_runner runner = {
        .dump = dump,
        .reference = &reference,
        .device = same ? &reference : &device,
        .seed = o->seed,
        .max_tensor_bytes = pc_inputs_default_max_bytes(),
    };
    pc_backend_worker_start(&reference, 0);
    if (!same)
        pc_backend_worker_start(&device, 0);
    if (o->progress)
        progress = pc_progress_new(NULL, dump->api_count, stderr);
    overflow_counts c = {0};
    for (size_t i = 0; i < dump->api_count; i++) {
        const pc_dump_api *api = &dump->apis[i];
        if (api->unsafe_name) { /* msprobe aborts the run here */
            pc_progress_free(progress);
            progress = NULL;
            pc_log_error("api name contains special characters, please check!");
            goto out;
        }
        pc_overflow_result res;
        if (pc_overflow_check_api(&runner, api, &res) != PC_OK) {
            pc_log_error("Run %s UT Error: %s", api->full_name, pc_error_message());
            res = (pc_overflow_result){PC_OVERFLOW_SKIPPED, false, false};
        }
        count(&c, &res);
        pc_progress_update(progress, i + 1);
    }
    pc_progress_free(progress);
    progress = NULL;
    /* precheck's addition: msprobe ends without a summary */
    pc_log_info("Overflow check of %zu API(s): %zu normal overflow (inf or NaN on both sides: "
                "%zu), %zu abnormal overflow, %zu skipped.",
                c.apis, c.normal, c.both, c.abnormal, c.skipped);
    rc = 0;
out:
    pc_progress_free(progress);
    pc_dump_free(dump);
    pc_backend_close(&device);
    pc_backend_close(&reference);
    return rc;
}
