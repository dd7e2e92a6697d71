/* The process's thread pools (threads.h). */
#define _POSIX_C_SOURCE 200809L
#include "precheck/core/threads.h"

#include <stdlib.h>
#include <unistd.h>

void pc_threads_prefer_passive(char **argv)
{
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT"))
        return;
    if (setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    /* still here: the exec failed; run on as we are (the variable stays set, harmlessly) */
}
