/*
 * A recursive-descent parser for operator schema strings. The grammar is small enough that a
 * cursor over the text with one-character look-ahead reads it directly; every error names the
 * 1-based column where the parser stood and what it expected there.
 */
#include "precheck/ops/schema.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *text;
    size_t pos;
} cursor;

static const struct {
    const char *spelling;
    pc_arg_type type;
} type_names[] = {
    {"Tensor", PC_ARG_TENSOR},
    {"int", PC_ARG_INT},
    {"SymInt", PC_ARG_INT},
    {"float", PC_ARG_FLOAT},
    {"bool", PC_ARG_BOOL},
    {"str", PC_ARG_STR},
    {"Scalar", PC_ARG_SCALAR},
    {"ScalarType", PC_ARG_SCALAR_TYPE},
    {"Layout", PC_ARG_LAYOUT},
    {"Device", PC_ARG_DEVICE},
    {"MemoryFormat", PC_ARG_MEMORY_FORMAT},
    {"Generator", PC_ARG_GENERATOR},
    {"Dimname", PC_ARG_DIMNAME},
    {"Index", PC_ARG_INDEX},
};

const char *pc_arg_type_name(pc_arg_type type)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].type == type)
            return type_names[i].spelling;
    return "?";
}

static pc_status fail(const cursor *c, const char *expected)
{
    char near[16] = "end of text";
    if (c->text[c->pos]) {
        size_t n = strcspn(c->text + c->pos, "");
        if (n > 10)
            n = 10;
        near[0] = '\'';
        memcpy(near + 1, c->text + c->pos, n);
        near[n + 1] = '\'';
        near[n + 2] = '\0';
    }
    return pc_error_set(PC_ERR_FORMAT, "schema \"%s\": column %zu: expected %s, found %s", c->text,
                        c->pos + 1, expected, near);
}

static void skip_space(cursor *c)
{
    while (c->text[c->pos] == ' ' || c->text[c->pos] == '\t' || c->text[c->pos] == '\n')
        c->pos++;
}

static bool accept(cursor *c, char ch)
{
    skip_space(c);
    if (c->text[c->pos] != ch)
        return false;
    c->pos++;
    return true;
}

static pc_status expect(cursor *c, char ch, const char *what)
{
    return accept(c, ch) ? PC_OK : fail(c, what);
}

static bool ident_start(char ch)
{
    return isalpha((unsigned char)ch) || ch == '_';
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* Reads an identifier into dst (PC_SCHEMA_NAME_MAX bytes). */
static pc_status read_ident(cursor *c, char *dst, const char *what)
{
    skip_space(c);
    size_t start = c->pos;
    if (!ident_start(c->text[c->pos]))
        return fail(c, what);
    while (ident_char(c->text[c->pos]))
        c->pos++;
    size_t n = c->pos - start;
    if (n >= PC_SCHEMA_NAME_MAX)
        return pc_error_set(PC_ERR_RANGE, "schema \"%s\": column %zu: name longer than %d bytes",
                            c->text, start + 1, PC_SCHEMA_NAME_MAX - 1);
    memcpy(dst, c->text + start, n);
    dst[n] = '\0';
    return PC_OK;
}

static bool peek_ident(cursor *c, const char *word)
{
    skip_space(c);
    size_t n = strlen(word);
    return strncmp(c->text + c->pos, word, n) == 0 && !ident_char(c->text[c->pos + n]);
}

/* Type: Name ['(' alias ['!'] ')'] ['?'] ['[' [N] ']' ['?']] with Name?[] for lists of
 * optionals. Fills the type fields of an argument (also used for returns). */
typedef struct type_info {
    pc_arg_type type;
    bool optional, is_list, elem_optional, mutates, or_str;
    int list_size;
    char alias;
} type_info;

static pc_status read_alias(cursor *c, type_info *t)
{
    if (!accept(c, '('))
        return PC_OK;
    skip_space(c);
    if (!islower((unsigned char)c->text[c->pos]))
        return fail(c, "an alias set letter");
    t->alias = c->text[c->pos++];
    /* torch writes compound sets like (a|b) and wildcards (*) only in ops we do not have */
    if (accept(c, '!'))
        t->mutates = true;
    return expect(c, ')', "')' closing the alias annotation");
}

static pc_status read_type_name(cursor *c, pc_arg_type *type)
{
    char name[PC_SCHEMA_NAME_MAX];
    pc_status st = read_ident(c, name, "a type");
    if (st)
        return st;
    size_t i;
    for (i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(name, type_names[i].spelling) == 0)
            break;
    if (i == sizeof type_names / sizeof type_names[0]) {
        c->pos -= strlen(name);
        return fail(c, "a known type (Tensor, int, float, bool, str, Scalar, ...)");
    }
    *type = type_names[i].type;
    return PC_OK;
}

/* union_ok: `str|Type` is allowed (arguments, not returns) */
static pc_status read_type(cursor *c, type_info *t, bool union_ok)
{
    memset(t, 0, sizeof *t);
    pc_status st = read_type_name(c, &t->type);
    if (st)
        return st;
    if (union_ok && t->type == PC_ARG_STR && accept(c, '|')) {
        t->or_str = true;
        if ((st = read_type_name(c, &t->type)))
            return st;
        if (t->type == PC_ARG_STR) {
            c->pos -= 3;
            return fail(c, "a type other than str after 'str|'");
        }
    }
    if ((st = read_alias(c, t)))
        return st;
    if (accept(c, '?'))
        t->optional = true;
    if (accept(c, '[')) {
        t->is_list = true;
        t->elem_optional = t->optional;
        t->optional = false;
        skip_space(c);
        if (isdigit((unsigned char)c->text[c->pos])) {
            t->list_size = (int)strtol(c->text + c->pos, NULL, 10);
            while (isdigit((unsigned char)c->text[c->pos]))
                c->pos++;
        }
        if ((st = expect(c, ']', "']' closing the list type")))
            return st;
        if ((st = read_alias(c, t)))
            return st;
        if (accept(c, '?'))
            t->optional = true;
    }
    return PC_OK;
}

/* A number as torch writes defaults: 1, -1, 1e-05, 0.5, inf, -inf, nan. */
static pc_status read_number(cursor *c, double *value, bool *is_float, int64_t *ivalue)
{
    skip_space(c);
    const char *s = c->text + c->pos;
    bool neg = *s == '-';
    const char *body = neg ? s + 1 : s;
    if (strncmp(body, "inf", 3) == 0 && !ident_char(body[3])) {
        *value = neg ? -HUGE_VAL : HUGE_VAL;
        *is_float = true;
        c->pos += (size_t)(body + 3 - s);
        return PC_OK;
    }
    if (strncmp(body, "nan", 3) == 0 && !ident_char(body[3])) {
        *value = (double)NAN;
        *is_float = true;
        c->pos += (size_t)(body + 3 - s);
        return PC_OK;
    }
    if (!isdigit((unsigned char)*body))
        return fail(c, "a number");
    size_t n = strspn(body, "0123456789");
    *is_float = body[n] == '.' || body[n] == 'e' || body[n] == 'E';
    char *end;
    errno = 0;
    if (*is_float) {
        *value = strtod(s, &end);
    } else {
        long long v = strtoll(s, &end, 10);
        if (errno == ERANGE)
            return fail(c, "an integer that fits in 64 bits");
        *ivalue = v;
        *value = (double)v;
    }
    c->pos += (size_t)(end - s);
    return PC_OK;
}

static pc_status read_default(cursor *c, pc_schema_default *d)
{
    memset(d, 0, sizeof *d);
    skip_space(c);
    char ch = c->text[c->pos];
    pc_status st;
    if (peek_ident(c, "None")) {
        c->pos += 4;
        d->kind = PC_DEFAULT_NULL;
        return PC_OK;
    }
    if (peek_ident(c, "True") || peek_ident(c, "False")) {
        d->kind = PC_DEFAULT_BOOL;
        d->b = c->text[c->pos] == 'T';
        c->pos += d->b ? 4 : 5;
        return PC_OK;
    }
    if (ch == '\'' || ch == '"') {
        size_t start = ++c->pos;
        while (c->text[c->pos] && c->text[c->pos] != ch)
            c->pos++;
        if (!c->text[c->pos])
            return fail(c, "the closing quote of a string default");
        size_t n = c->pos - start;
        if (n >= PC_SCHEMA_NAME_MAX)
            return pc_error_set(PC_ERR_RANGE,
                                "schema \"%s\": column %zu: string default longer "
                                "than %d bytes",
                                c->text, start, PC_SCHEMA_NAME_MAX - 1);
        memcpy(d->text, c->text + start, n);
        d->text[n] = '\0';
        c->pos++;
        d->kind = PC_DEFAULT_STR;
        return PC_OK;
    }
    if (ch == '[') {
        c->pos++;
        d->kind = PC_DEFAULT_LIST;
        if (accept(c, ']'))
            return PC_OK;
        do {
            if (d->list_len == PC_SCHEMA_LIST_MAX)
                return pc_error_set(PC_ERR_RANGE,
                                    "schema \"%s\": column %zu: list default with "
                                    "more than %d elements",
                                    c->text, c->pos + 1, PC_SCHEMA_LIST_MAX);
            bool is_float = false;
            int64_t iv = 0;
            if ((st = read_number(c, &d->list[d->list_len], &is_float, &iv)))
                return st;
            d->list_is_float |= is_float;
            d->list_len++;
        } while (accept(c, ','));
        return expect(c, ']', "',' or ']' in a list default");
    }
    if (ident_start(ch) && !peek_ident(c, "inf") && !peek_ident(c, "nan")) {
        d->kind = PC_DEFAULT_IDENT;
        return read_ident(c, d->text, "a default value");
    }
    if (!isdigit((unsigned char)ch) && ch != '-' && !peek_ident(c, "inf") && !peek_ident(c, "nan"))
        return fail(c, "a default value (None, True, False, a number, a string or a list)");
    bool is_float = false;
    if ((st = read_number(c, &d->f, &is_float, &d->i)))
        return st;
    d->kind = is_float ? PC_DEFAULT_FLOAT : PC_DEFAULT_INT;
    return PC_OK;
}

static pc_status read_args(cursor *c, pc_schema *s)
{
    pc_status st;
    bool kwarg_only = false;
    s->npositional = 0;
    if (accept(c, ')'))
        return PC_OK;
    do {
        if (accept(c, '*')) {
            if (kwarg_only)
                return fail(c, "an argument (only one '*' is allowed)");
            kwarg_only = true;
            continue;
        }
        if (s->nargs == PC_SCHEMA_MAX_ARGS)
            return pc_error_set(PC_ERR_RANGE, "schema \"%s\": more than %d arguments", c->text,
                                PC_SCHEMA_MAX_ARGS);
        pc_schema_arg *a = &s->args[s->nargs];
        type_info t;
        if ((st = read_type(c, &t, true)))
            return st;
        a->type = t.type;
        a->or_str = t.or_str;
        a->optional = t.optional;
        a->is_list = t.is_list;
        a->list_size = t.list_size;
        a->elem_optional = t.elem_optional;
        a->mutates = t.mutates;
        a->alias = t.alias;
        a->kwarg_only = kwarg_only;
        if ((st = read_ident(c, a->name, "an argument name")))
            return st;
        if (pc_schema_find_arg(s, a->name) >= 0) {
            c->pos -= strlen(a->name);
            return fail(c, "an argument name not used before");
        }
        if (accept(c, '|')) { /* Type name|Type2 name2: a second keyword name */
            if ((st = read_type_name(c, &a->alt_type)))
                return st;
            if ((st = read_ident(c, a->alt_name, "an argument name after the type")))
                return st;
            if (pc_schema_find_arg(s, a->alt_name) >= 0 || strcmp(a->alt_name, a->name) == 0) {
                c->pos -= strlen(a->alt_name);
                return fail(c, "an argument name not used before");
            }
        }
        if (accept(c, '=') && (st = read_default(c, &a->def)))
            return st;
        if (a->def.kind == PC_DEFAULT_NULL && !a->optional) {
            return pc_error_set(PC_ERR_FORMAT,
                                "schema \"%s\": argument '%s' defaults to None "
                                "but its type has no '?'",
                                c->text, a->name);
        }
        s->nargs++;
        if (!kwarg_only)
            s->npositional++;
    } while (accept(c, ','));
    return expect(c, ')', "',' or ')' after an argument");
}

static pc_status read_one_return(cursor *c, pc_schema *s)
{
    if (s->nreturns == PC_SCHEMA_MAX_RETURNS)
        return pc_error_set(PC_ERR_RANGE, "schema \"%s\": more than %d returns", c->text,
                            PC_SCHEMA_MAX_RETURNS);
    pc_schema_return *r = &s->returns[s->nreturns];
    type_info t;
    pc_status st = read_type(c, &t, false);
    if (st)
        return st;
    r->type = t.type;
    r->optional = t.optional;
    r->is_list = t.is_list;
    r->alias = t.alias;
    skip_space(c);
    if (ident_start(c->text[c->pos]) && (st = read_ident(c, r->name, "a return name")))
        return st;
    s->nreturns++;
    return PC_OK;
}

static pc_status read_returns(cursor *c, pc_schema *s)
{
    pc_status st;
    if (!accept(c, '('))
        return read_one_return(c, s);
    if (accept(c, ')'))
        return PC_OK;
    do {
        if ((st = read_one_return(c, s)))
            return st;
    } while (accept(c, ','));
    return expect(c, ')', "',' or ')' in the returns");
}

pc_status pc_schema_parse(const char *text, pc_schema *out)
{
    if (!text)
        return pc_error_set(PC_ERR_INVALID, "schema text is NULL");
    pc_schema s;
    memset(&s, 0, sizeof s);
    cursor c = {text, 0};
    pc_status st = read_ident(&c, s.name, "an operator name");
    if (st)
        return st;
    if (c.text[c.pos] == '.') {
        c.pos++;
        if ((st = read_ident(&c, s.overload, "an overload name after '.'")))
            return st;
    }
    if ((st = expect(&c, '(', "'(' after the operator name")))
        return st;
    if ((st = read_args(&c, &s)))
        return st;
    skip_space(&c);
    if (strncmp(c.text + c.pos, "->", 2) != 0)
        return fail(&c, "'->' before the returns");
    c.pos += 2;
    if ((st = read_returns(&c, &s)))
        return st;
    skip_space(&c);
    if (c.text[c.pos])
        return fail(&c, "the end of the schema");
    *out = s;
    return PC_OK;
}

int pc_schema_find_arg(const pc_schema *schema, const char *name)
{
    for (int i = 0; i < schema->nargs; i++)
        if (strcmp(schema->args[i].name, name) == 0 ||
            (schema->args[i].alt_name[0] && strcmp(schema->args[i].alt_name, name) == 0))
            return i;
    return -1;
}
