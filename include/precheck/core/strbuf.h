/*
 * A growable byte string (SQLite's sqlite3_str, Redis's sds): appends of bytes, characters,
 * strings and printf, with a sticky error checked once at the end instead of after every
 * append. It may start on a caller's fixed buffer (a stack array): the text moves to the heap
 * only when it outgrows it. The length is explicit, so it carries bytes (NULs included); the
 * text is kept NUL-terminated after every call for C-string use.
 *
 * Errors: an allocation that fails sets PC_STRBUF_NOMEM; an append past the buffer's limit (max)
 * keeps the part that fits and sets PC_STRBUF_TOOBIG. The first error sticks: after NOMEM the
 * appends do nothing; after TOOBIG the text stays cut at the limit. Neither sets a pc_error
 * message (the caller knows what it was building).
 *
 * Memory: the heap text is malloc'd (pc_alloc_fail_after's hook applies); pc_strbuf_finish
 * gives it to the caller, who free()s it; pc_strbuf_reset frees it. A pointer into the text
 * (pc_strbuf_str, the result of pc_strbuf_extend) is invalidated by any later append.
 */
#ifndef PC_CORE_STRBUF_H
#define PC_CORE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

enum { PC_STRBUF_OK = 0, PC_STRBUF_NOMEM = 1, PC_STRBUF_TOOBIG = 2 };

typedef struct pc_strbuf {
    char *data;  /* the text, len bytes and a NUL; NULL until something is appended */
    size_t len;  /* bytes of text */
    size_t cap;  /* bytes at data */
    size_t max;  /* the most bytes of text (0: no limit) */
    char *fixed; /* the caller's buffer, or NULL */
    size_t fixed_size;
    int err; /* PC_STRBUF_OK, or the first error */
} pc_strbuf;

/* An empty buffer on the heap, without a limit (what pc_strbuf_init(b, NULL, 0, 0) makes). */
#define PC_STRBUF_INIT                                                                             \
    {                                                                                              \
        0                                                                                          \
    }

/* An empty buffer that uses fixed[0, fixed_size) first (NULL, 0: the heap from the start) and
 * holds at most max bytes of text (0: no limit). */
void pc_strbuf_init(pc_strbuf *b, char *fixed, size_t fixed_size, size_t max);

void pc_strbuf_append(pc_strbuf *b, const void *bytes, size_t n);
void pc_strbuf_appends(pc_strbuf *b, const char *s); /* NULL appends nothing */
void pc_strbuf_appendc(pc_strbuf *b, char c);
void pc_strbuf_appendn(pc_strbuf *b, char c, size_t count); /* count copies of c */
void pc_strbuf_printf(pc_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pc_strbuf_vprintf(pc_strbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Room for n more bytes at the end, which become part of the text (len grows by n) for the
 * caller to fill; NULL (and nothing appended) on error or past the limit, which sets the error. */
char *pc_strbuf_extend(pc_strbuf *b, size_t n);
/* Cuts the text to its first len bytes (nothing when len >= the length). The error stays. */
void pc_strbuf_truncate(pc_strbuf *b, size_t len);

/* The first error, PC_STRBUF_OK when none. */
int pc_strbuf_error(const pc_strbuf *b);
/* The text ("" when empty): valid until the next call on b. */
const char *pc_strbuf_str(const pc_strbuf *b);
static inline size_t pc_strbuf_len(const pc_strbuf *b)
{
    return b->len;
}

/* Frees the heap text and empties b, error included; the fixed buffer and the limit stay. */
void pc_strbuf_reset(pc_strbuf *b);
/*
 * The text, NUL-terminated, for the caller to free(), and its length in *len (when len is not
 * NULL); b is reset. A text still in the fixed buffer is copied to the heap; an empty text is
 * "" on the heap. NULL when b had PC_STRBUF_NOMEM, or when the copy fails; a TOOBIG text is
 * given (cut): check pc_strbuf_error first when that matters.
 */
char *pc_strbuf_finish(pc_strbuf *b, size_t *len);

#endif
