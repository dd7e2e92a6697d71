/* Helpers shared by the tensor-file tests (test_pt*.c, test_npy*.c): reading fixtures,
 * manifests, element bytes in row-major order, and running the Python checker. */
#ifndef PC_TEST_PT_SUPPORT_H
#define PC_TEST_PT_SUPPORT_H

#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "precheck/core/tensor.h"

/* A fixture path: PC_TEST_FIXTURES "/" rel. */
static inline const char *tf_fixture(char *buf, size_t size, const char *rel)
{
    snprintf(buf, size, "%s/%s", PC_TEST_FIXTURES, rel);
    return buf;
}

/* The whole file, malloc'ed (plus a NUL); aborts the test when it cannot be read. */
static inline unsigned char *tf_read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    *size = (size_t)n;
    return buf;
}

static inline void tf_write_all(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot create %s", path);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

/* Splits line at spaces into at most max fields; returns how many. */
static inline int tf_split(char *line, char **fields, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \n", &save); tok && n < max;
         tok = strtok_r(NULL, " \n", &save))
        fields[n++] = tok;
    return n;
}

/* "[2,3]" -> dims; returns the rank. */
static inline int tf_parse_dims(const char *s, int64_t *dims)
{
    int rank = 0;
    const char *p = s + 1;
    while (*p && *p != ']') {
        char *end;
        dims[rank++] = strtoll(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
    }
    return rank;
}

/* Hex text ("-" for none) to bytes; returns the count. */
static inline size_t tf_hex_decode(const char *hex, unsigned char *dst, size_t cap)
{
    if (strcmp(hex, "-") == 0)
        return 0;
    size_t n = strlen(hex) / 2;
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        dst[i] = (unsigned char)v;
    }
    return n;
}

static inline void tf_hex_encode(const unsigned char *src, size_t n, char *dst)
{
    if (n == 0) {
        strcpy(dst, "-");
        return;
    }
    for (size_t i = 0; i < n; i++)
        sprintf(dst + 2 * i, "%02x", src[i]);
}

/* The tensor's elements in row-major order of their indexes (any layout), as bytes; returns
 * the count (numel x element size). dst must hold them. */
static inline size_t tf_row_major_bytes(const pc_tensor *t, unsigned char *dst)
{
    int64_t n = pc_tensor_numel(t);
    size_t elem = pc_dtype_size(t->dtype);
    int64_t index[PC_TENSOR_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        const void *p = pc_tensor_element_ptr(t, t->rank ? index : NULL);
        assert_non_null(p);
        memcpy(dst + (size_t)k * elem, p, elem);
        for (int i = t->rank - 1; i >= 0; i--) {
            if (++index[i] < t->shape[i])
                break;
            index[i] = 0;
        }
    }
    return (size_t)n * elem;
}

/* Reads every element through a checksum, so that a tensor whose view leaves its storage
 * shows up under ASan; returns the checksum so the reads are not optimised away. */
static inline unsigned tf_touch_all(const pc_tensor *t)
{
    int64_t n = pc_tensor_numel(t);
    size_t elem = pc_dtype_size(t->dtype);
    int64_t index[PC_TENSOR_MAX_DIMS] = {0};
    unsigned sum = 0;
    for (int64_t k = 0; k < n; k++) {
        const unsigned char *p = pc_tensor_element_ptr(t, t->rank ? index : NULL);
        assert_non_null(p);
        for (size_t b = 0; b < elem; b++)
            sum = sum * 31 + p[b];
        for (int i = t->rank - 1; i >= 0; i--) {
            if (++index[i] < t->shape[i])
                break;
            index[i] = 0;
        }
    }
    return sum;
}

static inline void tf_assert_message_has(const char *part)
{
    const char *msg = pc_error_message();
    if (*part && !strstr(msg, part))
        fail_msg("message \"%s\" does not contain \"%s\"", msg, part);
}

/*
 * Runs tests/golden/check_written.py on dir with the interpreter in $PC_TEST_PYTHON (default
 * /usr/bin/python3, where Debian's python3-torch lives). Returns its exit status: 0 all good,
 * 77 torch/numpy missing (or no interpreter at all).
 */
static inline int tf_run_checker(const char *dir)
{
    const char *python = getenv("PC_TEST_PYTHON");
    if (!python || !*python)
        python = "/usr/bin/python3";
    if (access(python, X_OK) != 0)
        return 77;
    char script[4096];
    snprintf(script, sizeof script, "%s/../golden/check_written.py", PC_TEST_FIXTURES);
    pid_t pid = fork();
    if (pid == 0) {
        execl(python, python, script, dir, (char *)NULL);
        _exit(77);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return 77;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Removes the files of a test directory made by pc_test_tmpdir, then the directory. */
static inline void tf_remove_dir(const char *dir, const char *const *names, size_t n)
{
    char path[8192];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    unlink(path);
    rmdir(dir);
}

#endif
