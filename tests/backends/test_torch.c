/*
 * The torch backend plug-in in process: tensors cross into torch without copies and come back
 * whole for every dtype and for offset and strided views, the DLPack deleter runs once, APIs
 * that write their inputs leave precheck's tensors untouched, and the results and gradients
 * agree with the reference device.
 *
 * The backend is opened here (the loader finds and loads libpython, the plug-in probes torch in
 * a child process), and everything that starts Python runs in a forked child, as in a run_ut
 * worker: the test process never starts Python itself.
 */
#include "pc_test.h"

#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "precheck/backends/backend.h"
#include "precheck/inputs/bind.h"
#include "precheck/inputs/inputs.h"
#include "precheck/ops/op.h"

typedef pc_status (*test_tensor_fn)(void *state, const pc_tensor *t, bool clone, uintptr_t *ptr,
                                    pc_tensor *back);

/* Inside the forked child: a failed check prints and ends the child with status 1. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, " [%s]\n", pc_error_message());                                        \
            fflush(stderr);                                                                        \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

static pc_backend torch_backend;
static bool have_torch;

static int setup(void **state)
{
    (void)state;
    setenv("PRECHECK_PLUGIN_DIR", PC_TEST_PLUGIN_DIR, 1);
    const char *python = pc_test_torch_python();
    if (!python)
        return 0;
    pc_backend_host host = {.python = python, .workers = 1};
    assert_int_equal(pc_backend_open_spec(&torch_backend, "torch:cpu,threads=1", &host), PC_OK);
    have_torch = true;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pc_backend_close(&torch_backend);
    return 0;
}

/* Runs fn in a child process (where Python starts) and asserts that it succeeded. */
static void in_child(void (*fn)(void))
{
    if (!have_torch)
        skip();
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pc_backend_worker_start(&torch_backend, 0);
        fn();
        fflush(NULL);
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- tensors across ---- */

static test_tensor_fn test_tensor_hook(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/precheck-backend-torch.so", PC_TEST_PLUGIN_DIR);
    void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    CHECK(dl != NULL, "the plug-in is loaded");
    void *sym = dlsym(dl, "precheck_torch_test_tensor");
    test_tensor_fn fn;
    memcpy(&fn, &sym, sizeof fn);
    CHECK(fn != NULL, "the plug-in exports its test hook");
    return fn;
}

static bool same_values(const pc_tensor *a, const pc_tensor *b)
{
    if (a->dtype != b->dtype || !pc_tensor_same_shape(a, b))
        return false;
    pc_tensor ca = PC_TENSOR_NULL, cb = PC_TENSOR_NULL;
    if (pc_tensor_contiguous(&ca, a) != PC_OK || pc_tensor_contiguous(&cb, b) != PC_OK)
        return false;
    bool same = memcmp(pc_tensor_data(&ca), pc_tensor_data(&cb), pc_tensor_nbytes(&ca)) == 0;
    pc_tensor_free(&ca);
    pc_tensor_free(&cb);
    return same;
}

static void tensors_child(void)
{
    test_tensor_fn probe = test_tensor_hook();
    const pc_dtype dtypes[] = {PC_DTYPE_BOOL, PC_DTYPE_U8,  PC_DTYPE_I8,  PC_DTYPE_I16,
                               PC_DTYPE_I32,  PC_DTYPE_I64, PC_DTYPE_F16, PC_DTYPE_BF16,
                               PC_DTYPE_F32,  PC_DTYPE_F64, PC_DTYPE_C64, PC_DTYPE_C128};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        const char *name = pc_dtype_name(dtypes[d]);
        int64_t shape[2] = {4, 5};
        pc_tensor t = PC_TENSOR_NULL;
        CHECK(pc_tensor_alloc(&t, dtypes[d], shape, 2) == PC_OK, "alloc %s", name);
        unsigned char *bytes = pc_tensor_data(&t);
        for (size_t i = 0; i < pc_tensor_nbytes(&t); i++)
            bytes[i] = dtypes[d] == PC_DTYPE_BOOL ? (unsigned char)(i % 3 == 0)
                                                  : (unsigned char)((i * 37 + 11) % 251);
        long refs = pc_storage_refcount(t.storage);

        /* the whole tensor: same address in torch, same bytes back, no copy either way */
        uintptr_t ptr = 0;
        pc_tensor back = PC_TENSOR_NULL;
        CHECK(probe(torch_backend.state, &t, false, &ptr, &back) == PC_OK, "%s", name);
        CHECK(ptr == (uintptr_t)pc_tensor_data(&t), "%s: torch sees precheck's memory", name);
        CHECK(same_values(&t, &back), "%s: the values come back", name);
        CHECK(pc_tensor_data(&back) == pc_tensor_data(&t), "%s: and are not copied back", name);
        CHECK(pc_storage_refcount(t.storage) == refs + 1, "%s: torch holds one reference", name);
        pc_tensor_free(&back);
        CHECK(pc_storage_refcount(t.storage) == refs, "%s: the deleter ran once", name);

        /* an offset view: the offset folded into the address */
        pc_tensor v = PC_TENSOR_NULL;
        CHECK(pc_tensor_narrow(&v, &t, 0, 1, 2) == PC_OK, "narrow");
        CHECK(probe(torch_backend.state, &v, false, &ptr, &back) == PC_OK, "%s view", name);
        CHECK(ptr == (uintptr_t)pc_tensor_data(&v), "%s: the view's own address", name);
        CHECK(same_values(&v, &back), "%s: the view's values", name);
        pc_tensor_free(&back);
        pc_tensor_free(&v);

        /* a strided view: same memory in, a contiguous copy out */
        CHECK(pc_tensor_transpose(&v, &t, 0, 1) == PC_OK, "transpose");
        CHECK(probe(torch_backend.state, &v, false, &ptr, &back) == PC_OK, "%s strided", name);
        CHECK(ptr == (uintptr_t)pc_tensor_data(&v), "%s: the strided view in place", name);
        CHECK(same_values(&v, &back), "%s: the strided view's values", name);
        pc_tensor_free(&back);
        pc_tensor_free(&v);

        /* clone (an API that writes its inputs): torch's own copy */
        CHECK(probe(torch_backend.state, &t, true, &ptr, &back) == PC_OK, "%s clone", name);
        CHECK(ptr != (uintptr_t)pc_tensor_data(&t), "%s: a clone is a copy", name);
        CHECK(same_values(&t, &back), "%s: of the same values", name);
        pc_tensor_free(&back);
        CHECK(pc_storage_refcount(t.storage) == refs, "%s: nothing kept", name);
        pc_tensor_free(&t);
    }
    /* a zero-size and a 0-dim tensor */
    int64_t empty[2] = {0, 3};
    pc_tensor z = PC_TENSOR_NULL, back = PC_TENSOR_NULL;
    uintptr_t ptr;
    CHECK(pc_tensor_alloc(&z, PC_DTYPE_F32, empty, 2) == PC_OK, "alloc");
    CHECK(probe(torch_backend.state, &z, false, &ptr, &back) == PC_OK, "zero-size");
    CHECK(pc_tensor_same_shape(&z, &back), "zero-size shape");
    pc_tensor_free(&back);
    pc_tensor_free(&z);
    CHECK(pc_tensor_alloc(&z, PC_DTYPE_BF16, NULL, 0) == PC_OK, "alloc");
    pc_tensor_fill(&z, 1.5);
    CHECK(probe(torch_backend.state, &z, false, &ptr, &back) == PC_OK, "0-dim");
    CHECK(back.rank == 0 && same_values(&z, &back), "0-dim values");
    pc_tensor_free(&back);
    pc_tensor_free(&z);
}

static void test_tensors_cross_without_copies(void **state)
{
    (void)state;
    in_child(tensors_child);
}

/* ---- whole APIs: inputs untouched, results as the reference device's ---- */

#define T(dt, shape, lo, hi, rg)                                                                   \
    "{\"type\":\"torch.Tensor\",\"dtype\":\"torch." dt "\",\"shape\":" shape ",\"Max\":" hi        \
    ",\"Min\":" lo ",\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":" rg "}"
#define F32(shape)  T("float32", shape, "-1.0", "1.0", "false")
#define F32G(shape) T("float32", shape, "-1.0", "1.0", "true")

static const char
    dump_json[] = "{\"task\":\"statistics\",\"level\":\"L1\",\"dump_data_dir\":null,\"data\":{"
                  "\"Tensor.add_.0.forward\":{\"input_args\":[" F32("[4,3]") "," F32(
                      "[4,3]") "],"
                               "\"input_kwargs\":{},\"output\":[" F32("[4,3]") "]},"
                                                                               "\"Tensor.__iadd__."
                                                                               "0.forward\":{"
                                                                               "\"input_args\":"
                                                                               "[" F32(
                                                                                   "[4,3]") "," F32("[4,3]") "],"
                                                                                                             "\"input_kwargs\":{},\"output\":[" F32(
                                                                                                                 "[4,3]") "]},"
                                                                                                                          "\"Tensor.__setitem__.0.forward\":{\"input_args\":[" F32("[4,3]") ",{\"type\":\"int\","
                                                                                                                                                                                            "\"value\":1}," F32("[3]") "],\"input_kwargs\":{},\"output\":[null]},"
                                                                                                                                                                                                                       "\"Functional.relu.0.forward\":{\"input_args\":[" F32("[4,3]") "],\"input_kwargs\":{"
                                                                                                                                                                                                                                                                                      "\"inplace\":{\"type\":\"bool\",\"value\":true}},\"output\":[" F32("[4,3]") "]},"
                                                                                                                                                                                                                                                                                                                                                                  "\"Functional.batch_norm.0.forward\":{\"input_args\":[" F32(
                                                                                                                                                                                                                                                                                                                                                                      "[4,3]") "," F32("[3]") "," T("float32",
                                                                                                                                                                                                                                                                                                                                                                                                    "[3]",
                                                                                                                                                                                                                                                                                                                                                                                                    "0.5", "2.0", "false") "],\"input_kwargs\":{\"weight\":null,\"bias\":null,\"training\":{\"type\":"
                                                                                                                                                                                                                                                                                                                                                                                                                           "\"bool\",\"value\":true},\"momentum\":{\"type\":\"float\",\"value\":0.1},"
                                                                                                                                                                                                                                                                                                                                                                                                                           "\"eps\":{\"type\":\"float\",\"value\":1e-05}},\"output\":[" F32("[4,3]") "]},"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     "\"Torch.add.0.forward\":{\"input_args\":[" F32("[4,3]") "," F32("[4,3]") "],"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               "\"input_kwargs\":{\"out\":" F32("[4,3]") "},\"output\":[" F32("[4,3]") "]},"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                       "\"Torch.matmul.0.forward\":{\"input_args\":[" F32G("[4,3]") "," F32G(
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           "[3,5]") "],"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    "\"input_kwargs\":{},\"output\":[" F32(
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        "[4,5]") "]},"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                 "\"Torch.matmul.0.backward\":{\"input\":[" F32("[4,5]") "],\"output\":[" F32(
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     "[4,3]") "," F32("[3,5]") "]},"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                               "\"Torch.cat.0.forward\":{\"input_args\":[[" F32G("[2,3]") "," F32G(
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   "[1,3]") "]],"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            "\"input_kwargs\":{\"dim\":{\"type\":\"int\",\"value\":0}},\"output\":[" F32("[3,3]") "]},"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                  "\"Torch.cat.0.backward\":{\"input\":[" F32(
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      "[3,3]") "],\"output\":[" F32("[2,3]") "," F32("[1,3]") "]}"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              "}}";

typedef struct made_call {
    pc_inputs in;
    pc_record_tensor records[16];
    int nrecords;
    pc_op_call call;
} made_call;

static pc_status provide(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg, pc_tensor *out)
{
    made_call *m = ctx;
    for (int i = 0; i < m->nrecords; i++)
        if (m->records[i].record == arg) {
            pc_tensor_share(out, &m->records[i].tensor);
            return PC_OK;
        }
    if (m->nrecords == 16)
        return pc_error_set(PC_ERR_RANGE, "too many records");
    pc_status st = pc_inputs_provide(&m->in, api, arg, &m->records[m->nrecords].tensor);
    if (st != PC_OK)
        return st;
    m->records[m->nrecords].record = arg;
    pc_tensor_share(out, &m->records[m->nrecords++].tensor);
    return PC_OK;
}

static void walk_records(made_call *m, const pc_dump_api *api, const pc_dump_arg *a)
{
    pc_tensor t = PC_TENSOR_NULL;
    if (a->kind == PC_DUMP_ARG_TENSOR) {
        CHECK(provide(m, api, a, &t) == PC_OK, "provide");
        pc_tensor_free(&t);
    }
    for (size_t i = 0; a->kind == PC_DUMP_ARG_LIST && i < a->u.list.count; i++)
        walk_records(m, api, &a->u.list.items[i]);
}

/* The call as the runner makes it for a device with PC_BACKEND_WANTS_RECORDS. */
static void make_call(made_call *m, const pc_dump *dump, const pc_dump_api *api)
{
    memset(m, 0, sizeof *m);
    pc_inputs_begin(&m->in, dump, 7, api);
    const pc_api_name *name = pc_api_lookup(api->api_type, api->api_name);
    CHECK(name != NULL, "%s is in the table", api->full_name);
    CHECK(pc_op_bind_overloads(api, name, provide, m, &m->call, NULL) == PC_OK, "bind %s",
          api->full_name);
    walk_records(m, api, &api->forward.input_args);
    for (size_t i = 0; i < api->forward.kwarg_count; i++)
        walk_records(m, api, &api->forward.kwargs[i].value);
    m->call.dump = dump;
    m->call.api = api;
    m->call.records = m->records;
    m->call.nrecords = m->nrecords;
    m->call.needs_backward = api->backward != NULL;
}

static void made_call_free(made_call *m)
{
    pc_op_call_free(&m->call);
    for (int i = 0; i < m->nrecords; i++)
        pc_tensor_free(&m->records[i].tensor);
}

static bool close_to(const pc_tensor *a, const pc_tensor *b, double tol)
{
    if (pc_tensor_is_null(a) || pc_tensor_is_null(b) || !pc_tensor_same_shape(a, b))
        return false;
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    bool ok = pc_tensor_cast(&x, a, PC_DTYPE_F64) == PC_OK &&
              pc_tensor_cast(&y, b, PC_DTYPE_F64) == PC_OK;
    const double *p = pc_tensor_data(&x), *q = pc_tensor_data(&y);
    for (int64_t i = 0; ok && i < pc_tensor_numel(&x); i++)
        ok = fabs(p[i] - q[i]) <= tol * (1 + fabs(q[i]));
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    return ok;
}

static void apis_child(void)
{
    pc_dump *dump = NULL;
    CHECK(pc_dump_parse(&dump, dump_json, strlen(dump_json), "test.json") == PC_OK, "parse");
    pc_backend cpu = {0};
    CHECK(pc_backend_open(&cpu, pc_backend_find("cpu"), NULL, NULL) == PC_OK, "cpu");
    for (size_t i = 0; i < dump->api_count; i++) {
        const pc_dump_api *api = &dump->apis[i];
        made_call m;
        make_call(&m, dump, api);
        /* what precheck's inputs hold before the device runs */
        pc_tensor before[16];
        for (int k = 0; k < m.nrecords; k++) {
            before[k] = PC_TENSOR_NULL;
            CHECK(pc_tensor_cast(&before[k], &m.records[k].tensor, m.records[k].tensor.dtype) ==
                      PC_OK,
                  "copy");
        }
        pc_op_result dev = {0}, ref = {0};
        CHECK(pc_backend_forward(&torch_backend, &m.call, &dev) == PC_OK, "torch %s",
              api->full_name);
        CHECK(pc_backend_forward(&cpu, &m.call, &ref) == PC_OK, "cpu %s", api->full_name);
        if (strcmp(api->api_name, "__setitem__") != 0) { /* torch returns None there */
            CHECK(dev.count == ref.count, "%s: %d results, the reference device %d", api->full_name,
                  dev.count, ref.count);
            for (int k = 0; k < ref.count; k++)
                CHECK(close_to(&dev.tensors[k], &ref.tensors[k], 1e-5), "%s: result %d",
                      api->full_name, k);
        }
        if (api->backward) {
            pc_tensor g = PC_TENSOR_NULL;
            CHECK(pc_inputs_provide(&m.in, api, &api->backward->input.u.list.items[0], &g) == PC_OK,
                  "grad");
            pc_tensor g0 = PC_TENSOR_NULL;
            CHECK(pc_tensor_cast(&g0, &g, g.dtype) == PC_OK, "copy");
            pc_op_grads dg = {0}, rg = {0};
            CHECK(pc_backend_backward(&torch_backend, &m.call, &g, &dg) == PC_OK, "torch bwd %s",
                  api->full_name);
            CHECK(pc_backend_backward(&cpu, &m.call, &g, &rg) == PC_OK, "cpu bwd");
            int compared = 0;
            for (int a = 0; a < m.call.nargs; a++) {
                if (!pc_tensor_is_null(&rg.grads[a])) {
                    CHECK(close_to(&dg.grads[a], &rg.grads[a], 1e-5), "%s: grad of arg %d",
                          api->full_name, a);
                    compared++;
                }
                for (int k = 0; k < rg.lists[a].count; k++) {
                    CHECK(k < dg.lists[a].count &&
                              close_to(&dg.lists[a].items[k], &rg.lists[a].items[k], 1e-5),
                          "%s: grad of arg %d item %d", api->full_name, a, k);
                    compared++;
                }
            }
            CHECK(compared == 2, "%s: two gradients compared, got %d", api->full_name, compared);
            CHECK(same_values(&g0, &g), "%s: the incoming gradient was written by torch",
                  api->full_name);
            pc_tensor_free(&g0);
            pc_op_grads_free(&dg);
            pc_op_grads_free(&rg);
            pc_tensor_free(&g);
        }
        pc_backend_idle(&torch_backend);
        for (int k = 0; k < m.nrecords; k++) {
            CHECK(same_values(&before[k], &m.records[k].tensor),
                  "%s: input record %d was written by torch", api->full_name, k);
            pc_tensor_free(&before[k]);
        }
        pc_op_result_free(&dev);
        pc_op_result_free(&ref);
        made_call_free(&m);
    }
    pc_backend_close(&cpu);
    pc_dump_free(dump);
}

static void test_apis_leave_inputs_alone(void **state)
{
    (void)state;
    in_child(apis_child);
}

/* ---- the description ---- */

static void test_describe(void **state)
{
    (void)state;
    if (!have_torch)
        skip();
    char line[512];
    pc_backend_describe(&torch_backend, line, sizeof line);
    assert_non_null(strstr(line, "device under test: the CPU through PyTorch "));
    assert_non_null(strstr(line, "1 intra-op thread(s) per worker"));
    pc_backend cpu = {0};
    assert_int_equal(pc_backend_open(&cpu, pc_backend_find("cpu"), NULL, NULL), PC_OK);
    pc_backend_describe(&cpu, line, sizeof line);
    assert_non_null(strstr(line, "an emulation on the CPU"));
    pc_backend_close(&cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensors_cross_without_copies),
        cmocka_unit_test(test_apis_leave_inputs_alone),
        cmocka_unit_test(test_describe),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
