/*
 * Streaming CSV reading, one record at a time, with the dialect Python's csv module and pandas
 * read back from msprobe's files: UTF-8 with an optional byte order mark at the start, comma
 * separators, records ended by LF, CRLF or a lone CR, fields in double quotes holding commas,
 * doubled quotes and line ends. As in Python's reader (non-strict), a quote inside an unquoted
 * field is an ordinary character, text after a closing quote is appended to the field, and empty
 * lines are skipped (as pandas does). An end of file inside a quoted field is an error.
 *
 * Memory is bounded by the longest record: the reader keeps one read buffer (64 KiB) and the
 * current record.
 *
 * OWNERSHIP: the reader owns its buffers; the fields returned by pc_csv_reader_field() are
 * NUL-terminated and stay valid until the next pc_csv_reader_next() or pc_csv_reader_free().
 * The reader of a memory block borrows the block, which must outlive the reader.
 *
 * Errors: PC_ERR_NOT_FOUND / PC_ERR_IO when the file cannot be opened or read (with the path and
 * the system's reason), PC_ERR_FORMAT for an unterminated quoted field (with path and line),
 * PC_ERR_RANGE for a record longer than PC_CSV_RECORD_MAX, PC_ERR_NOMEM.
 */
#ifndef PC_IO_CSV_READ_H
#define PC_IO_CSV_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"

typedef struct pc_csv_reader pc_csv_reader;

/* Largest record (bytes, all fields together) the reader accepts. */
#define PC_CSV_RECORD_MAX ((size_t)64 << 20)

/* Opens the file at path. *out is NULL on failure. */
pc_status pc_csv_reader_open(const char *path, pc_csv_reader **out);

/* Reads from len bytes at data (borrowed); name is used in messages (NULL: "<memory>"). */
pc_status pc_csv_reader_open_memory(const char *data, size_t len, const char *name,
                                    pc_csv_reader **out);

/* Reads the next record. *has_row is false at the end of the input (the status is then PC_OK). */
pc_status pc_csv_reader_next(pc_csv_reader *r, bool *has_row);

/* Fields of the current record. */
size_t pc_csv_reader_field_count(const pc_csv_reader *r);
/* Field i (NUL-terminated; its length in *len when len is not NULL); NULL when i is out of range.
 */
const char *pc_csv_reader_field(const pc_csv_reader *r, size_t i, size_t *len);

/* The 1-based line where the current record starts. */
size_t pc_csv_reader_line(const pc_csv_reader *r);

/* The name given at opening (the path for files). */
const char *pc_csv_reader_name(const pc_csv_reader *r);

/* Closes the file and frees everything; NULL is accepted. */
void pc_csv_reader_free(pc_csv_reader *r);

#endif
