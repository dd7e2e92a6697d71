/* `precheck compare`: the row it prints for a pair of msprobe's saved error data equals the row
 * msprobe wrote for it (header included, CRLF, no BOM). Skipped while the command is not
 * registered in the program. */
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef PC_TEST_FIXTURES
#error "PC_TEST_FIXTURES must name the fixtures directory"
#endif
#ifndef PC_TEST_BINARY
#error "PC_TEST_BINARY must name the precheck program"
#endif

#define CASE_DIR PC_TEST_FIXTURES "/msprobe/run_ut/gpt_bf16_tensor_save_error_data"
#define ERR_DIR  CASE_DIR "/ut_error_data20261202102625"

static char *run(const char *args, int *status)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' compare %s 2>/dev/null", PC_TEST_BINARY, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    size_t n;
    while ((n = fread(out + len, 1, cap - len - 1, p)) > 0)
        len += n;
    out[len] = '\0';
    *status = pclose(p);
    return out;
}

static bool registered(void)
{
    int status;
    char *out = run("--help", &status);
    bool yes = status == 0 && strstr(out, "precheck compare") != NULL;
    free(out);
    return yes;
}

/* The details CSV record of msprobe whose name is name (with its CRLF). */
static char *msprobe_record(const char *name)
{
    FILE *f = fopen(CASE_DIR "/accuracy_checking_details_20261202102625.csv", "rb");
    assert_non_null(f);
    static char data[1 << 20];
    size_t n = fread(data, 1, sizeof data - 1, f);
    fclose(f);
    data[n] = '\0';
    char key[256];
    snprintf(key, sizeof key, "\n%s,", name);
    char *start = strstr(data, key);
    assert_non_null(start);
    start++;
    /* a record ends at a CRLF outside quotes */
    bool quoted = false;
    char *p = start;
    for (; *p; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && p[0] == '\r' && p[1] == '\n')
            break;
    }
    size_t len = (size_t)(p - start) + 2;
    char *rec = malloc(len + 1);
    memcpy(rec, start, len);
    rec[len] = '\0';
    return rec;
}

static void prints_msprobe_row(void **state)
{
    if (!registered())
        skip();
    int status;
    char *out =
        run("-bench " ERR_DIR "/Functional.gelu.0.forward.output.bench.0.pt -device " ERR_DIR
            "/Functional.gelu.0.forward.output.device.0.pt -api_name Functional.gelu.0 "
            "--cosine-blas-order",
            &status);
    assert_int_equal(status, 0);
    const char *header = "API Name,Bench Dtype,DEVICE Dtype,Shape,";
    assert_memory_equal(out, header, strlen(header));
    char *rec = msprobe_record("Functional.gelu.0.forward.output.0");
    char *row = strstr(out, "\r\n") + 2;
    assert_string_equal(row, rec);
    free(rec);
    free(out);
}

static void usage_errors(void **state)
{
    if (!registered())
        skip();
    int status;
    char *out = run("-bench", &status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    free(out);
    out = run("-bench /nonexistent.pt -device /nonexistent.pt", &status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prints_msprobe_row),
        cmocka_unit_test(usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
