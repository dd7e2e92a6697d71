#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
