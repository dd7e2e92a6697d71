#include "precheck/core/log.h"

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const level_names[PC_LOG_LEVEL_COUNT] = {
    [PC_LOG_DEBUG] = "DEBUG", [PC_LOG_INFO] = "INFO", [PC_LOG_WARNING] = "WARNING",
    [PC_LOG_ERROR] = "ERROR", [PC_LOG_OFF] = "OFF",
};
_Static_assert(sizeof level_names / sizeof level_names[0] == PC_LOG_LEVEL_COUNT,
               "one name per level");

/* msprobe's MsgConst.SPECIAL_CHAR, in its order. msprobe applies str.replace() once per entry;
 * a single left-to-right scan gives the same result because no entry overlaps another and the
 * '_' put in place of one can never be part of a later match. Matching is case-sensitive, as
 * in msprobe: "%0A" is kept. */
static const char special_chars[] = "\n\r\x7f\b\f\t\v";
static const char *const special_strings[] = {"%08", "%0a", "%0b", "%0c", "%0d", "%7f"};
enum { SPECIAL_STRING_LEN = 3 };

/* Longest "YYYY-mm-dd HH:MM:SS (<pid>) [<LEVEL>] ": a 10-digit year, a 20-digit pid. */
enum { PREFIX_MAX = 96 };
/* Messages and lines that fit these never touch the heap. */
enum { STACK_MESSAGE = PC_LOG_FALLBACK_MAX + 1, STACK_LINE = STACK_MESSAGE + PREFIX_MAX + 1 };

static _Atomic int min_level = PC_LOG_INFO;
static _Atomic(FILE *) log_stream = NULL;
static atomic_flag env_warned = ATOMIC_FLAG_INIT;
/* Testing: -1 = allocations never fail; k >= 0 = k more succeed, then all fail. */
static _Atomic int alloc_budget = -1;

static void *log_alloc(size_t size)
{
    int left = atomic_load(&alloc_budget);
    for (;;) {
        if (left < 0)
            return malloc(size);
        if (left == 0)
            return NULL;
        if (atomic_compare_exchange_weak(&alloc_budget, &left, left - 1))
            return malloc(size);
    }
}

/* The status line (a progress bar) that log lines must not run into. */
static struct {
    void (*clear)(void *ctx);
    void (*redraw)(void *ctx);
    void *ctx;
} status_line;

void pc_log_set_status_line(void (*clear)(void *ctx), void (*redraw)(void *ctx), void *ctx)
{
    status_line.clear = clear;
    status_line.redraw = redraw;
    status_line.ctx = ctx;
}

static void write_line(FILE *stream, const char *line, size_t len)
{
    int fd = status_line.clear ? fileno(stream) : -1;
    bool around = fd >= 0 && isatty(fd);
    if (around)
        status_line.clear(status_line.ctx);
    fwrite(line, 1, len, stream);
    fflush(stream);
    if (around && status_line.redraw)
        status_line.redraw(status_line.ctx);
}

void pc_log_testing_fail_alloc(int after)
{
    atomic_store(&alloc_budget, after < 0 ? -1 : after);
}

const char *pc_log_level_name(pc_log_level level)
{
    if ((unsigned)level >= PC_LOG_LEVEL_COUNT)
        return "UNKNOWN";
    return level_names[level];
}

void pc_log_set_level(pc_log_level level)
{
    if ((unsigned)level <= PC_LOG_OFF)
        atomic_store(&min_level, (int)level);
}

pc_log_level pc_log_get_level(void)
{
    return (pc_log_level)atomic_load(&min_level);
}

bool pc_log_enabled(pc_log_level level)
{
    return (unsigned)level < PC_LOG_OFF && (int)level >= atomic_load(&min_level);
}

void pc_log_set_stream(FILE *stream)
{
    atomic_store(&log_stream, stream);
}

static bool parse_level(const char *text, pc_log_level *level)
{
    if (!text || text[0] < '0' || text[0] > '4' || text[1] != '\0')
        return false;
    *level = (pc_log_level)(text[0] - '0');
    return true;
}

static void describe_bad_level(char *dst, size_t size, const char *text)
{
    snprintf(dst, size, "MSPROBE_LOG_LEVEL=\"%.64s%s\" is not one of 0, 1, 2, 3, 4", text,
             strlen(text) > 64 ? "..." : "");
}

pc_status pc_log_level_parse(const char *text, pc_log_level *level)
{
    if (parse_level(text, level))
        return PC_OK;
    char message[128];
    describe_bad_level(message, sizeof message, text ? text : "");
    return pc_error_set(PC_ERR_INVALID, "%s", message);
}

void pc_log_init_from_env(void)
{
    /* A reader that goes away (`precheck run_ut ... | head`) must not end the program: writes
     * to the closed stream fail quietly instead of raising SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    /* localtime_r() need not read TZ by itself (POSIX); make sure the zone is loaded. */
    tzset();
    const char *text = getenv("MSPROBE_LOG_LEVEL");
    pc_log_level level = PC_LOG_INFO;
    if (text && *text && !parse_level(text, &level)) {
        level = PC_LOG_INFO;
        /* On stderr, not the log stream: stdout has to stay byte-compatible with msprobe's.
         * Once per process, so that workers forked after this call do not repeat it. */
        if (!atomic_flag_test_and_set(&env_warned)) {
            char message[160];
            describe_bad_level(message, sizeof message - 32, text);
            strcat(message, "; using 1 (INFO)");
            char line[sizeof message + PREFIX_MAX + 1];
            int n = pc_log_format_line(line, sizeof line, time(NULL), (long)getpid(),
                                       PC_LOG_WARNING, message);
            if (n > 0 && (size_t)n < sizeof line)
                write_line(stderr, line, (size_t)n);
        }
    }
    pc_log_set_level(level);
}

/* Bytes of msg matched by one special character or string at its start; 0 when none. */
static size_t special_at(const char *msg)
{
    if (*msg != '\0' && strchr(special_chars, *msg))
        return 1;
    if (*msg != '%')
        return 0;
    for (size_t i = 0; i < sizeof special_strings / sizeof special_strings[0]; i++) {
        if (strncmp(msg, special_strings[i], SPECIAL_STRING_LEN) == 0)
            return SPECIAL_STRING_LEN;
    }
    return 0;
}

size_t pc_log_sanitize(char *dst, size_t size, const char *msg)
{
    size_t out = 0;
    while (*msg) {
        size_t matched = special_at(msg);
        char c = matched ? '_' : *msg;
        msg += matched ? matched : 1;
        /* Reading stays ahead of writing, which is what makes dst == msg safe. */
        if (out + 1 < size)
            dst[out] = c;
        out++;
    }
    if (size > 0)
        dst[out < size ? out : size - 1] = '\0';
    return out;
}

int pc_log_format_line(char *dst, size_t size, time_t t, long pid, pc_log_level level,
                       const char *msg)
{
    if ((unsigned)level >= PC_LOG_OFF || !msg || (!dst && size > 0))
        return -1;
    struct tm tm;
    if (!localtime_r(&t, &tm))
        return -1;
    char stamp[32];
    if (strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        return -1;
    char prefix[PREFIX_MAX];
    int p = snprintf(prefix, sizeof prefix, "%s (%ld) [%s] ", stamp, pid, level_names[level]);
    if (p < 0 || (size_t)p >= sizeof prefix)
        return -1;

    size_t pos = (size_t)p;
    if (size > 0)
        memcpy(dst, prefix, pos < size ? pos : size - 1);
    size_t body =
        pos < size ? pc_log_sanitize(dst + pos, size - pos, msg) : pc_log_sanitize(NULL, 0, msg);
    pos += body;
    if (pos + 1 < size) {
        dst[pos] = '\n';
        dst[pos + 1] = '\0';
    } else if (size > 0) {
        dst[size - 1] = '\0';
    }
    pos += 1;
    if (pos > INT_MAX)
        return -1;
    return (int)pos;
}

/* Ends the text in a buffer of `size` bytes with "...", cutting on a UTF-8 character boundary
 * so that the line stays valid text. */
static void mark_cut(char *msg, size_t size)
{
    size_t end = size - 4;
    while (end > 0 && ((unsigned char)msg[end] & 0xC0) == 0x80)
        end--;
    memcpy(msg + end, "...", 4);
}

void pc_log_v(pc_log_level level, const char *fmt, va_list ap)
{
    if (!pc_log_enabled(level) || !fmt)
        return;

    char stack_message[STACK_MESSAGE];
    char *heap_message = NULL;
    const char *msg = stack_message;
    size_t msg_len;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(stack_message, sizeof stack_message, fmt, ap);
    if (n < 0) {
        /* An encoding error: the format itself is the best description left. */
        msg = fmt;
        msg_len = strlen(fmt);
    } else if ((size_t)n < sizeof stack_message) {
        msg_len = (size_t)n;
    } else if ((heap_message = log_alloc((size_t)n + 1)) != NULL) {
        vsnprintf(heap_message, (size_t)n + 1, fmt, again);
        msg = heap_message;
        msg_len = (size_t)n;
    } else {
        mark_cut(stack_message, sizeof stack_message);
        msg_len = strlen(stack_message);
    }
    va_end(again);

    char stack_line[STACK_LINE];
    char *line = stack_line;
    size_t cap = sizeof stack_line;
    if (msg_len + PREFIX_MAX + 1 > cap) {
        char *heap_line = log_alloc(msg_len + PREFIX_MAX + 1);
        if (heap_line) {
            line = heap_line;
            cap = msg_len + PREFIX_MAX + 1;
        } else {
            /* Same cut as when the message itself could not be allocated; a sanitised message
             * is never longer than the raw one, so the line then fits the stack. */
            memcpy(stack_message, msg, sizeof stack_message - 1);
            stack_message[sizeof stack_message - 1] = '\0';
            mark_cut(stack_message, sizeof stack_message);
            msg = stack_message;
        }
    }

    FILE *stream = atomic_load(&log_stream);
    if (!stream)
        stream = stdout;
    int len = pc_log_format_line(line, cap, time(NULL), (long)getpid(), level, msg);
    if (len > 0 && (size_t)len < cap)
        write_line(stream, line, (size_t)len);

    if (line != stack_line)
        free(line);
    free(heap_message);
}

void pc_log(pc_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pc_log_v(level, fmt, ap);
    va_end(ap);
}

#define PC_LOG_LEVEL_FUNCTION(name, level)                                                         \
    void name(const char *fmt, ...)                                                                \
    {                                                                                              \
        va_list ap;                                                                                \
        va_start(ap, fmt);                                                                         \
        pc_log_v(level, fmt, ap);                                                                  \
        va_end(ap);                                                                                \
    }

PC_LOG_LEVEL_FUNCTION(pc_log_debug, PC_LOG_DEBUG)
PC_LOG_LEVEL_FUNCTION(pc_log_info, PC_LOG_INFO)
PC_LOG_LEVEL_FUNCTION(pc_log_warning, PC_LOG_WARNING)
PC_LOG_LEVEL_FUNCTION(pc_log_error, PC_LOG_ERROR)
