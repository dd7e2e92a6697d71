/*
 * JSON as Python's json module reads it: a tokenizer into a flat, read-only document, typed
 * getters whose errors name the place (file:line:column), and a scanner that walks the members
 * of one big object without tokenising their values (for dump.json, entry by entry).
 *
 * Accepted language (Python's json.loads, strict=True):
 *   - RFC 8259 JSON, plus the bare tokens NaN, Infinity and -Infinity as numbers;
 *   - integers are kept exact as int64; an integer literal outside int64 becomes a float
 *     (the nearest double) with pc_json_is_big_integer() true, and pc_json_get_int64() on it
 *     fails with PC_ERR_RANGE;
 *   - strings are decoded to UTF-8: \uXXXX escapes with surrogate pairs; a lone surrogate
 *     (which Python keeps) becomes U+FFFD; raw bytes must be valid UTF-8, control characters
 *     below 0x20 must be escaped; a string may hold U+0000 (the length says where it ends);
 *   - a UTF-8 byte order mark at the start is refused, as Python's json.loads refuses it;
 *   - duplicate object keys are kept; pc_json_object_get() finds the LAST one, which is the
 *     value Python's dict ends up with;
 *   - nesting deeper than PC_JSON_MAX_DEPTH is refused (Python stops near 1000 with a
 *     RecursionError).
 * Malformed input gives PC_ERR_FORMAT with a message
 *   "<name>:<line>:<column>: expected <what>, found <what>"
 * (lines and columns from 1, columns in characters). Nothing is ever read outside the given
 * bytes; input need not be NUL-terminated.
 *
 * Values are named by pc_json_ref, an index into their document; PC_JSON_NONE is "no value"
 * and every accessor accepts it (type PC_JSON_INVALID, count 0, getters fail with
 * PC_ERR_NOT_FOUND), so look-ups can be chained and checked once at the end.
 *
 * OWNERSHIP: a pc_json_doc owns its tokens and its decoded strings; the pointers it hands out
 * (strings, the name) are valid until pc_json_free() or the next pc_json_parse_range() on the
 * same document. pc_json_parse() and pc_json_parse_range() borrow the input bytes, which must
 * stay unchanged while the document lives (error positions are computed from them);
 * pc_json_parse_file() owns its copy of the file. Documents are not shared between threads
 * while one of them parses into it; reading one document from several threads is fine.
 */
#ifndef PC_IO_JSON_H
#define PC_IO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"

/* Deepest nesting of arrays and objects accepted. */
#define PC_JSON_MAX_DEPTH 1000

typedef enum pc_json_type {
    PC_JSON_INVALID = 0, /* the type of PC_JSON_NONE */
    PC_JSON_NULL,
    PC_JSON_BOOL,
    PC_JSON_INT,   /* an integer literal that fits int64 */
    PC_JSON_FLOAT, /* any other number, NaN and +-Infinity included */
    PC_JSON_STRING,
    PC_JSON_ARRAY,
    PC_JSON_OBJECT,
} pc_json_type;

typedef uint32_t pc_json_ref;
#define PC_JSON_NONE ((pc_json_ref)UINT32_MAX)

typedef struct pc_json_doc pc_json_doc;

/* ---- parsing ---- */

/* Tokenizes data[0, size) (exactly one value, whitespace around it allowed). name is used in
 * messages (e.g. the file path; NULL gives "<json>") and copied. PC_ERR_FORMAT, PC_ERR_NOMEM,
 * PC_ERR_RANGE (more than 2^32 - 2 values). *out is written only on success. */
pc_status pc_json_parse(pc_json_doc **out, const char *data, size_t size, const char *name);

/* Reads the whole file and parses it; messages use path as the name. PC_ERR_IO / PC_ERR_NOT_FOUND
 * with the system's reason when it cannot be read. */
pc_status pc_json_parse_file(pc_json_doc **out, const char *path);

/* An empty document to parse ranges into again and again, reusing its memory. */
pc_status pc_json_doc_new(pc_json_doc **out, const char *name);

/* Tokenizes the one value that spans data[begin, end) (whitespace around it allowed) of a
 * larger buffer data[0, size); lines and columns in messages count from data[0]. Replaces what
 * doc held before. On failure doc holds no value (its root is PC_JSON_NONE). */
pc_status pc_json_parse_range(pc_json_doc *doc, const char *data, size_t size, size_t begin,
                              size_t end);

/* Tokenizes the one value that starts at the first non-space byte at or after begin and sets
 * *stop just after it; what follows is not looked at (for streaming: the caller goes on from
 * *stop). Replaces what doc held before. */
pc_status pc_json_parse_value_at(pc_json_doc *doc, const char *data, size_t size, size_t begin,
                                 size_t *stop);

void pc_json_free(pc_json_doc *doc); /* NULL is fine */

/* ---- navigation ---- */

pc_json_ref pc_json_root(const pc_json_doc *doc);
pc_json_type pc_json_type_of(const pc_json_doc *doc, pc_json_ref v);
/* "null", "boolean", "integer", "number", "string", "array", "object", "nothing". */
const char *pc_json_type_name(pc_json_type type);

/* Elements of an array, members of an object; 0 for anything else. */
size_t pc_json_count(const pc_json_doc *doc, pc_json_ref v);
/* First element of an array, or the KEY of the first member of an object (the member's value
 * is pc_json_member_value(key)); PC_JSON_NONE when empty or not a container. */
pc_json_ref pc_json_first(const pc_json_doc *doc, pc_json_ref v);
/* The next element after an element, or the next member's key after a member's key (or after
 * a member's value); PC_JSON_NONE after the last. */
pc_json_ref pc_json_next(const pc_json_doc *doc, pc_json_ref v);
/* The value of the member whose key is key_ref. */
pc_json_ref pc_json_member_value(const pc_json_doc *doc, pc_json_ref key_ref);
/* Element i of an array (walks the elements: O(i)); PC_JSON_NONE when out of range. */
pc_json_ref pc_json_array_at(const pc_json_doc *doc, pc_json_ref array, size_t i);
/* The value of the last member named key (a NUL-terminated UTF-8 string); PC_JSON_NONE when
 * there is none or obj is not an object. */
pc_json_ref pc_json_object_get(const pc_json_doc *doc, pc_json_ref obj, const char *key);
/* Whether key_ref is the last member of its object with that key, i.e. the one Python's dict
 * keeps (walks the following members: O(members)). */
bool pc_json_member_is_last_of_key(const pc_json_doc *doc, pc_json_ref key_ref);

/* ---- scalars without errors ---- */

bool pc_json_is_null(const pc_json_doc *doc, pc_json_ref v);
/* For a string: its decoded bytes, NUL-terminated, and (len may be NULL) the byte length,
 * which is shorter than strlen() only when the string holds U+0000. NULL for non-strings. */
const char *pc_json_string(const pc_json_doc *doc, pc_json_ref v, size_t *len);
/* Integer or float as a double (big integers rounded); NaN for anything else. */
double pc_json_number(const pc_json_doc *doc, pc_json_ref v);
/* Whether v is a number written as an integer literal outside int64 (PC_JSON_FLOAT). */
bool pc_json_is_big_integer(const pc_json_doc *doc, pc_json_ref v);
/* Python's bool() of a value: false for null, false, 0, 0.0, "", [] and {}; NaN is true. */
bool pc_json_truthy(const pc_json_doc *doc, pc_json_ref v);
/* Whether v is the key of an object member (keys are PC_JSON_STRING values too). */
bool pc_json_is_key(const pc_json_doc *doc, pc_json_ref v);

/* ---- typed getters with errors ----
 * On a wrong type they return PC_ERR_INVALID and set "<name>:<line>:<col>: expected <type>,
 * found <type>"; on PC_JSON_NONE, PC_ERR_NOT_FOUND ("<name>: no value"). *out is written only
 * on success. */
pc_status pc_json_get_bool(const pc_json_doc *doc, pc_json_ref v, bool *out);
/* Integer literals only (true/false and 5.0 are refused); PC_ERR_RANGE for big integers. */
pc_status pc_json_get_int64(const pc_json_doc *doc, pc_json_ref v, int64_t *out);
/* Integers (converted) and floats, NaN and infinities included. */
pc_status pc_json_get_double(const pc_json_doc *doc, pc_json_ref v, double *out);
/* *out as pc_json_string(); len may be NULL. */
pc_status pc_json_get_string(const pc_json_doc *doc, pc_json_ref v, const char **out, size_t *len);

/* The same through an object key: "<name>:<line>:<col>: \"<key>\": expected <type>, found
 * <type>"; a missing key is PC_ERR_NOT_FOUND "<name>:<line>:<col>: missing key \"<key>\""
 * (the position of the object). */
pc_status pc_json_object_get_bool(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                  bool *out);
pc_status pc_json_object_get_int64(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                   int64_t *out);
pc_status pc_json_object_get_double(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                    double *out);
pc_status pc_json_object_get_string(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                    const char **out);

/* ---- positions, for messages of callers ---- */

/* The name given at parse time ("<json>" when none). */
const char *pc_json_doc_name(const pc_json_doc *doc);
/* Line and column (from 1) where v starts; 0, 0 for PC_JSON_NONE. Linear over many calls:
 * the document remembers a line mark every 8 KiB up to the furthest position asked (16 bytes
 * each) and the last position, so each call counts at most 8 KiB (the typed getters' errors
 * use this too). */
void pc_json_location(const pc_json_doc *doc, pc_json_ref v, size_t *line, size_t *column);
/* The same for byte offset pos of the document's input (clamped to its size); 0, 0 before
 * anything was parsed into doc. */
void pc_json_doc_offset_location(const pc_json_doc *doc, size_t pos, size_t *line, size_t *column);
/* Byte offset of v's first character in the input buffer (SIZE_MAX for PC_JSON_NONE). */
size_t pc_json_offset(const pc_json_doc *doc, pc_json_ref v);
/* Line and column of byte offset pos of data[0, size) (pos clamped to size), counted from
 * the start: for one message; pc_json_doc_offset_location() for many. */
void pc_json_offset_location(const char *data, size_t size, size_t pos, size_t *line,
                             size_t *column);

/* ---- scanning one object member by member (for files too big to tokenise at once) ----
 *
 * The scanner checks the object's own punctuation (braces, colons, commas), decodes each key,
 * and finds where each member's value begins and ends by matching brackets outside strings;
 * it does not check the value itself: tokenise data[value_begin, value_end) with
 * pc_json_parse_range() for that (a value the scanner accepted and the tokenizer accepts is
 * valid JSON). */
typedef struct pc_json_scanner {
    const char *data; /* borrowed: the whole buffer */
    size_t size;
    size_t pos;       /* next byte to look at */
    const char *name; /* borrowed, for messages */
    int state;        /* private */
    char *key;        /* private: the decoded key of the last member (owned) */
    size_t key_cap;
} pc_json_scanner;

/* Starts at the '{' that is the first non-space byte at or after pos. PC_ERR_FORMAT when
 * something else is there. Call pc_json_scanner_free() afterwards in every case. */
pc_status pc_json_scanner_init(pc_json_scanner *s, const char *data, size_t size, size_t pos,
                               const char *name);
/* The next member: its decoded key (valid until the next call; NUL-terminated, *key_len its
 * length), the offset of the key's opening quote, and the value's span. Returns PC_OK with
 * *done true after the closing '}' (then s->pos is just past it); PC_ERR_FORMAT on bad
 * punctuation, an unterminated string or unbalanced brackets. */
pc_status pc_json_scanner_next(pc_json_scanner *s, const char **key, size_t *key_len,
                               size_t *key_offset, size_t *value_begin, size_t *value_end,
                               bool *done);
/* Like pc_json_scanner_next() without finding the value's end: the caller reads the value
 * itself (with pc_json_parse_value_at() or a nested scanner) and then must call
 * pc_json_scanner_value_done() with the offset just past it before the next call. */
pc_status pc_json_scanner_next_key(pc_json_scanner *s, const char **key, size_t *key_len,
                                   size_t *key_offset, size_t *value_begin, bool *done);
void pc_json_scanner_value_done(pc_json_scanner *s, size_t value_end);
void pc_json_scanner_free(pc_json_scanner *s);

/* Checks that only whitespace follows pos up to the end (PC_ERR_FORMAT "... expected end of
 * input ..." otherwise). */
pc_status pc_json_expect_end(const char *data, size_t size, size_t pos, const char *name);

#endif
