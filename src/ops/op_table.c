/*
 * The op table and the API-name table, both generated from the family definition files that
 * op_list.h includes: the enum of ids and the array from their X rows, the name table from their
 * N rows. A static_assert ties the array's length to the id count, so a row cannot be
 * half-added, and an N row naming no op id does not compile.
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
#define X(id, schema, exact, fwd, bwd, param, wrap) PC_OP_##id,
#define N(api_type, api_name, id, form)
#include "ops/op_list.h"
#undef X
#undef N
    PC_OP_COUNT
} pc_op_id;

static pc_schema op_schemas[PC_OP_COUNT];

static pc_op op_table[] = {
#define X(id, schema, exact, fwd, bwd, param, wrap)                                                \
    [PC_OP_##id] = {NULL, schema, exact, fwd, bwd, param, wrap, &op_schemas[PC_OP_##id]},
#define N(api_type, api_name, id, form)
#include "ops/op_list.h"
#undef X
#undef N
};
static_assert(sizeof op_table / sizeof op_table[0] == PC_OP_COUNT, "one row per op id");

#define OP(id) (&op_table[PC_OP_##id])

/* Dump names -> ops. Tensor.x passes self first; SWAPPED exchanges the first two positional
 * arguments (reflected dunders: other OP self; Tensor.where: self is the second argument). */
static const pc_api_name api_names[] = {
#define X(id, schema, exact, fwd, bwd, param, wrap)
#define N(api_type, api_name, id, form) {api_type, api_name, OP(id), form},
#include "ops/op_list.h"
#undef X
#undef N
};

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
    return sizeof api_names / sizeof api_names[0];
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
