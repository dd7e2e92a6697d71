/*
 * libFuzzer harness for the .pt reader: any bytes go to pc_pt_read_buffer(). A file that loads
 * must give a tensor whose every element can be read, and must survive the writer and come
 * back with the same dtype, shape and bytes.
 *
 * Build and run (corpus from the fixtures):
 *   clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fopenmp \
 *       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iinclude -Isrc \
 *       fuzz/fuzz_pt.c src/io/zip.c src/io/pickle.c src/io/pt.c src/core/[a-z]*.c -lm -o fuzz_pt
 *   mkdir -p corpus_pt && cp tests/fixtures/pt/[a-z]*.pt corpus_pt/
 *   ./fuzz_pt -max_total_time=60 corpus_pt
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/pt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Row-major bytes of every element; aborts on an element outside the storage (ASan). */
static size_t gather(const pc_tensor *t, unsigned char *dst)
{
    int64_t n = pc_tensor_numel(t);
    size_t elem = pc_dtype_size(t->dtype);
    int64_t index[PC_TENSOR_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        const void *p = pc_tensor_element_ptr(t, t->rank ? index : NULL);
        if (!p)
            abort();
        if (dst)
            memcpy(dst + (size_t)k * elem, p, elem);
        for (int i = t->rank - 1; i >= 0; i--) {
            if (++index[i] < t->shape[i])
                break;
            index[i] = 0;
        }
    }
    return (size_t)n * elem;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pc_tensor t = PC_TENSOR_NULL, back = PC_TENSOR_NULL;
    if (pc_pt_read_buffer(data, size, "fuzz.pt", &t, NULL) != PC_OK) {
        if (!pc_error_message()[0])
            abort(); /* every error has a message */
        return 0;
    }
    /* A small file can describe a view of many elements (a stride of 0 repeats one), so the
     * round trip is limited to views of up to 1 MiB. */
    if (pc_tensor_nbytes(&t) <= ((size_t)1 << 20)) {
        size_t n = pc_tensor_nbytes(&t);
        unsigned char *a = malloc(n + 1), *b = malloc(n + 1);
        gather(&t, a);
        void *buf;
        size_t len;
        if (pc_pt_write_buffer(&t, NULL, &buf, &len) != PC_OK)
            abort();
        if (pc_pt_read_buffer(buf, len, "rewritten.pt", &back, NULL) != PC_OK)
            abort();
        if (back.dtype != t.dtype || !pc_tensor_same_shape(&t, &back) || gather(&back, b) != n ||
            memcmp(a, b, n) != 0)
            abort();
        free(buf);
        free(a);
        free(b);
        pc_tensor_free(&back);
    }
    pc_tensor_free(&t);
    return 0;
}
