#include "precheck/core/status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The shortest a word is cut to (its start, "...", its end), and what is kept either side. */
enum { CUT_KEEP_MIN = 24 };

static bool is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80; /* a UTF-8 continuation byte: never cut before one */
}

/*
 * Shortens text (n bytes, NUL-terminated, writable) in place to fewer than
 * PC_ERROR_MESSAGE_MAX bytes and returns the new length. Long words go first -- paths, which make
 * messages long (a 4,000-character -o) -- each cut in its middle to its start, "..." and its end,
 * longest first, so that what the message says about the path (the cause, at its end) survives.
 * Only when no word is long enough left is the end cut, marked "...".
 */
static size_t fit(char *text, size_t n)
{
    while (n >= PC_ERROR_MESSAGE_MAX) {
        size_t best = 0, best_len = 0;
        for (size_t i = 0; i < n;) {
            while (i < n && text[i] == ' ')
                i++;
            size_t j = i;
            while (j < n && text[j] != ' ')
                j++;
            if (j - i > best_len) {
                best = i;
                best_len = j - i;
            }
            i = j;
        }
        if (best_len <= CUT_KEEP_MIN + 3)
            break;
        size_t excess = n - (PC_ERROR_MESSAGE_MAX - 1);
        size_t keep = best_len > excess + 3 + CUT_KEEP_MIN ? best_len - excess - 3 : CUT_KEEP_MIN;
        size_t head = keep / 2, tail = keep - head;
        size_t cut_from = best + head, cut_to = best + best_len - tail;
        while (cut_from > best && is_cont((unsigned char)text[cut_from]))
            cut_from--;
        while (cut_to < best + best_len && is_cont((unsigned char)text[cut_to]))
            cut_to++;
        if (cut_to <= cut_from + 3)
            break;
        memcpy(text + cut_from, "...", 3);
        memmove(text + cut_from + 3, text + cut_to, n - cut_to + 1);
        n -= cut_to - cut_from - 3;
    }
    if (n >= PC_ERROR_MESSAGE_MAX) {
        n = PC_ERROR_MESSAGE_MAX - 4;
        while (n > 0 && is_cont((unsigned char)text[n]))
            n--;
        memcpy(text + n, "...", 4);
        n += 3;
    }
    return n;
}

/* Makes text (n bytes) the thread's message, shortened to fit (fit()). */
static void store(char *text, size_t n)
{
    n = fit(text, n);
    memcpy(error_message, text, n + 1);
}

/* Formats the message, followed by ": <suffix>" unless suffix is NULL, into a buffer of its own
 * size (at most 64 KiB of it), then stores it. The arguments may point into the current
 * message: it is written only at the end. */
static void format_and_store(const char *fmt, va_list ap, const char *suffix)
{
    char local[PC_ERROR_MESSAGE_MAX];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(local, sizeof local, fmt, ap);
    if (n < 0) {
        n = 0;
        local[0] = '\0';
    }
    size_t sn = suffix ? strlen(suffix) + 2 : 0;
    size_t total = (size_t)n + sn;
    if (total < sizeof local) {
        if (suffix)
            snprintf(local + n, sizeof local - (size_t)n, ": %s", suffix);
        memcpy(error_message, local, total + 1);
        va_end(again);
        return;
    }
    enum { FORMAT_MAX = 1 << 16 };
    size_t fn = (size_t)n < FORMAT_MAX ? (size_t)n : FORMAT_MAX;
    char *big = malloc(fn + sn + 1);
    if (!big) { /* keep what fits, marked as cut */
        va_end(again);
        if ((size_t)n >= sizeof local)
            n = (int)sizeof local - 1;
        store(local, (size_t)n);
        return;
    }
    vsnprintf(big, fn + 1, fmt, again);
    va_end(again);
    if (suffix)
        snprintf(big + fn, sn + 1, ": %s", suffix);
    store(big, fn + sn);
    free(big);
}

pc_status pc_error_set(pc_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    format_and_store(fmt, ap, NULL);
    va_end(ap);
    return status;
}

pc_status pc_error_prefix(pc_status status, const char *fmt, ...)
{
    char old[PC_ERROR_MESSAGE_MAX];
    memcpy(old, error_message, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    format_and_store(fmt, ap, old);
    va_end(ap);
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
