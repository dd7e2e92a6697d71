/*
 * The growable buffers that sit on core's pc_strbuf: the writers' memory sink (.npy and .pt to
 * memory), the JSON document's string pool, the config file reader and the backend loader's
 * capture of a command's output. Each is filled past its first allocations; an allocation that
 * fails (the pc_alloc_fail_after hook, which pc_strbuf honours) gives a message, not a crash or a
 * cut text, and a reused JSON document recovers from it.
 */
#include "pc_test.h"

#include "backends/backends_impl.h"
#include "core/alloc.h"
#include "precheck/core/status.h"
#include "precheck/core/tensor.h"
#include "precheck/io/config.h"
#include "precheck/io/json.h"
#include "precheck/io/npy.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int reset_hook(void **state)
{
    (void)state;
    pc_alloc_fail_after(-1);
    return 0;
}

/* A .npy of 256 KiB written to memory: every failing allocation on the way is PC_ERR_NOMEM
 * (one of them the sink's growth, with its message); then it is written whole and reads back. */
static void test_npy_to_memory(void **state)
{
    (void)state;
    int64_t n = 65536;
    pc_tensor t = PC_TENSOR_NULL;
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, &n, 1), PC_OK);
    float *v = pc_tensor_data(&t);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)i * 0.5f;
    void *data = NULL;
    size_t size = 0;
    bool grew_and_failed = false;
    long fail_at = 0;
    for (;; fail_at++) {
        assert_true(fail_at < 1000);
        pc_alloc_fail_after(fail_at);
        pc_status st = pc_npy_write_buffer(&t, &data, &size);
        pc_alloc_fail_after(-1);
        if (st == PC_OK)
            break;
        assert_int_equal(st, PC_ERR_NOMEM);
        if (strstr(pc_error_message(), "out of memory growing the output past"))
            grew_and_failed = true;
    }
    assert_true(grew_and_failed);
    assert_true(size > (size_t)n * sizeof(float));
    pc_tensor back = PC_TENSOR_NULL;
    assert_int_equal(pc_npy_read_buffer(data, size, "mem.npy", &back, NULL), PC_OK);
    assert_int_equal(pc_tensor_numel(&back), n);
    assert_memory_equal(pc_tensor_data(&back), v, (size_t)n * sizeof(float));
    pc_tensor_free(&back);
    pc_tensor_free(&t);
    free(data);
}

/* A reused document whose string pool ran out of memory parses again once memory is back. */
static void test_json_pool_recovers(void **state)
{
    (void)state;
    char text[8200], longs[4001];
    memset(longs, 'x', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    PC_TEST_FMT(text, "{\"a\": \"%s\", \"b\": \"short\", \"c\": \"%s\"}", longs, longs);
    size_t size = strlen(text);
    pc_json_doc *doc = NULL;
    assert_int_equal(pc_json_doc_new(&doc, "pool.json"), PC_OK);
    bool pool_failed = false;
    for (long fail_at = 0; fail_at < 8; fail_at++) {
        pc_alloc_fail_after(fail_at);
        pc_status st = pc_json_parse_range(doc, text, size, 0, size);
        pc_alloc_fail_after(-1);
        if (st != PC_OK) {
            assert_int_equal(st, PC_ERR_NOMEM);
            if (strstr(pc_error_message(), "bytes of strings"))
                pool_failed = true;
        }
        /* whatever happened before, the same document parses the text again */
        assert_int_equal(pc_json_parse_range(doc, text, size, 0, size), PC_OK);
        pc_json_ref root = pc_json_root(doc);
        size_t len = 0;
        const char *a = pc_json_string(doc, pc_json_object_get(doc, root, "a"), &len);
        assert_non_null(a);
        assert_int_equal(len, sizeof longs - 1);
        assert_memory_equal(a, longs, len);
        assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, root, "b"), NULL), "short");
        assert_string_equal(pc_json_string(doc, pc_json_object_get(doc, root, "c"), NULL), longs);
    }
    assert_true(pool_failed);
    pc_json_free(doc);
}

static bool any_api(const char *name)
{
    return strcmp(name, "conv2d") == 0 || strcmp(name, "relu") == 0;
}

/* A config file larger than the reader's 64 KiB steps is read whole: the keys after the long
 * comment count. */
static void test_config_file_past_a_step(void **state)
{
    (void)state;
    char dir[512], path[600];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(path, "%s/config.yaml", dir);
    size_t pad = 200000;
    char *text = malloc(pad + 256);
    assert_non_null(text);
    text[0] = '#';
    memset(text + 1, 'c', pad - 2);
    text[pad - 1] = '\n';
    strcpy(text + pad, "white_list: [conv2d]\nblack_list: [relu]\nerror_data_path: './'\n"
                       "precision: 9\n");
    pc_test_write_file(path, text);
    free(text);
    pc_config c = {0};
    assert_int_equal(pc_config_load_yaml(&c, path, any_api), PC_OK);
    assert_int_equal(c.precision, 9);
    assert_int_equal(c.white_list.count, 1);
    assert_string_equal(c.white_list.items[0], "conv2d");
    assert_int_equal(c.black_list.count, 1);
    assert_string_equal(c.black_list.items[0], "relu");
    pc_config_free(&c);
    remove(path);
    rmdir(dir);
}

static bool all_of(const char *s, char c, size_t n)
{
    if (strlen(s) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] != c)
            return false;
    return true;
}

/* A command's stdout and stderr, each several of the capture's 4 KiB reads, come back whole. */
static void test_capture_whole_output(void **state)
{
    (void)state;
    char *const argv[] = {"sh", "-c",
                          "head -c 20000 /dev/zero | tr '\\000' a; "
                          "head -c 9000 /dev/zero | tr '\\000' b >&2; exit 3",
                          NULL};
    int status = 0;
    char *err = NULL;
    char *out = pc_backend_capture(argv, &status, &err);
    assert_non_null(out);
    assert_non_null(err);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    assert_true(all_of(out, 'a', 20000));
    assert_true(all_of(err, 'b', 9000));
    free(out);
    free(err);

    char *const quiet[] = {"true", NULL};
    err = NULL;
    out = pc_backend_capture(quiet, &status, &err);
    assert_non_null(out);
    assert_non_null(err);
    assert_string_equal(out, "");
    assert_string_equal(err, "");
    free(out);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_npy_to_memory, reset_hook),
        cmocka_unit_test_teardown(test_json_pool_recovers, reset_hook),
        cmocka_unit_test(test_config_file_past_a_step),
        cmocka_unit_test(test_capture_whole_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
