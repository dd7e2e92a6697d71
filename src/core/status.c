#include "precheck/core/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const status_names[PC_STATUS_COUNT] = {
    [PC_OK] = "ok",
    [PC_ERR_NOMEM] = "out of memory",
    [PC_ERR_INVALID] = "invalid value",
    [PC_ERR_RANGE] = "out of range",
    [PC_ERR_IO] = "I/O error",
    [PC_ERR_FORMAT] = "malformed input",
    [PC_ERR_UNSUPPORTED] = "unsupported",
    [PC_ERR_NOT_FOUND] = "not found",
};
_Static_assert(sizeof status_names / sizeof status_names[0] == PC_STATUS_COUNT,
               "one name per status");

static _Thread_local char error_message[PC_ERROR_MESSAGE_MAX];

const char *pc_status_name(pc_status status)
{
    if ((unsigned)status >= PC_STATUS_COUNT)
        return "unknown status";
    return status_names[status];
}

/* vsnprintf truncates silently; mark a cut message so nobody mistakes it for the whole. */
static void mark_truncated(int written, size_t size)
{
    if (written >= 0 && (size_t)written >= size)
        memcpy(error_message + PC_ERROR_MESSAGE_MAX - 4, "...", 4);
}

pc_status pc_error_set(pc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(error_message, sizeof error_message, fmt, ap);
    va_end(ap);
    mark_truncated(n, sizeof error_message);
    return status;
}

pc_status pc_error_prefix(pc_status status, const char *fmt, ...)
{
    char old[PC_ERROR_MESSAGE_MAX];
    memcpy(old, error_message, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(error_message, sizeof error_message, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof error_message) {
        int m = snprintf(error_message + n, sizeof error_message - (size_t)n, ": %s", old);
        mark_truncated(n + m, sizeof error_message);
    } else {
        mark_truncated(n, sizeof error_message);
    }
    return status;
}

const char *pc_error_message(void)
{
    return error_message;
}

void pc_error_clear(void)
{
    error_message[0] = '\0';
}
