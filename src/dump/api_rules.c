/* msprobe's per-API rules table (api_rules.h, api_rules.def; docs/msprobe-contract.md#replay). */
#include <stddef.h>
#include <string.h>

#include "precheck/dump/api_rules.h"

static const pc_api_rule rules[] = {
#define R(name, grad_index, first_only, returns_none, no_backward, inputs)                         \
    {name, grad_index, first_only, returns_none, no_backward, inputs},
#define T(type, refused, overflow_refused, executed, no_bench)
#include "dump/api_rules.def"
#undef T
#undef R
};

static const pc_api_type_rule type_rules[] = {
#define R(name, grad_index, first_only, returns_none, no_backward, inputs)
#define T(type, refused, overflow_refused, executed, no_bench)                                     \
    {type, refused, overflow_refused, executed, no_bench},
#include "dump/api_rules.def"
#undef T
#undef R
};

static const pc_api_rule defaults = {NULL, -1, false, false, NULL, 0u};

const pc_api_rule *pc_api_rule_of(const char *api_name)
{
    for (size_t i = 0; api_name && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].api_name, api_name) == 0)
            return &rules[i];
    return &defaults;
}

static const pc_api_type_rule type_defaults = {NULL, false, false, false, false};

const pc_api_type_rule *pc_api_type_rule_of(const char *api_type)
{
    for (size_t i = 0; api_type && i < sizeof type_rules / sizeof type_rules[0]; i++)
        if (strcmp(type_rules[i].api_type, api_type) == 0)
            return &type_rules[i];
    return &type_defaults;
}

bool pc_api_is_dropout(const char *full_name)
{
    return full_name && strstr(full_name, "dropout") != NULL;
}
