/*
 * The host table of plug-in backends: the functions of precheck a plug-in may call, passed to
 * it when it is loaded (SQLite's loadable-extension pattern). The precheck executable exports
 * no symbol; a plug-in's whole interface with it is this table and the backend vtable it
 * returns (backend.h).
 *
 * Loading: the loader (backends/loader.c) dlopens precheck-backend-<name>.so and calls its
 * exported entry PC_BACKEND_PLUGIN_ENTRY with the table:
 *     const pc_backend_vtable *precheck_backend_plugin(const pc_host_api *host, char *why,
 *                                                      size_t size);
 * The plug-in checks the table with pc_host_api_check (its version and size against those the
 * plug-in was built with) and keeps the pointer; on a mismatch it writes why (naming both
 * versions) and returns NULL, and the loader refuses it with that message. The entry's
 * signature never changes; what the table holds changes with PC_HOST_API_VERSION.
 *
 * In a plug-in's sources: define PC_PLUGIN_HOST as the expression of the kept pointer (a
 * hidden global of the plug-in) and include this header after every other precheck header;
 * then pc_error_set(...), pc_tensor_alloc(...) and the other names of the table call through
 * it, so the plug-in's code reads as precheck's own.
 *
 * The table is static data of the host: valid for the life of the process, never freed.
 */
#ifndef PC_BACKENDS_HOST_API_H
#define PC_BACKENDS_HOST_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "precheck/backends/backend.h"
#include "precheck/core/dtype.h"
#include "precheck/core/status.h"
#include "precheck/core/tensor.h"
#include "precheck/ops/call.h"

/* 1: the first table (the torch plug-in's 19 functions and the cpu backend). A plug-in runs
 * only with a host of the version it was built with. */
#define PC_HOST_API_VERSION 1

typedef struct pc_host_api {
    uint32_t version; /* PC_HOST_API_VERSION of the host */
    uint32_t size;    /* sizeof(pc_host_api) of the host */
    /* core/status.h: the thread's error and its message */
    pc_status (*error_set)(pc_status status, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
    const char *(*error_message)(void);
    /* core/log.h: precheck's log (its format, level and file) */
    void (*log_info)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    void (*log_warning)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    void (*log_error)(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
    /* core/clock.h */
    double (*clock_seconds)(void);
    /* core/dtype.h */
    const char *(*dtype_name)(pc_dtype dtype);
    bool (*dtype_is_float)(pc_dtype dtype);
    bool (*dtype_is_complex)(pc_dtype dtype);
    /* core/tensor.h */
    pc_status (*tensor_alloc)(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank);
    pc_status (*tensor_wrap)(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank,
                             void *data, size_t nbytes, pc_storage_release_fn release, void *ctx);
    void (*tensor_share)(pc_tensor *out, const pc_tensor *src);
    void *(*tensor_data)(const pc_tensor *t);
    void (*tensor_free)(pc_tensor *t);
    /* ops/call.h */
    const pc_tensor *(*op_call_record_tensor)(const pc_op_call *call, const pc_dump_arg *record);
    void (*op_result_free)(pc_op_result *r);
    void (*op_grads_free)(pc_op_grads *g);
    /* Runs argv and returns its stdout (malloc'ed, the caller frees) with its wait status in
     * *status, its stderr in *err (malloc'ed); NULL with errno when it could not be started. */
    char *(*capture)(char *const argv[], int *status, char **err);
    /* The built-in reference device (backend.h), for what a plug-in hands back to precheck. */
    const pc_backend_vtable *backend_cpu;
} pc_host_api;

/* A plug-in's entry (PC_BACKEND_PLUGIN_ENTRY): its vtable, or NULL with the reason in why. */
typedef const pc_backend_vtable *(*pc_backend_plugin_fn)(const pc_host_api *host, char *why,
                                                         size_t size);

/* Whether host is a table of the version built (a plug-in's PC_HOST_API_VERSION) and at least
 * the size the plug-in reads; false with why (naming both versions) otherwise. */
static inline bool pc_host_api_check(const pc_host_api *host, uint32_t built, size_t need,
                                     char *why, size_t size)
{
    if (host && host->version == built && host->size >= need)
        return true;
    if (why && size)
        snprintf(why, size,
                 "the plug-in was built for precheck's host API version %u, this precheck "
                 "has version %u: build the plug-in with this precheck",
                 (unsigned)built, host ? (unsigned)host->version : 0u);
    return false;
}

#endif

/* ---- in a plug-in: precheck's names call through the table ---- */
#if defined(PC_PLUGIN_HOST) && !defined(PC_BACKENDS_HOST_API_REDIRECT)
#define PC_BACKENDS_HOST_API_REDIRECT
#define pc_error_set             (PC_PLUGIN_HOST)->error_set
#define pc_error_message         (PC_PLUGIN_HOST)->error_message
#define pc_log_info              (PC_PLUGIN_HOST)->log_info
#define pc_log_warning           (PC_PLUGIN_HOST)->log_warning
#define pc_log_error             (PC_PLUGIN_HOST)->log_error
#define pc_clock_seconds         (PC_PLUGIN_HOST)->clock_seconds
#define pc_dtype_name            (PC_PLUGIN_HOST)->dtype_name
#define pc_dtype_is_float        (PC_PLUGIN_HOST)->dtype_is_float
#define pc_dtype_is_complex      (PC_PLUGIN_HOST)->dtype_is_complex
#define pc_tensor_alloc          (PC_PLUGIN_HOST)->tensor_alloc
#define pc_tensor_wrap           (PC_PLUGIN_HOST)->tensor_wrap
#define pc_tensor_share          (PC_PLUGIN_HOST)->tensor_share
#define pc_tensor_data           (PC_PLUGIN_HOST)->tensor_data
#define pc_tensor_free           (PC_PLUGIN_HOST)->tensor_free
#define pc_op_call_record_tensor (PC_PLUGIN_HOST)->op_call_record_tensor
#define pc_op_result_free        (PC_PLUGIN_HOST)->op_result_free
#define pc_op_grads_free         (PC_PLUGIN_HOST)->op_grads_free
#define pc_backend_capture       (PC_PLUGIN_HOST)->capture
#define pc_backend_cpu           (*(PC_PLUGIN_HOST)->backend_cpu)
#endif
