/*
 * The plug-ins' host table (include/precheck/backends/host_api.h): the precheck executable
 * exports no symbol, a plug-in calls precheck through the table the loader hands it, and a
 * plug-in built against another host API version is refused with a message naming both
 * versions. The plug-ins are tests/backends/fake_plugin.c, built for this version (fakehost)
 * and for the next (fakeold) into test_plugins/ of the build.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "precheck/backends/host_api.h"

#define DUMP PC_TEST_FIXTURES "/msprobe/dumps/gpt_stats/step0/rank/dump.json"

/* The precheck executable's exported (dynamic, defined) symbols: none at all, so none of the
 * library's pc_ functions. */
static void test_executable_exports_nothing(void **state)
{
    (void)state;
    char cmd[1024];
    PC_TEST_FMT(cmd, "nm -D --defined-only '%s/precheck' 2>&1", PC_TEST_BUILD_DIR);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    int pc_symbols = 0, functions = 0;
    while (fgets(line, sizeof line, p)) {
        char addr[64], type[8], name[400];
        if (sscanf(line, "%63s %7s %399s", addr, type, name) != 3)
            continue;
        if (strncmp(name, "pc_", 3) == 0) {
            if (pc_symbols < 5)
                fprintf(stderr, "exported: %s", line);
            pc_symbols++;
        }
        functions += strcmp(type, "T") == 0;
    }
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) != 0)
        fail_msg("nm (binutils) failed on the precheck executable: exit status %d",
                 WEXITSTATUS(st));
    assert_int_equal(pc_symbols, 0);
    assert_int_equal(functions, 0);
}

/* A run with a plug-in of this host API version: its open calls pc_tensor_alloc,
 * pc_log_info, pc_error_set and reads pc_backend_cpu, all through the table. */
static void test_plugin_calls_through_table(void **state)
{
    (void)state;
    char dir[512], log[600], env[700], args[2048];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/log.txt", dir);
    PC_TEST_FMT(env, "PRECHECK_PLUGIN_DIR='%s/test_plugins'", PC_TEST_BUILD_DIR);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --backend fakehost", DUMP, dir);
    assert_int_not_equal(pc_test_run_precheck(env, args, log), 0);
    assert_true(pc_test_file_contains(log, "fakehost: a float32 tensor through the host table"));
    assert_true(pc_test_file_contains(
        log, "fakehost: opened through the host table (sum 1.5, cpu backend 'cpu')"));
}

/* A plug-in built for the next host API version: refused before any call, both versions
 * named. */
static void test_other_version_refused(void **state)
{
    (void)state;
    char dir[512], log[600], env[700], args[2048], want[256];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/log.txt", dir);
    PC_TEST_FMT(env, "PRECHECK_PLUGIN_DIR='%s/test_plugins'", PC_TEST_BUILD_DIR);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --backend fakeold", DUMP, dir);
    assert_int_not_equal(pc_test_run_precheck(env, args, log), 0);
    PC_TEST_FMT(want,
                "precheck-backend-fakeold.so: the plug-in was built for precheck's host API "
                "version %d, this precheck has version %d: build the plug-in with this precheck",
                PC_HOST_API_VERSION + 1, PC_HOST_API_VERSION);
    if (!pc_test_file_contains(log, want)) {
        char *text = pc_test_slurp(log, NULL);
        fail_msg("expected \"%s\" in:\n%s", want, text);
    }
    assert_false(pc_test_file_contains(log, "opened through the host table"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_executable_exports_nothing),
        cmocka_unit_test(test_plugin_calls_through_table),
        cmocka_unit_test(test_other_version_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
