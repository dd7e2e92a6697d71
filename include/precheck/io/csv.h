/*
 * CSV writing, byte for byte what msprobe's write_csv produces with Python's csv module:
 * UTF-8, a byte order mark only at the very start of a file, comma separators, CRLF record
 * ends, minimal quoting (a field is quoted iff it holds a comma, a double quote, CR or LF; inner
 * quotes are doubled; an LF inside a quoted field stays a bare LF).
 *
 * Cells carry the Python type msprobe had for the value, because that type, not the value,
 * decides the text (docs/msprobe-contract.md#formats):
 *   PC_CSV_F64   a Python float / numpy float64: "%.{precision}f", with "nan", "inf", "-inf";
 *   PC_CSV_F32   a numpy float32: numpy's str(), the shortest digits that read back as the same
 *                float32, positional for 0 and 1e-4 <= |x| < 1e16 ("0.125", "100.0"), otherwise
 *                scientific with at least two exponent digits ("6.944174e-08", "1e-05");
 *   PC_CSV_F16   a numpy float16: the same rules with float16's shortest digits ("0.0996");
 *   PC_CSV_INT   a Python int: decimal;
 *   PC_CSV_SPACE msprobe's SPACE, a single " ";
 *   PC_CSV_EMPTY None or "": nothing between the commas;
 *   PC_CSV_TEXT  a string, as is -- except a value a spreadsheet would run as a formula
 *                (pc_csv_cell_runs): a ' goes in front of each place that starts one, so
 *                "=HYPERLINK(..)" is written '=HYPERLINK(..) and "a;=b" a;'=b.
 *
 * OWNERSHIP: cells borrow their text; a pc_csv_buffer owns its bytes (pc_csv_buffer_free).
 * Errors: PC_ERR_NOMEM when a buffer cannot grow; the file functions give PC_ERR_IO (or
 * PC_ERR_NOT_FOUND for a missing directory) with the path and the system's reason.
 */
#ifndef PC_IO_CSV_H
#define PC_IO_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/strbuf.h"
#include "precheck/core/status.h"

typedef enum pc_csv_kind {
    PC_CSV_SPACE = 0, /* a zeroed cell is SPACE, msprobe's default for every column */
    PC_CSV_EMPTY,
    PC_CSV_TEXT,
    PC_CSV_F64,
    PC_CSV_F32,
    PC_CSV_F16,
    PC_CSV_INT,
} pc_csv_kind;

typedef struct pc_csv_cell {
    pc_csv_kind kind;
    union {
        double f64;       /* PC_CSV_F64 */
        float f32;        /* PC_CSV_F32 */
        uint16_t f16;     /* PC_CSV_F16: the bits */
        int64_t i64;      /* PC_CSV_INT */
        const char *text; /* PC_CSV_TEXT (NULL is written as nothing) */
    } v;
} pc_csv_cell;

/* Cell constructors. */
pc_csv_cell pc_csv_space(void);
pc_csv_cell pc_csv_text(const char *text);
pc_csv_cell pc_csv_f64(double x);
pc_csv_cell pc_csv_f32(float x);
pc_csv_cell pc_csv_f16(uint16_t bits);
pc_csv_cell pc_csv_int(int64_t x);

/* Longest text a number cell can format to with precision <= PC_CSV_MAX_PRECISION (a float64
 * near 1.8e308 in fixed notation has 309 integer digits). */
#define PC_CSV_MAX_PRECISION 40
#define PC_CSV_NUMBER_MAX    360

/*
 * Number formatting, each like snprintf: writes at most size bytes (always NUL-terminated when
 * size > 0) and returns the length of the whole text.
 *   pc_format_fixed: Python's "{:.{precision}f}".format(x) (precision 0..PC_CSV_MAX_PRECISION;
 *                    any NaN is "nan", as Python prints it).
 * (numpy's str() of a float32 / float16 scalar is core/pyrepr.h's pc_pyrepr_numpy_f32/_f16.)
 */
int pc_format_fixed(char *dst, size_t size, double x, int precision);

/* The text of one cell, unquoted (precision applies to PC_CSV_F64 cells). */
int pc_csv_format_cell(char *dst, size_t size, const pc_csv_cell *cell, int precision);

/* ---- rows into a memory buffer ---- */

/* core's pc_strbuf: data holds len bytes, NUL-terminated (NULL while nothing was appended). */
typedef pc_strbuf pc_csv_buffer;

#define PC_CSV_BUFFER_INIT ((pc_csv_buffer){0})

void pc_csv_buffer_free(pc_csv_buffer *buf);  /* leaves an empty buffer */
void pc_csv_buffer_clear(pc_csv_buffer *buf); /* keeps the memory; clears an error */

/*
 * msprobe's rule for a value a spreadsheet would run: it starts with one of + - = % @ (or their
 * full-width forms ＋ － ＝ ％ ＠), or holds a ';' followed by one (a ';' separates cells in some
 * locales). pc_csv_formula_like is the rule itself (msprobe refuses such API names);
 * pc_csv_cell_runs is the rule for any other text cell: formula-like and not a plain number
 * ("-0.5", "-inf" are numbers to a spreadsheet).
 */
bool pc_csv_formula_like(const char *s);
bool pc_csv_cell_runs(const char *s);

/* Appends one record: the n cells, quoted where needed, separated by commas, and CRLF. A text
 * cell for which pc_csv_cell_runs holds gets a ' in front of each formula start. */
pc_status pc_csv_append_row(pc_csv_buffer *buf, const pc_csv_cell *cells, size_t n, int precision);

/* The same for a record of plain strings (headers). */
pc_status pc_csv_append_text_row(pc_csv_buffer *buf, const char *const *fields, size_t n);

/* ---- files ---- */

/*
 * Appends buf's bytes to the file at path in one write: creates the file (mode 0640) when it
 * does not exist, puts the UTF-8 byte order mark in front when the file is empty, and sets the
 * mode to 0640 afterwards, as msprobe does after each write. Nothing is buffered in the process
 * after it returns. An empty buffer still creates the file (with no BOM).
 */
pc_status pc_csv_append_file(const char *path, const pc_csv_buffer *buf);

#endif
