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

void pc_test_run_precheck_ok(const char *env, const char *args, const char *log)
{
    int rc = pc_test_run_precheck(env, args, log);
    if (rc != 0) {
        char *text = log ? pc_test_slurp(log, NULL) : NULL;
        fail_msg("precheck %s: exit %d\n%.3000s", args, rc, text ? text : "(no log)");
    }
}

void pc_test_quick_start(const char *work, const char *page)
{
    char env[700], args[4096], log[700], npu[600], gpu[600];
    const char *dump = PC_TEST_FIXTURES "/msprobe/dumps/gpt_bf16_tensor/step0/rank/dump.json";
    PC_TEST_FMT(env, "cd '%s' &&", work);
    PC_TEST_FMT(log, "%s/precheck.log", work);
    PC_TEST_FMT(npu, "%s/npu", work);
    PC_TEST_FMT(gpu, "%s/gpu", work);
    PC_TEST_FMT(args,
                "run_ut -api_info '%s' -o '%s' --backend replay -save_error_data --no-progress",
                dump, npu);
    pc_test_run_precheck_ok(env, args, log);
    PC_TEST_FMT(args, "run_ut -api_info '%s' -o '%s' --backend cpu --no-progress", dump, gpu);
    pc_test_run_precheck_ok(env, args, log);
    PC_TEST_FMT(args,
                "api_precision_compare -npu '%s'/accuracy_checking_details_*.csv -gpu "
                "'%s'/accuracy_checking_details_*.csv -o '%s'",
                npu, gpu, npu);
    pc_test_run_precheck_ok(env, args, log);
    PC_TEST_FMT(args, "report '%s' -o '%s'", npu, page);
    pc_test_run_precheck_ok(NULL, args, log);
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

/* pc_test_slurp, or NULL when the file cannot be opened or read */
static char *slurp_if(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (!b)
        return NULL;
    b[n] = 0;
    if (len)
        *len = (size_t)n;
    return b;
}

char *pc_test_slurp(const char *path, size_t *len)
{
    char *b = slurp_if(path, len);
    if (!b)
        fail_msg("cannot read %s", path);
    return b;
}

char *pc_test_read_stream(FILE *f)
{
    assert_int_equal(fflush(f), 0);
    long size = ftell(f);
    assert_true(size >= 0);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    return text;
}

void pc_test_write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot create %s", path);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

void pc_test_write_file(const char *path, const char *text)
{
    pc_test_write_bytes(path, text, strlen(text));
}

int pc_test_file_contains(const char *path, const char *text)
{
    char *b = pc_test_slurp(path, NULL);
    int r = strstr(b, text) != NULL;
    free(b);
    return r;
}

int pc_test_light(void)
{
    const char *light = getenv("PRECHECK_TEST_LIGHT");
    return light && strcmp(light, "1") == 0;
}

const char *pc_test_torch_python(void)
{
    static char python[1024];
    static int known = -1;
    /* PRECHECK_TEST_TORCH=0: skip them, even under PRECHECK_REQUIRE_TORCH=1 (tests/run.sh's
     * clang stage: its Release stage ran them on the same sources) */
    const char *off = getenv("PRECHECK_TEST_TORCH");
    if (off && strcmp(off, "0") == 0)
        return NULL;
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

FILE *popen(const char *command, const char *type); /* POSIX; not declared under strict C11 */
int pclose(FILE *stream);

const char *pc_test_chromium(void)
{
    static char path[1024];
    static int looked;
    if (!looked) {
        looked = 1;
        FILE *p = popen("command -v chromium || command -v chromium-browser", "r");
        if (p) {
            if (!fgets(path, sizeof path, p))
                path[0] = 0;
            pclose(p);
        }
        path[strcspn(path, "\n")] = 0;
    }
    if (path[0])
        return path;
    const char *req = getenv("PRECHECK_REQUIRE_CHROMIUM");
    if (req && strcmp(req, "1") == 0)
        fail_msg("chromium is not installed, and PRECHECK_REQUIRE_CHROMIUM=1 (tests/run.sh): "
                 "install Debian's chromium (tools/install-deps.sh does)");
    return NULL;
}
