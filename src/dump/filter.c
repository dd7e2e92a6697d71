#include "precheck/dump/filter.h"

#include "precheck/core/hashmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- -filter_api (msprobe's preprocess_forward_content) ---- */

static size_t base_len_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name); /* rsplit('.', 1)[0] */
}

pc_status pc_dump_filter_dedup(const pc_dump *dump, bool *keep, size_t *kept_count)
{
    size_t n = dump->api_count;
    if (kept_count)
        *kept_count = 0;
    /* Groups by base name (the full name without its last ".<segment>": keys borrowed from the
     * dump, with a length), numbered as met; for each group its first and last kept api, and
     * for each kept api the next kept api of the same base, so that the variants are a chain. */
    pc_strmap groups = PC_STRMAP_INIT;
    size_t *next_kept = malloc((n ? n : 1) * sizeof *next_kept);
    size_t *first_kept = malloc((n ? n : 1) * sizeof *first_kept);
    size_t *last_kept = malloc((n ? n : 1) * sizeof *last_kept);
    if (!pc_strmap_reserve(&groups, n) || !next_kept || !first_kept || !last_kept) {
        pc_strmap_free(&groups);
        free(next_kept);
        free(first_kept);
        free(last_kept);
        return pc_error_set(PC_ERR_NOMEM, "-filter_api: out of memory");
    }
    pc_status st = PC_OK;
    size_t kept = 0, n_groups = 0;
    for (size_t i = 0; i < n; i++) {
        const pc_dump_api *api = &dump->apis[i];
        st = pc_dump_check_name(api->full_name);
        if (st)
            break;
        if (api->forward.filter_error) {
            st = pc_error_set(PC_ERR_FORMAT, "%s", api->forward.filter_error);
            break;
        }
        bool added;
        pc_strmap_entry *group =
            pc_strmap_put(&groups, api->full_name, base_len_of(api->full_name), &added);
        if (!group) { /* reserved for n groups: not expected */
            st = pc_error_set(PC_ERR_NOMEM, "-filter_api: out of memory");
            break;
        }
        bool is_new = true;
        if (added) {
            group->value.index = n_groups;
            first_kept[n_groups++] = i;
        } else {
            size_t g = group->value.index;
            for (size_t j = first_kept[g]; j != SIZE_MAX; j = next_kept[j]) {
                const uint64_t *a = dump->apis[j].forward.signature;
                const uint64_t *b = api->forward.signature;
                if (a[0] == b[0] && a[1] == b[1]) {
                    is_new = false;
                    break;
                }
            }
            if (is_new)
                next_kept[last_kept[g]] = i;
        }
        keep[i] = is_new;
        if (is_new) {
            next_kept[i] = SIZE_MAX;
            last_kept[group->value.index] = i;
            kept++;
        }
    }
    pc_strmap_free(&groups);
    free(next_kept);
    free(first_kept);
    free(last_kept);
    if (st == PC_OK && kept_count)
        *kept_count = kept;
    return st;
}

/* ---- white and black lists ---- */

const char *const pc_api_builtin_black_list[] = {
    "to",
    "empty",
    "empty_like",
    "empty_strided",
    "new_empty",
    "new_empty_strided",
    "empty_with_format",
};
const size_t pc_api_builtin_black_list_count =
    sizeof pc_api_builtin_black_list / sizeof pc_api_builtin_black_list[0];

static bool in_names(const char *const *names, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return true;
    return false;
}

bool pc_api_lists_skip(const pc_api_lists *lists, const char *api_name)
{
    if (!api_name)
        return false;
    if (in_names(pc_api_builtin_black_list, pc_api_builtin_black_list_count, api_name))
        return true;
    if (!lists)
        return false;
    if (in_names(lists->black, lists->black_count, api_name))
        return true;
    return lists->white_count > 0 && !in_names(lists->white, lists->white_count, api_name);
}

int pc_api_lists_skip_message(const char *api_name, char *buf, size_t size)
{
    return snprintf(buf, size, "API %s in black list or not in white list. SKIP.",
                    api_name ? api_name : "None");
}
