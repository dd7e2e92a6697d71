/*
 * libFuzzer entry point: dump.json bytes -> api records (pc_dump_parse), the -filter_api
 * dedup and the shape check of every tensor argument over them, then free. Anything but a
 * clean status is a bug: the sanitizers report out-of-bounds reads, leaks and UB.
 *
 * Build by hand (the lead wires it into CMake):
 *   clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -Iinclude -Isrc fuzz/fuzz_dump.c src/io/json.c src/dump/\*.c src/core/\*.c -lm -o fuzz_dump
 *   ./fuzz_dump -max_total_time=60 corpus/   (corpus: e.g. the fixtures' dump.json files)
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "precheck/dump/dump.h"
#include "precheck/dump/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tensors(const pc_dump_api *api, const pc_dump_arg *arg, int depth)
{
    if (depth > PC_DUMP_MAX_ARG_DEPTH + 2)
        return;
    if (arg->kind == PC_DUMP_ARG_TENSOR) {
        int64_t numel;
        size_t nbytes;
        (void)pc_dump_tensor_check(api, arg, (size_t)1 << 30, &numel, &nbytes);
    } else if (arg->kind == PC_DUMP_ARG_LIST) {
        for (size_t i = 0; i < arg->u.list.count; i++)
            check_tensors(api, &arg->u.list.items[i], depth + 1);
    } else if (arg->kind == PC_DUMP_ARG_OBJECT) {
        for (size_t i = 0; i < arg->u.object.count; i++)
            check_tensors(api, &arg->u.object.fields[i].value, depth + 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pc_dump *dump = NULL;
    if (pc_dump_parse(&dump, (const char *)data, size, "fuzz.json") != PC_OK)
        return 0;
    bool *keep = malloc(dump->api_count ? dump->api_count : 1);
    if (keep) {
        size_t kept;
        (void)pc_dump_filter_dedup(dump, keep, &kept);
        free(keep);
    }
    for (size_t i = 0; i < dump->api_count && i < 64; i++) {
        const pc_dump_api *api = &dump->apis[i];
        check_tensors(api, &api->forward.input_args, 0);
        check_tensors(api, &api->forward.output, 0);
        for (size_t k = 0; k < api->forward.kwarg_count; k++)
            check_tensors(api, &api->forward.kwargs[k].value, 0);
        if (api->backward)
            check_tensors(api, &api->backward->input, 0);
        (void)pc_dump_find(dump, api->full_name);
    }
    pc_dump_free(dump);
    return 0;
}
