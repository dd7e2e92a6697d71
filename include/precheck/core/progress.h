/*
 * A tqdm-like progress bar on stderr, the way msprobe shows run_ut's progress
 * (docs/msprobe-contract.md#formats), with tqdm's ASCII bar:
 *
 *     Processing:  42%|####2     | 42/100 [00:03<00:04, 12.34it/s]
 *
 * It draws only when its stream is a terminal (unless forced), redrawing the line with '\r'
 * at most every PC_PROGRESS_MIN_INTERVAL seconds of the monotonic clock, and pads a redraw
 * with spaces when it is shorter than the previous one. Each draw is one fwrite + fflush.
 *
 * A pc_progress is owned by its creator and used from one thread. Every function accepts a
 * NULL bar and then does nothing, so that a failed pc_progress_new() only loses the bar.
 */
#ifndef PC_CORE_PROGRESS_H
#define PC_CORE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pc_progress pc_progress;

/* Seconds between two redraws (tqdm's mininterval); the final draw is never held back. */
#define PC_PROGRESS_MIN_INTERVAL 0.1
/* Line width used when the terminal's cannot be read (msprobe's ncols). */
enum { PC_PROGRESS_DEFAULT_WIDTH = 75 };
/* Longest line drawn; longer ones (a huge label) are cut. */
enum { PC_PROGRESS_LINE_MAX = 1024 };

typedef struct pc_progress_options {
    bool force; /* draw even when the stream is not a terminal */
    int width;  /* line width in columns; 0 = the terminal's, else $COLUMNS, else 75 */
    /* Monotonic time in seconds; NULL = CLOCK_MONOTONIC. For tests. */
    double (*clock)(void *ctx);
    void *clock_ctx;
} pc_progress_options;

/* A bar counting up to total (0 = unknown: no bar, no percentage, no remaining time) with the
 * given label (copied; NULL or "" = none), on stream (NULL = stderr; borrowed, must outlive
 * the bar). Draws the initial state at once when it draws at all. Returns NULL, with
 * PC_ERR_NOMEM set, if memory runs out. */
pc_progress *pc_progress_new(const char *label, uint64_t total, FILE *stream);
pc_progress *pc_progress_new_with(const char *label, uint64_t total, FILE *stream,
                                  const pc_progress_options *options);

/* Sets the number of items done (not an increment) and redraws if the interval has passed. */
void pc_progress_update(pc_progress *progress, uint64_t done);

/* Draws the final state and ends the line, if the bar draws at all; later updates and
 * finishes do nothing. */
void pc_progress_finish(pc_progress *progress);

/* Finishes the bar if that was not done, then frees it. */
void pc_progress_free(pc_progress *progress);

/*
 * Formats one state of the bar as tqdm's format_meter() does with ascii=True, unit "it" and
 * msprobe's bar_format, without the leading '\r'. The rate is the average done / elapsed_s
 * (tqdm shows a smoothed one while running). The text is:
 *
 *   total > 0 and done <= total:  "<label>: " "%3.0f%%|" <bar> "| <done>/<total>
 * [<elapsed><<remaining>, <rate>]" otherwise (unknown total):    "<label>: " "<done>it [<elapsed>,
 * <rate>]"
 *
 * "<label>: " is left out when the label is NULL or "", and is just the label when that ends
 * in ": ". Times are mm:ss, or h:mm:ss from one hour on (whole seconds, truncated). The rate is
 * "%5.2fit/s", or "%5.2fs/it" when an item takes more than a second, or "?it/s" when nothing
 * is done or no time has passed; remaining is "?" then. The bar has "#" per full cell, one
 * digit for the tenths of the next cell, then spaces. width > 0 is the whole line's width in
 * columns (UTF-8 characters), the bar taking what is left but at least 1 cell; width <= 0
 * gives a 10-cell bar (tqdm without ncols).
 *
 * snprintf conventions: writes at most size - 1 bytes and a NUL (dst may be NULL when size is
 * 0) and returns the length of the whole text, or -1 when dst is NULL with size > 0 (or when
 * memory runs out for a line wider than 256 bytes).
 */
int pc_progress_format(char *dst, size_t size, const char *label, uint64_t done, uint64_t total,
                       double elapsed_s, int width);

#endif
