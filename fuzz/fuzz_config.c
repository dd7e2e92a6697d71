/*
 * libFuzzer harness for the configuration readers: every input is read both as config.yaml
 * (pc_config_parse_yaml) and as a config.json (pc_config_parse_json), with the real list of
 * wrappable API names. A configuration that is accepted must be complete and in range; one that
 * is refused must say why and leave the result untouched.
 *
 * Build and run (the seed is the shipped config.yaml):
 *   clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined \
 *       -fno-sanitize-recover=all -Iinclude -Isrc fuzz/fuzz_config.c src/io/config.c \
 *       src/io/json.c src/io/path_check.c src/dump/api_names.c src/core/status.c \
 *       src/core/log.c -lyaml -lm -o fuzz_config
 *   mkdir -p corpus_config && cp config/config.yaml corpus_config/
 *   ./fuzz_config -max_total_time=60 corpus_config
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/log.h"
#include "precheck/dump/filter.h"
#include "precheck/io/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_list(const pc_string_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        if (!list->items[i] || !pc_api_is_wrappable(list->items[i]))
            abort();
}

static void check_result(pc_status s, const pc_config *c, bool from_yaml)
{
    if (s == PC_OK) {
        if (!c->error_data_path || (from_yaml && (c->precision < 0 || c->precision > 20)))
            abort();
        check_list(&c->white_list);
        check_list(&c->black_list);
        return;
    }
    /* refused: a message, and nothing filled in */
    if (!pc_error_message()[0] || c->error_data_path || c->white_list.items ||
        c->black_list.items || c->precision != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool quiet;
    if (!quiet) {
        pc_log_set_level(PC_LOG_ERROR); /* async_dump's warning would flood the output */
        quiet = true;
    }
    const char *text = (const char *)data;

    pc_config c = {0};
    pc_error_clear();
    pc_status s = pc_config_parse_yaml(&c, text, size, "fuzz.yaml", pc_api_is_wrappable);
    check_result(s, &c, true);
    pc_config_free(&c);

    pc_error_clear();
    s = pc_config_parse_json(&c, text, size, "fuzz.json", pc_api_is_wrappable);
    check_result(s, &c, false);
    pc_config_free(&c);
    return 0;
}
