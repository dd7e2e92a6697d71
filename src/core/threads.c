/* The process's thread pools (threads.h). */
#define _POSIX_C_SOURCE 200809L
#include "precheck/core/threads.h"

#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

void pc_threads_prefer_passive(char **argv)
{
    bool changed = false;
    if (!getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT"))
        changed |= setenv("OMP_WAIT_POLICY", "PASSIVE", 1) == 0;
    if (!getenv("OPENBLAS_THREAD_TIMEOUT") && !getenv("GOTO_THREAD_TIMEOUT"))
        changed |= setenv("OPENBLAS_THREAD_TIMEOUT", PC_OPENBLAS_THREAD_TIMEOUT, 1) == 0;
    if (!changed)
        return;
    execv("/proc/self/exe", argv);
    /* still here: the exec failed; run on as we are (the variables stay set, harmlessly) */
}
