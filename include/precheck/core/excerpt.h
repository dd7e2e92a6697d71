/*
 * A short, quoted, escaped excerpt of text read from a file, for an error message: the one way
 * precheck shows what a file holds when it refuses it (a CSV header that is not run_ut's, a
 * value that differs between two run records). It never shows more than PC_EXCERPT_CHARS
 * characters, so a file that is not what it is named (a system file behind a link, a binary)
 * is named, not printed, and a terminal never receives its control bytes.
 *
 * The excerpt is the text in double quotes, with:
 *   - printable ASCII and valid UTF-8 characters kept as they are;
 *   - \" and \\ for the quote and the backslash, \n \r \t for those controls;
 *   - \xNN for every other control byte (0x00-0x1F, 0x7F) and every byte that is not part of
 *     valid UTF-8 (each counts as one character);
 *   - \u{NNNN} for the C1 controls (U+0080-U+009F) and the invisible direction marks and
 *     overrides (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which could reorder a line;
 *   - ... after the closing quote when the text was longer than PC_EXCERPT_CHARS characters.
 *
 * The result is written into the caller's pc_excerpt buffer, always NUL-terminated; nothing is
 * allocated and nothing can fail.
 */
#ifndef PC_CORE_EXCERPT_H
#define PC_CORE_EXCERPT_H

#include <stddef.h>

enum {
    PC_EXCERPT_CHARS = 60, /* characters of the text shown at most */
    /* room for the worst case: every character as \u{NNNN}, the quotes, "..." and the NUL */
    PC_EXCERPT_SIZE = PC_EXCERPT_CHARS * 8 + 8,
};

typedef struct pc_excerpt {
    char text[PC_EXCERPT_SIZE];
} pc_excerpt;

/* Writes the excerpt of the len bytes at text (NULL: the empty text) into *buf and returns
 * buf->text, so it can be an argument of pc_error_set's "%s". */
const char *pc_excerpt_quote(pc_excerpt *buf, const char *text, size_t len);

/* The same for a NUL-terminated text (NULL: the empty text). */
const char *pc_excerpt_of(pc_excerpt *buf, const char *text);

#endif
