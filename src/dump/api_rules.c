/* msprobe's per-API rules table (api_rules.h, api_rules.def; docs/msprobe-contract.md#replay). */
#include <stddef.h>
#include <string.h>

#include "precheck/dump/api_rules.h"

static const pc_api_rule rules[] = {
#define R(name, grad_index, first_only, returns_none, no_backward, inputs)                         \
    {name, grad_index, first_only, returns_none, no_backward, inputs},
#include "dump/api_rules.def"
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
