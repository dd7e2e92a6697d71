#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

int pc_test_same_f64(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

char *mkdtemp(char *template); /* POSIX 2008; not declared under strict C11 headers */

const char *pc_test_tmpdir(char *buf, size_t size)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    snprintf(buf, size, "%s/precheck-test-XXXXXX", base);
    if (!mkdtemp(buf))
        return NULL;
    return buf;
}

#ifdef PC_TEST_BINARY
int pc_test_run_precheck(const char *env, const char *args, const char *log)
{
    char cmd[8192];
    int n = snprintf(cmd, sizeof cmd, "%s '%s' %s >%s 2>&1", env ? env : "", PC_TEST_BINARY, args,
                     log ? log : "/dev/null");
    assert_true(n > 0 && (size_t)n < sizeof cmd);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}
#endif

void pc_test_find_file(const char *dir, const char *prefix, char *out, size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open the folder %s", dir);
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(out, size, "%s/%s", dir, e->d_name);
            found++;
        }
    }
    closedir(d);
    if (found != 1)
        fail_msg("%d files %s* in %s", found, prefix, dir);
}

char *pc_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

int pc_test_file_contains(const char *path, const char *text)
{
    char *b = pc_test_slurp(path, NULL);
    int r = strstr(b, text) != NULL;
    free(b);
    return r;
}

const char *pc_test_torch_python(void)
{
    static char python[1024];
    static int known = -1;
    if (known < 0) {
        const char *env = getenv("PRECHECK_TEST_PYTHON");
        snprintf(python, sizeof python, "%s", env && *env ? env : "/usr/bin/python3");
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "'%s' -c 'import torch' >/dev/null 2>&1", python);
        known = system(cmd) == 0;
    }
    if (known)
        return python;
    const char *req = getenv("PRECHECK_REQUIRE_TORCH");
    if (req && strcmp(req, "1") == 0)
        fail_msg("%s cannot import torch, and PRECHECK_REQUIRE_TORCH=1 (tests/run.sh): install "
                 "Debian's python3-torch (tools/install-deps.sh does), or name a Python with "
                 "torch in PRECHECK_TEST_PYTHON",
                 python);
    return NULL;
}
