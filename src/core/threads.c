/* The process's thread pools (threads.h). */
#define _POSIX_C_SOURCE 200809L
#include "precheck/core/threads.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

size_t pc_threads_address_limit(void)
{
    const int which[] = {RLIMIT_AS, RLIMIT_DATA};
    size_t least = 0;
    for (int i = 0; i < 2; i++) {
        struct rlimit rl;
        if (getrlimit(which[i], &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
            continue;
        size_t v = rl.rlim_cur < (rlim_t)SIZE_MAX ? (size_t)rl.rlim_cur : SIZE_MAX;
        if (least == 0 || v < least)
            least = v > 0 ? v : 1;
    }
    return least;
}

int pc_threads_cap(void)
{
    size_t limit = pc_threads_address_limit();
    if (limit == 0)
        return 0;
    size_t n = limit > PC_THREADS_BASE ? (limit - PC_THREADS_BASE) / PC_THREADS_PER_THREAD : 0;
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

pc_status pc_threads_check_limit(void)
{
    size_t limit = pc_threads_address_limit();
    if (limit == 0 || limit >= PC_THREADS_MIN_ADDRESS)
        return PC_OK;
    return pc_error_set(PC_ERR_INVALID,
                        "The address space of this process is limited to %zu MiB (ulimit -v, or "
                        "RLIMIT_DATA): precheck needs %zu MiB at least, since OpenBLAS reserves "
                        "%zu MiB for each thread that runs a matrix product and the program and "
                        "one API's tensors need the rest. Raise the limit (ulimit -v %zu) or "
                        "lift it.",
                        limit >> 20, PC_THREADS_MIN_ADDRESS >> 20, PC_THREADS_BLAS_BUFFER >> 20,
                        PC_THREADS_MIN_ADDRESS >> 10);
}

/* Under an address-space limit: OpenBLAS without threads of its own in this process, and
 * OpenMP's threads at the cap, unless the user chose (threads.h). */
static bool fit_limit(void)
{
    int cap = pc_threads_cap();
    if (cap == 0)
        return false;
    bool changed = false;
    if (!getenv("OPENBLAS_NUM_THREADS") && !getenv("GOTO_NUM_THREADS"))
        changed |= setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0;
    if (!getenv("OMP_NUM_THREADS")) {
        char n[16];
        snprintf(n, sizeof n, "%d", cap);
        changed |= setenv("OMP_NUM_THREADS", n, 1) == 0;
    }
    return changed;
}

void pc_threads_prefer_passive(char **argv)
{
    bool changed = fit_limit();
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT"))
        changed |= setenv("OMP_WAIT_POLICY", "PASSIVE", 1) == 0;
    if (!getenv("OPENBLAS_THREAD_TIMEOUT") && !getenv("GOTO_THREAD_TIMEOUT"))
        changed |= setenv("OPENBLAS_THREAD_TIMEOUT", PC_OPENBLAS_THREAD_TIMEOUT, 1) == 0;
    if (!changed)
        return;
    execv("/proc/self/exe", argv);
    /* still here: the exec failed; run on as we are (the variables stay set, harmlessly) */
}
