/*
 * Log lines in msprobe's format (docs/msprobe-contract.md#formats):
 *
 *     YYYY-mm-dd HH:MM:SS (<pid>) [<LEVEL>] <msg>
 *
 * one line per call, local time, LEVEL one of DEBUG, INFO, WARNING, ERROR, written to stdout
 * (or the stream given to pc_log_set_stream()). Before it is written, a message has each of the
 * characters \n \r \b \f \t \v and DEL (0x7f), and each of the literal strings %08 %0a %0b %0c
 * %0d %7f (lower case only, as msprobe), replaced by one '_'.
 *
 * The minimum level starts at INFO; pc_log_init_from_env() sets it from MSPROBE_LOG_LEVEL
 * ("0" DEBUG, "1" INFO, "2" WARNING, "3" ERROR, "4" nothing at all). Like msprobe, any other
 * value means INFO; unlike msprobe, precheck also says so, once per process, with one WARNING
 * line on stderr. An unset or empty variable means INFO without a warning.
 *
 * Every line is written with a single fwrite() followed by fflush(), so lines from several
 * threads or processes sharing the stream do not mix within a line (for processes, as long as
 * the line fits the stream's buffer and, on a pipe, PIPE_BUF). Logging never fails: write
 * errors are ignored, and a message too long for the stack buffers goes to the heap; if that
 * allocation fails the message is cut (see PC_LOG_FALLBACK_MAX) and ends in "...".
 *
 * The level and the stream are process-wide and may be changed from any thread.
 */
#ifndef PC_CORE_LOG_H
#define PC_CORE_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "precheck/core/status.h"

typedef enum pc_log_level {
    PC_LOG_DEBUG = 0,
    PC_LOG_INFO,
    PC_LOG_WARNING,
    PC_LOG_ERROR,
    PC_LOG_OFF, /* as a minimum level: print nothing; never a message's level */
    PC_LOG_LEVEL_COUNT
} pc_log_level;

/* Most bytes a long message is cut to, "..." included, when the heap is out of memory (less
 * when the cut would split a UTF-8 character). */
enum { PC_LOG_FALLBACK_MAX = 1023 };

/* Writes one line at `level` if level >= the minimum level and level < PC_LOG_OFF; messages
 * at PC_LOG_OFF or an out-of-range level are dropped. */
void pc_log(pc_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pc_log_v(pc_log_level level, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

void pc_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pc_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pc_log_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pc_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether a message at `level` would be written now (to skip building costly messages). */
bool pc_log_enabled(pc_log_level level);

/* The minimum level; values outside DEBUG..OFF are ignored. */
void pc_log_set_level(pc_log_level level);
pc_log_level pc_log_get_level(void);

/* Sets the minimum level from MSPROBE_LOG_LEVEL as described at the top of this file. Call it
 * once at start-up, before other threads log. */
/* Also makes writes to a closed stdout or stderr fail quietly (SIGPIPE ignored): a reader of
 * the log that goes away must not end the program. */
void pc_log_init_from_env(void);

/* Parses a MSPROBE_LOG_LEVEL value: exactly one of "0".."4" (no spaces, no sign, no leading
 * zeros, as msprobe compares strings). Returns PC_OK and sets *level, or PC_ERR_INVALID with a
 * message and leaves *level alone. */
pc_status pc_log_level_parse(const char *text, pc_log_level *level);

/* "DEBUG", "INFO", "WARNING", "ERROR", "OFF"; "UNKNOWN" for anything else. Static storage. */
const char *pc_log_level_name(pc_log_level level);

/* Where lines go; NULL means stdout. The stream stays owned by the caller, who must keep it
 * open until it is replaced. */
void pc_log_set_stream(FILE *stream);

/* A line that stays on the terminal below the log (a progress bar): while one is set, each log
 * line written to a terminal is preceded by clear(ctx), which takes the line off the screen,
 * and followed by redraw(ctx), so that log lines and the bar never share a screen line. NULL
 * functions: none. Set by core/progress.c for a bar it draws; one at a time. */
void pc_log_set_status_line(void (*clear)(void *ctx), void (*redraw)(void *ctx), void *ctx);

/* Copies msg to dst with the replacements described at the top of this file. Works like
 * snprintf: writes at most size - 1 bytes and a NUL (nothing when size is 0, and dst may then
 * be NULL), and returns the length of the whole result, so a return >= size means it was cut.
 * dst may be msg itself (the result is never longer than the input). */
size_t pc_log_sanitize(char *dst, size_t size, const char *msg);

/* Formats the line pc_log() would write for a message at time t from process pid, sanitised,
 * with the trailing '\n'. snprintf conventions as above; returns the whole line's length, or
 * -1 when level is not DEBUG..ERROR, msg is NULL, dst is NULL with size > 0, t cannot be
 * turned into local time, or the line would be longer than INT_MAX. */
int pc_log_format_line(char *dst, size_t size, time_t t, long pid, pc_log_level level,
                       const char *msg);

/* Testing only: after `after` more heap allocations, pc_log() behaves as if every further one
 * failed; a negative value (the default) turns this off. */
void pc_log_testing_fail_alloc(int after);

#endif
