/* The run record's "dump_content" digest (FNV-1a 64 over 8-byte words, then the tail bytes):
 * api_precision_compare's pair check compares digests written by earlier runs, so its values
 * must never change. Expected values from an independent Python computation. */
#include "pc_test.h"

#include "runner/runner_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void digest_of(const void *bytes, size_t n, char *out, size_t size)
{
    char dir[512], path[600];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(path, "%s/content", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(pc_run_file_digest(path, out, size), PC_OK);
    remove(path);
    remove(dir);
}

static void digests_are_pinned(void **state)
{
    (void)state;
    char got[64];
    digest_of("", 0, got, sizeof got);
    assert_string_equal(got, "cbf29ce484222325-0");
    digest_of("0123456789abcdefghij", 20, got, sizeof got); /* two words and a tail of 4 */
    assert_string_equal(got, "907fa880534453b9-20");
    /* past the reader's 1 MiB chunk */
    size_t n = 256 * 4097;
    unsigned char *big = malloc(n);
    assert_non_null(big);
    for (size_t i = 0; i < n; i++)
        big[i] = (unsigned char)(i & 0xff);
    digest_of(big, n, got, sizeof got);
    free(big);
    assert_string_equal(got, "8ebcdf593550a025-1048832");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(digests_are_pinned)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
