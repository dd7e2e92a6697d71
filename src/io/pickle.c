#include "io/pickle.h"

#include "precheck/core/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------- */
/* Arena: every node and item array; freed all at once                                      */
/* ---------------------------------------------------------------------------------------- */

#define ARENA_CHUNK 65536

struct pc_pickle {
    pc_arena arena; /* 64 KiB chunks, limited to what a pickle of its size can need */
};

static void *arena_alloc(pc_pickle *pk, size_t size)
{
    return pc_arena_alloc(&pk->arena, size);
}

void pc_pickle_free(pc_pickle *pickle)
{
    if (!pickle)
        return;
    pc_arena_free(&pickle->arena);
    free(pickle);
}

/* ---------------------------------------------------------------------------------------- */
/* The machine                                                                              */
/* ---------------------------------------------------------------------------------------- */

typedef struct vm {
    pc_pickle *pk;
    const unsigned char *data;
    size_t size, pos;
    size_t op_pos; /* offset of the opcode being run, for messages */
    unsigned char op;
    const char *origin;
    pc_pk_value **stack;
    size_t depth, stack_cap;
    size_t *marks;
    size_t nmarks, marks_cap;
    pc_pk_value **memo;
    size_t memo_cap, memo_count;
} vm;

static const char *op_name(unsigned char op)
{
    switch (op) {
    case 0x80:
        return "PROTO";
    case 0x95:
        return "FRAME";
    case '.':
        return "STOP";
    case '(':
        return "MARK";
    case '0':
        return "POP";
    case '1':
        return "POP_MARK";
    case '2':
        return "DUP";
    case 'N':
        return "NONE";
    case 0x88:
        return "NEWTRUE";
    case 0x89:
        return "NEWFALSE";
    case 'J':
        return "BININT";
    case 'K':
        return "BININT1";
    case 'M':
        return "BININT2";
    case 0x8a:
        return "LONG1";
    case 0x8b:
        return "LONG4";
    case 'G':
        return "BINFLOAT";
    case 'X':
        return "BINUNICODE";
    case 0x8c:
        return "SHORT_BINUNICODE";
    case 0x8d:
        return "BINUNICODE8";
    case 'T':
        return "BINSTRING";
    case 'U':
        return "SHORT_BINSTRING";
    case 'B':
        return "BINBYTES";
    case 'C':
        return "SHORT_BINBYTES";
    case 0x8e:
        return "BINBYTES8";
    case 0x96:
        return "BYTEARRAY8";
    case ')':
        return "EMPTY_TUPLE";
    case 't':
        return "TUPLE";
    case 0x85:
        return "TUPLE1";
    case 0x86:
        return "TUPLE2";
    case 0x87:
        return "TUPLE3";
    case ']':
        return "EMPTY_LIST";
    case 'l':
        return "LIST";
    case 'a':
        return "APPEND";
    case 'e':
        return "APPENDS";
    case '}':
        return "EMPTY_DICT";
    case 'd':
        return "DICT";
    case 's':
        return "SETITEM";
    case 'u':
        return "SETITEMS";
    case 0x8f:
        return "EMPTY_SET";
    case 0x90:
        return "ADDITEMS";
    case 0x91:
        return "FROZENSET";
    case 'c':
        return "GLOBAL";
    case 0x93:
        return "STACK_GLOBAL";
    case 'R':
        return "REDUCE";
    case 'b':
        return "BUILD";
    case 0x81:
        return "NEWOBJ";
    case 0x92:
        return "NEWOBJ_EX";
    case 'Q':
        return "BINPERSID";
    case 'P':
        return "PERSID";
    case 'q':
        return "BINPUT";
    case 'r':
        return "LONG_BINPUT";
    case 0x94:
        return "MEMOIZE";
    case 'h':
        return "BINGET";
    case 'j':
        return "LONG_BINGET";
    case 'p':
        return "PUT";
    case 'g':
        return "GET";
    case 'I':
        return "INT";
    case 'L':
        return "LONG";
    case 'F':
        return "FLOAT";
    case 'S':
        return "STRING";
    case 'V':
        return "UNICODE";
    case 'i':
        return "INST";
    case 'o':
        return "OBJ";
    case 0x82:
    case 0x83:
    case 0x84:
        return "EXT";
    case 0x97:
        return "NEXT_BUFFER";
    case 0x98:
        return "READONLY_BUFFER";
    default:
        return NULL;
    }
}

static pc_status vm_error(vm *m, pc_status status, const char *what)
{
    const char *name = op_name(m->op);
    return pc_error_set(status, "%s: offset %zu: %s %s", m->origin, m->op_pos,
                        name ? name : "opcode", what);
}

static pc_status vm_nomem(vm *m)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory unpickling (%zu bytes)", m->origin,
                        m->size);
}

/* n bytes of argument at the current position. */
static pc_status take(vm *m, size_t n, const unsigned char **out)
{
    if (n > m->size - m->pos) {
        const char *name = op_name(m->op);
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: offset %zu: %s needs %zu bytes but the pickle ends after %zu: "
                            "truncated pickle",
                            m->origin, m->op_pos, name ? name : "opcode", n, m->size - m->pos);
    }
    *out = m->data + m->pos;
    m->pos += n;
    return PC_OK;
}

static pc_pk_value *node(vm *m, pc_pk_kind kind)
{
    pc_pk_value *v = arena_alloc(m->pk, sizeof *v);
    if (v) {
        memset(v, 0, sizeof *v);
        v->kind = kind;
    }
    return v;
}

static pc_status push(vm *m, pc_pk_value *v)
{
    if (!v)
        return vm_nomem(m);
    if (m->depth == m->stack_cap) {
        size_t cap = m->stack_cap ? 2 * m->stack_cap : 64;
        pc_pk_value **ns = realloc(m->stack, cap * sizeof *ns);
        if (!ns)
            return vm_nomem(m);
        m->stack = ns;
        m->stack_cap = cap;
    }
    m->stack[m->depth++] = v;
    return PC_OK;
}

/* The top of the stack above the innermost mark, or the whole top n when n > 0. */
static pc_status need(vm *m, size_t n)
{
    size_t floor = m->nmarks ? m->marks[m->nmarks - 1] : 0;
    if (m->depth - floor < n)
        return vm_error(m, PC_ERR_FORMAT, "pops more items than the stack holds: malformed pickle");
    return PC_OK;
}

static pc_pk_value *pop(vm *m)
{
    return m->stack[--m->depth];
}

/* Pops the innermost mark: the items above it start at stack[*start]. */
static pc_status pop_mark(vm *m, size_t *start)
{
    if (m->nmarks == 0)
        return vm_error(m, PC_ERR_FORMAT, "without a MARK before it: malformed pickle");
    *start = m->marks[--m->nmarks];
    return PC_OK;
}

/* A new sequence node holding stack[start..depth), which it pops. */
static pc_status collect(vm *m, pc_pk_kind kind, size_t start)
{
    size_t n = m->depth - start;
    pc_pk_value *v = node(m, kind);
    pc_pk_value **items = n ? arena_alloc(m->pk, n * sizeof *items) : NULL;
    if (!v || (n && !items))
        return vm_nomem(m);
    if (n)
        memcpy(items, m->stack + start, n * sizeof *items);
    v->u.seq.items = items;
    v->u.seq.count = v->u.seq.cap = n;
    m->depth = start;
    return push(m, v);
}

/* Appends n items to a list, dict or set node (growing its array in the arena). */
static pc_status seq_extend(vm *m, pc_pk_value *seq, pc_pk_value *const *items, size_t n)
{
    if (n > seq->u.seq.cap - seq->u.seq.count) {
        size_t cap = seq->u.seq.cap ? seq->u.seq.cap : 4;
        while (n > cap - seq->u.seq.count)
            cap *= 2;
        pc_pk_value **na = arena_alloc(m->pk, cap * sizeof *na);
        if (!na)
            return vm_nomem(m);
        if (seq->u.seq.count)
            memcpy(na, seq->u.seq.items, seq->u.seq.count * sizeof *na);
        seq->u.seq.items = na;
        seq->u.seq.cap = cap;
    }
    if (n)
        memcpy(seq->u.seq.items + seq->u.seq.count, items, n * sizeof *items);
    seq->u.seq.count += n;
    return PC_OK;
}

/* The container that APPEND(S)/SETITEM(S)/ADDITEMS add to: the list/dict/set itself, or the
 * item record of a call node (created on first use). */
static pc_status target_of(vm *m, pc_pk_value *obj, pc_pk_kind want, pc_pk_value **out)
{
    if (obj->kind == want) {
        *out = obj;
        return PC_OK;
    }
    if (obj->kind == PC_PK_CALL && want != PC_PK_SET) {
        if (!obj->u.call.items) {
            obj->u.call.items = node(m, want);
            if (!obj->u.call.items)
                return vm_nomem(m);
        } else if (obj->u.call.items->kind != want) {
            return vm_error(m, PC_ERR_FORMAT, "mixes list and dict items on one object");
        }
        *out = obj->u.call.items;
        return PC_OK;
    }
    char desc[96];
    pc_pk_describe(obj, desc, sizeof desc);
    char what[160];
    snprintf(what, sizeof what, "on %s: malformed pickle", desc);
    return vm_error(m, PC_ERR_FORMAT, what);
}

static pc_status memo_put(vm *m, uint64_t index)
{
    if (m->depth == 0)
        return vm_error(m, PC_ERR_FORMAT, "with an empty stack: malformed pickle");
    /* A pickler numbers memo entries 0, 1, 2, ...; an index beyond the pickle's length
     * cannot come from one and would only make us allocate. */
    if (index >= m->size)
        return vm_error(m, PC_ERR_FORMAT, "memo index is out of range: malformed pickle");
    if (index >= m->memo_cap) {
        size_t cap = m->memo_cap ? m->memo_cap : 32;
        while (cap <= index)
            cap *= 2;
        pc_pk_value **nm = realloc(m->memo, cap * sizeof *nm);
        if (!nm)
            return vm_nomem(m);
        memset(nm + m->memo_cap, 0, (cap - m->memo_cap) * sizeof *nm);
        m->memo = nm;
        m->memo_cap = cap;
    }
    if (!m->memo[index])
        m->memo_count++;
    m->memo[index] = m->stack[m->depth - 1];
    return PC_OK;
}

static pc_status memo_get(vm *m, uint64_t index)
{
    if (index >= m->memo_cap || !m->memo[index]) {
        char what[96];
        snprintf(what, sizeof what, "of memo entry %llu, which was never stored: malformed pickle",
                 (unsigned long long)index);
        return vm_error(m, PC_ERR_FORMAT, what);
    }
    return push(m, m->memo[index]);
}

static pc_status push_text(vm *m, pc_pk_kind kind, const unsigned char *p, size_t n)
{
    pc_pk_value *v = node(m, kind);
    if (v) {
        v->u.text.data = (const char *)p;
        v->u.text.len = n;
    }
    return push(m, v);
}

/* Reads a length of width bytes (little-endian) and then that many bytes. */
static pc_status take_counted(vm *m, size_t width, const unsigned char **out, size_t *len)
{
    const unsigned char *p = NULL;
    pc_status st = take(m, width, &p);
    if (st != PC_OK)
        return st;
    uint64_t n = 0;
    for (size_t i = 0; i < width; i++)
        n |= (uint64_t)p[i] << (8 * i);
    if (width == 4 && (m->op == 'T') && (n & 0x80000000u))
        return vm_error(m, PC_ERR_FORMAT, "has a negative length: malformed pickle");
    if (n > m->size - m->pos) {
        char what[128];
        snprintf(what, sizeof what,
                 "claims %llu bytes but the pickle ends after %zu: truncated pickle",
                 (unsigned long long)n, m->size - m->pos);
        return vm_error(m, PC_ERR_FORMAT, what);
    }
    *out = m->data + m->pos;
    *len = (size_t)n;
    m->pos += (size_t)n;
    return PC_OK;
}

/* LONG1 / LONG4: little-endian two's complement of n bytes. */
static pc_status push_long(vm *m, const unsigned char *p, size_t n)
{
    pc_pk_value *v;
    if (n <= 8) {
        uint64_t u = 0;
        for (size_t i = 0; i < n; i++)
            u |= (uint64_t)p[i] << (8 * i);
        if (n > 0 && n < 8 && (p[n - 1] & 0x80))
            u |= ~(uint64_t)0 << (8 * n);
        v = node(m, PC_PK_INT);
        if (v)
            v->u.integer = (int64_t)u;
        return push(m, v);
    }
    /* Longer encodings still fit when the extra bytes only extend the sign. */
    unsigned char sign = (p[7] & 0x80) ? 0xFF : 0x00;
    bool fits = true;
    for (size_t i = 8; i < n; i++)
        fits = fits && p[i] == sign;
    if (fits)
        return push_long(m, p, 8);
    return push(m, node(m, PC_PK_BIGINT));
}

/* One newline-terminated line of GLOBAL. */
static pc_status take_line(vm *m, pc_pk_text *out)
{
    const unsigned char *start = m->data + m->pos;
    const unsigned char *nl = memchr(start, '\n', m->size - m->pos);
    if (!nl)
        return vm_error(m, PC_ERR_FORMAT, "has no end of line: truncated pickle");
    out->data = (const char *)start;
    out->len = (size_t)(nl - start);
    m->pos += out->len + 1;
    return PC_OK;
}

static pc_status push_call(vm *m, pc_pk_value *callable, pc_pk_value *args, pc_pk_value *kwargs)
{
    pc_pk_value *v = node(m, PC_PK_CALL);
    if (v) {
        v->u.call.callable = callable;
        v->u.call.args = args;
        v->u.call.kwargs = kwargs;
    }
    return push(m, v);
}

static pc_status step(vm *m, bool *stop)
{
    /* Initialised only to quiet -Wmaybe-uninitialized: every path sets them before use. */
    const unsigned char *p = NULL;
    size_t n = 0, start = 0;
    pc_pk_value *v, *a, *b;
    pc_status st;
    m->op_pos = m->pos;
    m->op = m->data[m->pos++];
    switch (m->op) {
    case 0x80: /* PROTO */
        if ((st = take(m, 1, &p)) != PC_OK)
            return st;
        if (p[0] > 5) {
            char what[64];
            snprintf(what, sizeof what, "%u is newer than pickle protocol 5", p[0]);
            return vm_error(m, PC_ERR_UNSUPPORTED, what);
        }
        return PC_OK;
    case 0x95: /* FRAME: a length prefix for buffering; the bytes follow in line */
        if ((st = take(m, 8, &p)) != PC_OK)
            return st;
        {
            uint64_t len = 0;
            for (int i = 0; i < 8; i++)
                len |= (uint64_t)p[i] << (8 * i);
            if (len > m->size - m->pos)
                return vm_error(m, PC_ERR_FORMAT,
                                "is longer than the rest of the pickle: "
                                "truncated pickle");
        }
        return PC_OK;
    case '.': /* STOP */
        if ((st = need(m, 1)) != PC_OK)
            return st;
        *stop = true;
        return PC_OK;
    case '(': /* MARK */
        if (m->nmarks == m->marks_cap) {
            size_t cap = m->marks_cap ? 2 * m->marks_cap : 16;
            size_t *nm = realloc(m->marks, cap * sizeof *nm);
            if (!nm)
                return vm_nomem(m);
            m->marks = nm;
            m->marks_cap = cap;
        }
        m->marks[m->nmarks++] = m->depth;
        return PC_OK;
    case '0': /* POP */
        if (m->nmarks && m->marks[m->nmarks - 1] == m->depth) {
            m->nmarks--; /* Python pops the mark object itself */
            return PC_OK;
        }
        if ((st = need(m, 1)) != PC_OK)
            return st;
        pop(m);
        return PC_OK;
    case '1': /* POP_MARK */
        if ((st = pop_mark(m, &start)) != PC_OK)
            return st;
        m->depth = start;
        return PC_OK;
    case '2': /* DUP */
        if ((st = need(m, 1)) != PC_OK)
            return st;
        return push(m, m->stack[m->depth - 1]);
    case 'N':
        return push(m, node(m, PC_PK_NONE));
    case 0x88: /* NEWTRUE */
    case 0x89: /* NEWFALSE */
        v = node(m, PC_PK_BOOL);
        if (v)
            v->u.boolean = m->op == 0x88;
        return push(m, v);
    case 'J': /* BININT: signed 32-bit */
        if ((st = take(m, 4, &p)) != PC_OK)
            return st;
        v = node(m, PC_PK_INT);
        if (v)
            v->u.integer = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                     (uint32_t)p[3] << 24);
        return push(m, v);
    case 'K': /* BININT1 */
        if ((st = take(m, 1, &p)) != PC_OK)
            return st;
        v = node(m, PC_PK_INT);
        if (v)
            v->u.integer = p[0];
        return push(m, v);
    case 'M': /* BININT2 */
        if ((st = take(m, 2, &p)) != PC_OK)
            return st;
        v = node(m, PC_PK_INT);
        if (v)
            v->u.integer = p[0] | p[1] << 8;
        return push(m, v);
    case 0x8a: /* LONG1 */
        if ((st = take_counted(m, 1, &p, &n)) != PC_OK)
            return st;
        return push_long(m, p, n);
    case 0x8b: /* LONG4 */
        if ((st = take_counted(m, 4, &p, &n)) != PC_OK)
            return st;
        return push_long(m, p, n);
    case 'G': /* BINFLOAT: big-endian binary64 */
        if ((st = take(m, 8, &p)) != PC_OK)
            return st;
        v = node(m, PC_PK_FLOAT);
        if (v) {
            uint64_t bits = 0;
            for (int i = 0; i < 8; i++)
                bits = bits << 8 | p[i];
            memcpy(&v->u.real, &bits, sizeof bits);
        }
        return push(m, v);
    case 'X': /* BINUNICODE */
        if ((st = take_counted(m, 4, &p, &n)) != PC_OK)
            return st;
        return push_text(m, PC_PK_STRING, p, n);
    case 0x8c: /* SHORT_BINUNICODE */
        if ((st = take_counted(m, 1, &p, &n)) != PC_OK)
            return st;
        return push_text(m, PC_PK_STRING, p, n);
    case 0x8d: /* BINUNICODE8 */
        if ((st = take_counted(m, 8, &p, &n)) != PC_OK)
            return st;
        return push_text(m, PC_PK_STRING, p, n);
    case 'T': /* BINSTRING */
    case 'B': /* BINBYTES */
        if ((st = take_counted(m, 4, &p, &n)) != PC_OK)
            return st;
        return push_text(m, PC_PK_BYTES, p, n);
    case 'U': /* SHORT_BINSTRING */
    case 'C': /* SHORT_BINBYTES */
        if ((st = take_counted(m, 1, &p, &n)) != PC_OK)
            return st;
        return push_text(m, PC_PK_BYTES, p, n);
    case 0x8e: /* BINBYTES8 */
    case 0x96: /* BYTEARRAY8 */
        if ((st = take_counted(m, 8, &p, &n)) != PC_OK)
            return st;
        return push_text(m, PC_PK_BYTES, p, n);
    case ')': /* EMPTY_TUPLE */
        return collect(m, PC_PK_TUPLE, m->depth);
    case 0x85: /* TUPLE1 */
    case 0x86: /* TUPLE2 */
    case 0x87: /* TUPLE3 */
        n = (size_t)(m->op - 0x84);
        if ((st = need(m, n)) != PC_OK)
            return st;
        return collect(m, PC_PK_TUPLE, m->depth - n);
    case 't': /* TUPLE */
        if ((st = pop_mark(m, &start)) != PC_OK)
            return st;
        return collect(m, PC_PK_TUPLE, start);
    case ']': /* EMPTY_LIST */
        return collect(m, PC_PK_LIST, m->depth);
    case 'l': /* LIST */
        if ((st = pop_mark(m, &start)) != PC_OK)
            return st;
        return collect(m, PC_PK_LIST, start);
    case '}': /* EMPTY_DICT */
        return collect(m, PC_PK_DICT, m->depth);
    case 'd': /* DICT */
        if ((st = pop_mark(m, &start)) != PC_OK)
            return st;
        if ((m->depth - start) % 2)
            return vm_error(m, PC_ERR_FORMAT, "has a key without a value: malformed pickle");
        return collect(m, PC_PK_DICT, start);
    case 0x8f: /* EMPTY_SET */
        return collect(m, PC_PK_SET, m->depth);
    case 0x91: /* FROZENSET */
        if ((st = pop_mark(m, &start)) != PC_OK)
            return st;
        return collect(m, PC_PK_SET, start);
    case 'a': /* APPEND */
        if ((st = need(m, 2)) != PC_OK)
            return st;
        if ((st = target_of(m, m->stack[m->depth - 2], PC_PK_LIST, &a)) != PC_OK)
            return st;
        if ((st = seq_extend(m, a, &m->stack[m->depth - 1], 1)) != PC_OK)
            return st;
        m->depth--;
        return PC_OK;
    case 's': /* SETITEM */
        if ((st = need(m, 3)) != PC_OK)
            return st;
        if ((st = target_of(m, m->stack[m->depth - 3], PC_PK_DICT, &a)) != PC_OK)
            return st;
        if ((st = seq_extend(m, a, &m->stack[m->depth - 2], 2)) != PC_OK)
            return st;
        m->depth -= 2;
        return PC_OK;
    case 'e':  /* APPENDS */
    case 'u':  /* SETITEMS */
    case 0x90: /* ADDITEMS */
        if ((st = pop_mark(m, &start)) != PC_OK)
            return st;
        if (start == 0 || (m->nmarks && m->marks[m->nmarks - 1] >= start))
            return vm_error(m, PC_ERR_FORMAT, "has no object below its MARK: malformed pickle");
        n = m->depth - start;
        if (m->op == 'u' && n % 2)
            return vm_error(m, PC_ERR_FORMAT, "has a key without a value: malformed pickle");
        st = target_of(m, m->stack[start - 1],
                       m->op == 'e'   ? PC_PK_LIST
                       : m->op == 'u' ? PC_PK_DICT
                                      : PC_PK_SET,
                       &a);
        if (st != PC_OK)
            return st;
        if ((st = seq_extend(m, a, m->stack + start, n)) != PC_OK)
            return st;
        m->depth = start;
        return PC_OK;
    case 'c': /* GLOBAL module\nname\n */
        v = node(m, PC_PK_GLOBAL);
        if (!v)
            return vm_nomem(m);
        if ((st = take_line(m, &v->u.global.module)) != PC_OK ||
            (st = take_line(m, &v->u.global.name)) != PC_OK)
            return st;
        return push(m, v);
    case 0x93: /* STACK_GLOBAL */
        if ((st = need(m, 2)) != PC_OK)
            return st;
        b = pop(m);
        a = pop(m);
        if (a->kind != PC_PK_STRING || b->kind != PC_PK_STRING)
            return vm_error(m, PC_ERR_FORMAT, "needs two strings: malformed pickle");
        v = node(m, PC_PK_GLOBAL);
        if (v) {
            v->u.global.module = a->u.text;
            v->u.global.name = b->u.text;
        }
        return push(m, v);
    case 'R':  /* REDUCE callable args */
    case 0x81: /* NEWOBJ cls args */
        if ((st = need(m, 2)) != PC_OK)
            return st;
        b = pop(m);
        a = pop(m);
        if (b->kind != PC_PK_TUPLE)
            return vm_error(m, PC_ERR_FORMAT, "needs a tuple of arguments: malformed pickle");
        return push_call(m, a, b, NULL);
    case 0x92: /* NEWOBJ_EX cls args kwargs */
        if ((st = need(m, 3)) != PC_OK)
            return st;
        v = pop(m);
        b = pop(m);
        a = pop(m);
        if (b->kind != PC_PK_TUPLE || v->kind != PC_PK_DICT)
            return vm_error(m, PC_ERR_FORMAT, "needs a tuple and a dict: malformed pickle");
        return push_call(m, a, b, v);
    case 'b': /* BUILD obj state */
        if ((st = need(m, 2)) != PC_OK)
            return st;
        b = pop(m);
        a = m->stack[m->depth - 1];
        if (a->kind == PC_PK_CALL)
            a->u.call.state = b;
        return PC_OK; /* state on anything else has no meaning for tensors: dropped */
    case 'Q':         /* BINPERSID */
        if ((st = need(m, 1)) != PC_OK)
            return st;
        a = pop(m);
        v = node(m, PC_PK_PERSID);
        if (v)
            v->u.persid = a;
        return push(m, v);
    case 'q': /* BINPUT */
        if ((st = take(m, 1, &p)) != PC_OK)
            return st;
        return memo_put(m, p[0]);
    case 'r': /* LONG_BINPUT */
        if ((st = take(m, 4, &p)) != PC_OK)
            return st;
        return memo_put(m, (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                               (uint64_t)p[3] << 24);
    case 0x94: /* MEMOIZE */
        return memo_put(m, m->memo_count);
    case 'h': /* BINGET */
        if ((st = take(m, 1, &p)) != PC_OK)
            return st;
        return memo_get(m, p[0]);
    case 'j': /* LONG_BINGET */
        if ((st = take(m, 4, &p)) != PC_OK)
            return st;
        return memo_get(m, (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
                               (uint64_t)p[3] << 24);
    default: {
        const char *name = op_name(m->op);
        if (name)
            return vm_error(m, PC_ERR_UNSUPPORTED,
                            "is not supported (torch.save writes pickle protocol 2)");
        char c = (m->op >= 0x20 && m->op < 0x7f) ? (char)m->op : '?';
        return pc_error_set(PC_ERR_FORMAT,
                            "%s: offset %zu: unknown pickle opcode 0x%02x ('%c'): not a pickle or "
                            "a damaged one",
                            m->origin, m->op_pos, m->op, c);
    }
    }
}

pc_status pc_pickle_load(pc_pickle **out, pc_pk_value **result, const void *data, size_t size,
                         const char *origin)
{
    if (!origin)
        origin = "pickle";
    if (size > PC_PICKLE_MAX_BYTES)
        return pc_error_set(PC_ERR_RANGE,
                            "%s: a pickle of %zu bytes is larger than precheck reads (%zu); a "
                            "tensor's is a few hundred bytes",
                            origin, size, PC_PICKLE_MAX_BYTES);
    pc_pickle *pk = calloc(1, sizeof *pk);
    if (!pk)
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", origin);
    /* Each byte makes at most one node (48 bytes) and adds at most one item pointer to an
     * array that may have doubled twice: under 128 bytes of arena per byte of pickle. */
    pc_arena_init(&pk->arena, ARENA_CHUNK, 128 * size + 4 * (size_t)ARENA_CHUNK);
    vm m = {.pk = pk, .data = data, .size = size, .origin = origin};
    pc_status st = PC_OK;
    bool stop = false;
    while (st == PC_OK && !stop) {
        if (m.pos >= m.size) {
            st = pc_error_set(PC_ERR_FORMAT,
                              "%s: the pickle ends at offset %zu without STOP: truncated pickle",
                              origin, m.size);
            break;
        }
        st = step(&m, &stop);
    }
    if (st == PC_OK) {
        *result = m.stack[m.depth - 1];
        *out = pk;
    } else {
        pc_pickle_free(pk);
    }
    free(m.stack);
    free(m.marks);
    free(m.memo);
    return st;
}

/* ---------------------------------------------------------------------------------------- */
/* Reading the tree                                                                         */
/* ---------------------------------------------------------------------------------------- */

bool pc_pk_text_is(const pc_pk_text *text, const char *s)
{
    size_t n = strlen(s);
    return text->len == n && memcmp(text->data, s, n) == 0;
}

bool pc_pk_is_global(const pc_pk_value *v, const char *module, const char *name)
{
    return v && v->kind == PC_PK_GLOBAL && pc_pk_text_is(&v->u.global.module, module) &&
           pc_pk_text_is(&v->u.global.name, name);
}

/* Copies text into dst for a message, replacing what is not printable ASCII. */
static void printable(char *dst, size_t size, const pc_pk_text *t)
{
    size_t k = 0;
    for (size_t i = 0; i < t->len && k + 1 < size; i++) {
        unsigned char c = (unsigned char)t->data[i];
        dst[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (size)
        dst[k] = '\0';
}

void pc_pk_describe(const pc_pk_value *v, char *dst, size_t size)
{
    static const char *const names[] = {
        [PC_PK_NONE] = "None",      [PC_PK_BOOL] = "a bool",
        [PC_PK_INT] = "an int",     [PC_PK_BIGINT] = "a big int",
        [PC_PK_FLOAT] = "a float",  [PC_PK_STRING] = "a str",
        [PC_PK_BYTES] = "bytes",    [PC_PK_TUPLE] = "a tuple",
        [PC_PK_LIST] = "a list",    [PC_PK_DICT] = "a dict",
        [PC_PK_SET] = "a set",      [PC_PK_GLOBAL] = "the global",
        [PC_PK_CALL] = "an object", [PC_PK_PERSID] = "a persistent id",
    };
    const pc_pk_value *g = v->kind == PC_PK_CALL ? v->u.call.callable : v;
    if (g->kind == PC_PK_GLOBAL) {
        char mod[64], name[64];
        printable(mod, sizeof mod, &g->u.global.module);
        printable(name, sizeof name, &g->u.global.name);
        snprintf(dst, size, "%s %s.%s", v->kind == PC_PK_CALL ? "a call of" : "the global", mod,
                 name);
        return;
    }
    snprintf(dst, size, "%s", names[v->kind]);
}
