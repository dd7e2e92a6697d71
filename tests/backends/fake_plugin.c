/*
 * A plug-in backend for the host table's tests (tests/backends/test_plugin_host.c), built
 * twice by tests/CMakeLists.txt: precheck-backend-fakehost.so for this precheck's host API
 * version, and precheck-backend-fakeold.so (PC_FAKE_NEXT_HOST_API) as if built against the
 * next one. Its open calls precheck only through the table and fails with a message that says
 * so, so that a run shows the calls reached the host without any exported symbol.
 */
#include <stddef.h>

#include "precheck/backends/backend.h"
#include "precheck/core/dtype.h"

static const struct pc_host_api *fake_host;
#define PC_PLUGIN_HOST fake_host
#include "precheck/backends/host_api.h"

#ifdef PC_FAKE_NEXT_HOST_API
#define FAKE_BUILT_VERSION (PC_HOST_API_VERSION + 1)
#else
#define FAKE_BUILT_VERSION PC_HOST_API_VERSION
#endif

static pc_status fake_open(void **state, const char *options, const pc_backend_host *host)
{
    (void)options, (void)host;
    *state = NULL;
    pc_tensor t = PC_TENSOR_NULL;
    int64_t shape[1] = {3};
    pc_status st = pc_tensor_alloc(&t, PC_DTYPE_F32, shape, 1);
    if (st != PC_OK)
        return st;
    float *v = pc_tensor_data(&t);
    v[0] = v[1] = v[2] = 0.5f;
    double sum = (double)v[0] + (double)v[1] + (double)v[2];
    pc_tensor_free(&t);
    pc_log_info("fakehost: a %s tensor through the host table", pc_dtype_name(PC_DTYPE_F32));
    return pc_error_set(PC_ERR_UNSUPPORTED,
                        "fakehost: opened through the host table (sum %g, cpu backend '%s')", sum,
                        pc_backend_cpu.name);
}

static void fake_close(void *state)
{
    (void)state;
}

static const pc_backend_vtable fake_vtable = {
    .abi_version = PC_BACKEND_ABI_VERSION,
    .name = "fakehost",
    .open = fake_open,
    .close = fake_close,
};

const pc_backend_vtable *precheck_backend_plugin(const pc_host_api *host, char *why, size_t size);

__attribute__((visibility("default"))) const pc_backend_vtable *
precheck_backend_plugin(const pc_host_api *host, char *why, size_t size)
{
    if (!pc_host_api_check(host, FAKE_BUILT_VERSION, sizeof *host, why, size))
        return NULL;
    fake_host = host;
    return &fake_vtable;
}
