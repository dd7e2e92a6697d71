/*
 * Status codes and the per-thread error message.
 *
 * Every function that can fail because of its input returns a pc_status. When it returns
 * anything but PC_OK it has also set a message for the calling thread with pc_error_set(),
 * saying what went wrong and where (file, line/column, API name), so that the caller can show
 * it to the user as is or prefix it with more context (pc_error_prefix()).
 *
 * The message lives in thread-local storage owned by this module; pc_error_message() returns
 * a pointer that stays valid until the next pc_error_* call on the same thread.
 */
#ifndef PC_CORE_STATUS_H
#define PC_CORE_STATUS_H

#include <stddef.h>

typedef enum pc_status {
    PC_OK = 0,
    PC_ERR_NOMEM,       /* an allocation failed */
    PC_ERR_INVALID,     /* an argument or a value in the input is not acceptable */
    PC_ERR_RANGE,       /* a size or index is out of range, or would overflow */
    PC_ERR_IO,          /* reading or writing a file failed */
    PC_ERR_FORMAT,      /* an input file is malformed */
    PC_ERR_UNSUPPORTED, /* valid, but not something precheck implements */
    PC_ERR_NOT_FOUND,   /* a file, key or name does not exist */
    PC_STATUS_COUNT
} pc_status;

/* Stable short name of a status, e.g. "out of memory". Never NULL. */
const char *pc_status_name(pc_status status);

/* Sets the thread's message (printf format) and returns status, so that callers can write
 * `return pc_error_set(PC_ERR_FORMAT, "%s:%d: ...", path, line);`. */
pc_status pc_error_set(pc_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prepends "<prefix>: " (printf format) to the thread's message; returns status unchanged. */
pc_status pc_error_prefix(pc_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The thread's message; "" when none was set. */
const char *pc_error_message(void);

/* Forgets the thread's message. */
void pc_error_clear(void);

/* Bytes kept of a message (with its NUL). A longer one is shortened where it says least: its
 * longest words (paths) are cut in the middle to their start, "..." and their end, so that the
 * cause at the end of the message survives; only when that is not enough is its end cut, marked
 * "...". */
enum { PC_ERROR_MESSAGE_MAX = 1024 };

#endif
