#include "precheck/core/progress.h"

#include "precheck/core/clock.h"
#include "precheck/core/log.h"

#include "precheck/core/status.h"
#include "precheck/core/strbuf.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

struct pc_progress {
    FILE *stream;
    char *label;
    uint64_t total;
    uint64_t done;
    bool draws;    /* the stream is a terminal, or drawing was forced */
    bool finished; /* the final state and newline are out */
    int width;     /* fixed line width, or 0 for the terminal's */
    double (*clock)(void *ctx);
    void *clock_ctx;
    double start;
    double last_draw;
    size_t last_columns; /* of the previous draw, to blank what a shorter one leaves */
};

/* tqdm's ascii=True charset: blank, the tenths of a partly filled cell, a full cell. */
static const char bar_charset[] = " 123456789#";
enum { BAR_SYMBOLS = sizeof bar_charset - 2, UNSIZED_BAR_CELLS = 10 };

/* ---------------------------------------------------------------------------------------------
 * Formatting
 * ------------------------------------------------------------------------------------------- */

static size_t utf8_columns(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Whole seconds as tqdm.format_interval() writes them: mm:ss, or h:mm:ss. */
static void format_interval(char *dst, size_t size, double seconds)
{
    /* int(t) in Python; clamped so that the conversion below is defined. */
    uint64_t t = 0;
    if (seconds >= 1.8e19)
        t = UINT64_C(18000000000000000000);
    else if (seconds >= 1)
        t = (uint64_t)seconds;
    uint64_t s = t % 60, m = t / 60 % 60, h = t / 3600;
    if (h)
        snprintf(dst, size, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, h, m, s);
    else
        snprintf(dst, size, "%02" PRIu64 ":%02" PRIu64, m, s);
}

/* Enough for "%5.2f" of DBL_MAX (309 digits) and a unit. */
enum { RATE_TEXT_MAX = 400, INTERVAL_TEXT_MAX = 32 };

static void format_rate(char *dst, size_t size, double rate)
{
    if (!(rate > 0))
        snprintf(dst, size, "?it/s");
    else if (1 / rate > 1)
        snprintf(dst, size, "%5.2fs/it", 1 / rate);
    else
        snprintf(dst, size, "%5.2fit/s", rate);
}

/* tqdm does not add a second ": " to a description that ends in one. */
static bool label_needs_colon(const char *label)
{
    size_t n = strlen(label);
    return !(n >= 2 && label[n - 2] == ':' && label[n - 1] == ' ');
}

static void out_label(pc_strbuf *o, const char *label)
{
    if (!label || !*label)
        return;
    pc_strbuf_appends(o, label);
    if (label_needs_colon(label))
        pc_strbuf_appends(o, ": ");
}

static size_t label_columns(const char *label)
{
    if (!label || !*label)
        return 0;
    return utf8_columns(label) + (label_needs_colon(label) ? 2 : 0);
}

int pc_progress_format(char *dst, size_t size, const char *label, uint64_t done, uint64_t total,
                       double elapsed_s, int width)
{
    if (!dst && size > 0)
        return -1;
    /* The line is built whole (on the stack unless the bar is very wide), then copied. */
    char line[256];
    pc_strbuf o;
    pc_strbuf_init(&o, line, sizeof line, 0);
    double elapsed = elapsed_s > 0 ? elapsed_s : 0; /* also turns NaN into 0 */
    double rate = elapsed > 0 ? (double)done / elapsed : 0;
    char elapsed_text[INTERVAL_TEXT_MAX], rate_text[RATE_TEXT_MAX];
    format_interval(elapsed_text, sizeof elapsed_text, elapsed);
    format_rate(rate_text, sizeof rate_text, rate);

    if (total == 0 || done > total) {
        char tail[RATE_TEXT_MAX + 64];
        snprintf(tail, sizeof tail, "%" PRIu64 "it [%s, %s]", done, elapsed_text, rate_text);
        out_label(&o, label);
        pc_strbuf_appends(&o, tail);
    } else {
        double frac = (double)done / (double)total;
        char remaining[INTERVAL_TEXT_MAX] = "?";
        if (rate > 0)
            format_interval(remaining, sizeof remaining, (double)(total - done) / rate);
        char percent[16];
        snprintf(percent, sizeof percent, "%3.0f%%|", frac * 100);
        char right[RATE_TEXT_MAX + 128];
        snprintf(right, sizeof right, "| %" PRIu64 "/%" PRIu64 " [%s<%s, %s]", done, total,
                 elapsed_text, remaining, rate_text);

        size_t cells = UNSIZED_BAR_CELLS;
        if (width > 0) {
            size_t text = label_columns(label) + strlen(percent) + strlen(right);
            cells = (size_t)width > text ? (size_t)width - text : 1;
        }
        /* As tqdm: divmod(int(frac * cells * symbols), symbols). */
        uint64_t ticks = (uint64_t)(frac * (double)cells * BAR_SYMBOLS);
        size_t full = (size_t)(ticks / BAR_SYMBOLS);
        size_t part = (size_t)(ticks % BAR_SYMBOLS);

        out_label(&o, label);
        pc_strbuf_appends(&o, percent);
        pc_strbuf_appendn(&o, bar_charset[BAR_SYMBOLS], full);
        if (full < cells) {
            pc_strbuf_appendc(&o, bar_charset[part]);
            pc_strbuf_appendn(&o, bar_charset[0], cells - full - 1);
        }
        pc_strbuf_appends(&o, right);
    }

    size_t len = o.len;
    if (pc_strbuf_error(&o) || len > INT_MAX) {
        pc_strbuf_reset(&o);
        if (size > 0)
            dst[0] = '\0';
        return -1;
    }
    if (size > 0) {
        size_t n = len < size ? len : size - 1;
        memcpy(dst, pc_strbuf_str(&o), n);
        dst[n] = '\0';
    }
    pc_strbuf_reset(&o);
    return (int)len;
}

/* ---------------------------------------------------------------------------------------------
 * Drawing
 * ------------------------------------------------------------------------------------------- */

static double monotonic_seconds(void *ctx)
{
    (void)ctx;
    return pc_clock_seconds();
}

/* tqdm's dynamic_ncols: the terminal's width, then $COLUMNS, then msprobe's 75. */
static int terminal_width(FILE *stream)
{
#ifdef TIOCGWINSZ
    struct winsize ws;
    int fd = fileno(stream);
    if (fd >= 0 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
#endif
    const char *columns = getenv("COLUMNS");
    if (columns) {
        char *end;
        long n = strtol(columns, &end, 10);
        if (end != columns && *end == '\0' && n > 0 && n <= PC_PROGRESS_LINE_MAX)
            return (int)n;
    }
    return PC_PROGRESS_DEFAULT_WIDTH;
}

static void draw(pc_progress *p, double now, bool final)
{
    int width = p->width > 0 ? p->width : terminal_width(p->stream);
    if (width > PC_PROGRESS_LINE_MAX)
        width = PC_PROGRESS_LINE_MAX;

    /* '\r', the line, blanks over the rest of a longer previous line, '\n' when final. */
    char buf[1 + PC_PROGRESS_LINE_MAX + 1 + PC_PROGRESS_LINE_MAX + 1];
    buf[0] = '\r';
    char *line = buf + 1;
    int n = pc_progress_format(line, PC_PROGRESS_LINE_MAX + 1, p->label, p->done, p->total,
                               now - p->start, width);
    if (n < 0)
        return;
    size_t len = strlen(line);
    size_t columns = utf8_columns(line);
    size_t pos = 1 + len;
    if (p->last_columns > columns) {
        memset(buf + pos, ' ', p->last_columns - columns);
        pos += p->last_columns - columns;
    }
    if (final)
        buf[pos++] = '\n';
    fwrite(buf, 1, pos, p->stream);
    fflush(p->stream);

    p->last_draw = now;
    p->last_columns = final ? 0 : columns;
}

/* The log's status-line hooks (core/log.h): the bar leaves the screen line before a log line
 * and comes back below it. */
static void clear_bar(void *ctx)
{
    pc_progress *p = ctx;
    if (!p->last_columns)
        return;
    char buf[2 + PC_PROGRESS_LINE_MAX];
    size_t n = p->last_columns < PC_PROGRESS_LINE_MAX ? p->last_columns : PC_PROGRESS_LINE_MAX;
    buf[0] = '\r';
    memset(buf + 1, ' ', n);
    buf[n + 1] = '\r';
    fwrite(buf, 1, n + 2, p->stream);
    fflush(p->stream);
    p->last_columns = 0;
}

static void redraw_bar(void *ctx)
{
    pc_progress *p = ctx;
    if (!p->finished)
        draw(p, p->clock(p->clock_ctx), false);
}

pc_progress *pc_progress_new(const char *label, uint64_t total, FILE *stream)
{
    return pc_progress_new_with(label, total, stream, NULL);
}

pc_progress *pc_progress_new_with(const char *label, uint64_t total, FILE *stream,
                                  const pc_progress_options *options)
{
    pc_progress_options defaults = {0};
    if (!options)
        options = &defaults;
    pc_progress *p = calloc(1, sizeof *p);
    char *label_copy = NULL;
    if (label && *label) {
        size_t n = strlen(label) + 1;
        label_copy = malloc(n);
        if (label_copy)
            memcpy(label_copy, label, n);
    }
    if (!p || (label && *label && !label_copy)) {
        free(p);
        free(label_copy);
        pc_error_set(PC_ERR_NOMEM, "out of memory for a progress bar");
        return NULL;
    }
    p->stream = stream ? stream : stderr;
    p->label = label_copy;
    p->total = total;
    p->width = options->width > 0 ? options->width : 0;
    p->clock = options->clock ? options->clock : monotonic_seconds;
    p->clock_ctx = options->clock_ctx;
    int fd = fileno(p->stream);
    p->draws = options->force || (fd >= 0 && isatty(fd));
    p->start = p->clock(p->clock_ctx);
    if (p->draws) {
        draw(p, p->start, false);
        pc_log_set_status_line(clear_bar, redraw_bar, p);
    }
    return p;
}

void pc_progress_update(pc_progress *progress, uint64_t done)
{
    if (!progress || progress->finished)
        return;
    progress->done = done;
    if (!progress->draws)
        return;
    double now = progress->clock(progress->clock_ctx);
    if (now - progress->last_draw >= PC_PROGRESS_MIN_INTERVAL)
        draw(progress, now, false);
}

void pc_progress_finish(pc_progress *progress)
{
    if (!progress || progress->finished)
        return;
    progress->finished = true;
    if (progress->draws) {
        pc_log_set_status_line(NULL, NULL, NULL);
        draw(progress, progress->clock(progress->clock_ctx), true);
    }
}

void pc_progress_free(pc_progress *progress)
{
    if (!progress)
        return;
    pc_progress_finish(progress);
    free(progress->label);
    free(progress);
}
