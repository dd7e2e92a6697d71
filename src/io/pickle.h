/*
 * Private to io/: a pickle machine for the subset of Python's pickle format that torch.save
 * writes (protocol 2), with the protocol 3-5 opcodes a newer writer may use, and no Python.
 *
 * The machine evaluates nothing. A GLOBAL becomes a symbol (module, name); REDUCE, NEWOBJ
 * and NEWOBJ_EX become a "call" node that records the callable and its arguments; BINPERSID
 * becomes a "persistent id" node holding the id. Items appended or set on a call node and the
 * state of BUILD are recorded on it. The caller (pt.c) reads meaning into the resulting tree:
 * which symbols it accepts and what their calls build. So nothing in a file can make this
 * code run anything, and torch's names live in one place.
 *
 * Limits: the pickle is at most PC_PICKLE_MAX_BYTES long; the machine's memory grows linearly
 * with it (each opcode makes at most one node), memo indexes beyond the pickle's length are
 * refused, and nothing here recurses, so hostile input cannot exhaust memory or the C stack.
 *
 * Ownership: every node lives in the pc_pickle's arena and dies with pc_pickle_free();
 * strings point into the pickle bytes, which must outlive the pc_pickle.
 *
 * Errors: PC_ERR_FORMAT (malformed: truncated, stack underflow, bad memo reference, ...) and
 * PC_ERR_UNSUPPORTED (an opcode outside the subset), each naming the opcode and its byte
 * offset after the origin given; PC_ERR_NOMEM.
 */
#ifndef PC_IO_PICKLE_H
#define PC_IO_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"

/* A single tensor's data.pkl is about 200 bytes; this leaves room for any metadata. */
#define PC_PICKLE_MAX_BYTES ((size_t)1 << 20)

typedef enum pc_pk_kind {
    PC_PK_NONE,
    PC_PK_BOOL,
    PC_PK_INT,    /* fits in int64 */
    PC_PK_BIGINT, /* an integer beyond int64: its value is not kept */
    PC_PK_FLOAT,
    PC_PK_STRING, /* str (unicode) */
    PC_PK_BYTES,  /* bytes, bytearray and protocol-1 strings */
    PC_PK_TUPLE,
    PC_PK_LIST,
    PC_PK_DICT, /* items alternate key, value */
    PC_PK_SET,  /* set and frozenset */
    PC_PK_GLOBAL,
    PC_PK_CALL,
    PC_PK_PERSID,
} pc_pk_kind;

typedef struct pc_pk_value pc_pk_value;

typedef struct pc_pk_text {
    const char *data; /* into the pickle; not NUL-terminated */
    size_t len;
} pc_pk_text;

struct pc_pk_value {
    pc_pk_kind kind;
    union {
        bool boolean;
        int64_t integer;
        double real;
        pc_pk_text text; /* STRING, BYTES */
        struct {
            pc_pk_value **items;
            size_t count, cap;
        } seq; /* TUPLE, LIST, DICT (2 x pairs), SET */
        struct {
            pc_pk_text module, name;
        } global;
        struct {
            pc_pk_value *callable;
            pc_pk_value *args;   /* a TUPLE for REDUCE/NEWOBJ */
            pc_pk_value *kwargs; /* NEWOBJ_EX; NULL otherwise */
            pc_pk_value *state;  /* BUILD's argument; NULL when none */
            pc_pk_value *items;  /* LIST of APPENDs or DICT of SETITEMs made on it; NULL */
        } call;
        pc_pk_value *persid;
    } u;
};

typedef struct pc_pickle pc_pickle;

/*
 * Runs the machine over size bytes until STOP and gives the value it returns in *result
 * (valid until pc_pickle_free). *out is set on success; on failure nothing needs freeing.
 * origin names the pickle in messages ("x.pt: data.pkl").
 */
pc_status pc_pickle_load(pc_pickle **out, pc_pk_value **result, const void *data, size_t size,
                         const char *origin);
void pc_pickle_free(pc_pickle *pickle);

/* ---- reading the tree ---- */

bool pc_pk_text_is(const pc_pk_text *text, const char *s);
/* A global named module.name. */
bool pc_pk_is_global(const pc_pk_value *v, const char *module, const char *name);
/* A short description for messages: "an int", "a dict", "a call of torch._utils.foo", ... */
void pc_pk_describe(const pc_pk_value *v, char *dst, size_t size);

#endif
