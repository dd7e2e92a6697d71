/*
 * The op table and the API-name table, both generated from the family definition files that
 * op_list.h includes: the enum of ids and the array from their X rows, the name table from their
 * D and N rows (a D row's names derived from the op's schema name when the table is first used).
 * A static_assert ties the array's length to the id count, so a row cannot be half-added, and a
 * D or N row naming no op id does not compile.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/conv/conv_impl.h"
#include "ops/factory/factory_impl.h"
#include "ops/index/index_impl.h"
#include "ops/linalg/linalg_impl.h"
#include "ops/loss/loss_impl.h"
#include "ops/nn/nn_impl.h"
#include "ops/norm/norm_impl.h"
#include "ops/npu/npu_impl.h"
#include "ops/ops_impl.h"
#include "ops/pointwise/pointwise_impl.h"
#include "ops/reduce/reduce_impl.h"
#include "ops/shape/shape_impl.h"
#include "ops/sort/sort_impl.h"

typedef enum pc_op_id {
#define X(id, schema, exact, fwd, bwd, param, wrap, rules) PC_OP_##id,
#include "ops/op_list.h"
    PC_OP_COUNT
} pc_op_id;

static pc_schema op_schemas[PC_OP_COUNT];

static pc_op op_table[] = {
/* clang-format off */
#define X(id, schema, exact, fwd, bwd, param, wrap, rules)                                         \
    [PC_OP_##id] = {NULL, schema, exact, fwd, bwd, param, wrap, rules, {NULL},                     \
                    &op_schemas[PC_OP_##id]},
/* clang-format on */
#include "ops/op_list.h"
};
static_assert(sizeof op_table / sizeof op_table[0] == PC_OP_COUNT, "one row per op id");

/* The kinds of API name a D row derives from its op's schema name x, in the order the row
 * lists them (whatever the order of its flags). */
enum {
    FUNCTIONAL = 1u << 0,  /* Functional.x */
    FUNCTIONAL_ = 1u << 1, /* Functional.x_, in place */
    NPU = 1u << 2,         /* NPU.x */
    TORCH = 1u << 3,       /* Torch.x */
    TENSOR = 1u << 4,      /* Tensor.x (self first) */
    TENSOR_ = 1u << 5,     /* Tensor.x_, in place */
    TORCH_ = 1u << 6,      /* Torch.x_, in place (torch.exp_(x) is x.exp_()) */
};
static const struct {
    unsigned flag;
    const char *api_type;
    bool inplace;
} derived_kinds[] = {
    {FUNCTIONAL, "Functional", false}, {FUNCTIONAL_, "Functional", true}, {NPU, "NPU", false},
    {TORCH, "Torch", false},           {TENSOR, "Tensor", false},         {TENSOR_, "Tensor", true},
    {TORCH_, "Torch", true},
};
#define DERIVED_KINDS (sizeof derived_kinds / sizeof derived_kinds[0])
static_assert(DERIVED_KINDS == 7, "KINDS_COUNT counts seven kinds");

/* The name rows of the definition files in their order: an N row is one name as written, a D
 * row (api_type NULL) the names its kinds derive. */
typedef struct name_row {
    const char *api_type, *api_name;
    pc_op_id id;
    pc_api_form form;
    unsigned kinds;
} name_row;

static const name_row name_rows[] = {
#define N(api_type, api_name, id, form) {api_type, api_name, PC_OP_##id, form, 0},
#define D(id, kinds)                    {NULL, NULL, PC_OP_##id, PC_FORM_PLAIN, kinds},
#include "ops/op_list.h"
};
#define NAME_ROWS (sizeof name_rows / sizeof name_rows[0])

/* How many names the kinds of a D row make. */
#define KINDS_COUNT(k)                                                                             \
    (((k)&1) + ((k) >> 1 & 1) + ((k) >> 2 & 1) + ((k) >> 3 & 1) + ((k) >> 4 & 1) +                 \
     ((k) >> 5 & 1) + ((k) >> 6 & 1))
enum {
    API_NAME_COUNT = 0
#define N(api_type, api_name, id, form) +1
#define D(id, kinds)                    +KINDS_COUNT(kinds)
#include "ops/op_list.h"
};

/* Dump names -> ops, the name rows expanded in their order (table_init). Tensor.x passes self
 * first; SWAPPED exchanges the first two positional arguments (reflected dunders: other OP
 * self; Tensor.where: self is the second argument). */
static pc_api_name api_names[API_NAME_COUNT];

/* "x_" of every op x that has a derived in-place name; a schema text is longer than its name
 * and the "_", so the texts' sizes are room for all. */
static char inplace_names[0
#define X(id, schema, exact, fwd, bwd, param, wrap, rules) +sizeof(schema)
#include "ops/op_list.h"
];

static void names_init(void)
{
    const char *inplace_of[PC_OP_COUNT] = {0};
    char *free_room = inplace_names;
    size_t n = 0;
    for (size_t r = 0; r < NAME_ROWS; r++) {
        const name_row *row = &name_rows[r];
        const pc_op *op = &op_table[row->id];
        if (row->api_type) {
            api_names[n++] = (pc_api_name){row->api_type, row->api_name, op, row->form};
            continue;
        }
        for (size_t k = 0; k < DERIVED_KINDS; k++) {
            if (!(row->kinds & derived_kinds[k].flag))
                continue;
            const char *name = op->name;
            if (derived_kinds[k].inplace) {
                if (!inplace_of[row->id]) {
                    size_t len = strlen(op->name);
                    memcpy(free_room, op->name, len);
                    memcpy(free_room + len, "_", 2);
                    inplace_of[row->id] = free_room;
                    free_room += len + 2;
                }
                name = inplace_of[row->id];
            }
            api_names[n++] =
                (pc_api_name){derived_kinds[k].api_type, name, op,
                              derived_kinds[k].inplace ? PC_FORM_INPLACE : PC_FORM_PLAIN};
        }
    }
}

/* The composite ops' callees (U rows), set into their rows' calls. */
static const struct {
    pc_op_id op, callee;
} call_rows[] = {
#define U(id, callee) {PC_OP_##id, PC_OP_##callee},
#include "ops/op_list.h"
};

static void calls_init(void)
{
    for (size_t r = 0; r < sizeof call_rows / sizeof call_rows[0]; r++) {
        pc_op *op = &op_table[call_rows[r].op];
        int k = 0;
        while (k < PC_OP_MAX_CALLS && op->calls[k])
            k++;
        if (k == PC_OP_MAX_CALLS) {
            fprintf(stderr, "precheck: op table: %s calls more than %d ops\n", op->name,
                    PC_OP_MAX_CALLS);
            abort();
        }
        op->calls[k] = &op_table[call_rows[r].callee];
    }
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void table_init(void)
{
    for (size_t i = 0; i < PC_OP_COUNT; i++) {
        if (pc_schema_parse(op_table[i].schema_text, &op_schemas[i]) != PC_OK) {
            fprintf(stderr, "precheck: op table: schema of row %zu does not parse: %s\n", i,
                    pc_error_message());
            abort();
        }
        op_table[i].name = op_schemas[i].name;
    }
    names_init();
    calls_init();
}

static void ensure_init(void)
{
    pthread_once(&init_once, table_init);
}

size_t pc_op_count(void)
{
    return PC_OP_COUNT;
}

const pc_op *pc_op_at(size_t i)
{
    ensure_init();
    return i < PC_OP_COUNT ? &op_table[i] : NULL;
}

const pc_op *pc_op_find(const char *name)
{
    ensure_init();
    for (size_t i = 0; i < PC_OP_COUNT; i++)
        if (name && strcmp(op_table[i].name, name) == 0)
            return &op_table[i];
    return NULL;
}

size_t pc_api_name_count(void)
{
    return API_NAME_COUNT;
}

const pc_api_name *pc_api_name_at(size_t i)
{
    ensure_init();
    return i < pc_api_name_count() ? &api_names[i] : NULL;
}

const pc_api_name *pc_api_lookup(const char *api_type, const char *api_name)
{
    if (!api_type || !api_name)
        return NULL;
    ensure_init();
    for (size_t i = 0; i < pc_api_name_count(); i++)
        if (strcmp(api_names[i].api_type, api_type) == 0 &&
            strcmp(api_names[i].api_name, api_name) == 0)
            return &api_names[i];
    return NULL;
}

const pc_api_name *pc_api_lookup_next(const pc_api_name *prev)
{
    if (!prev || prev < api_names || prev >= api_names + pc_api_name_count())
        return NULL;
    for (const pc_api_name *n = prev + 1; n < api_names + pc_api_name_count(); n++)
        if (strcmp(n->api_type, prev->api_type) == 0 && strcmp(n->api_name, prev->api_name) == 0)
            return n;
    return NULL;
}

bool pc_api_supported(const char *api_type, const char *api_name, char *why, size_t size)
{
    if (pc_api_lookup(api_type, api_name))
        return true;
    if (why && size > 0)
        snprintf(why, size, "API %s.%s is not supported by precheck yet", api_type ? api_type : "?",
                 api_name ? api_name : "?");
    return false;
}

const char *pc_api_form_name(pc_api_form form)
{
    switch (form) {
    case PC_FORM_PLAIN:
        return "plain";
    case PC_FORM_SWAPPED:
        return "swapped";
    case PC_FORM_INPLACE:
        return "inplace";
    }
    return "?";
}
