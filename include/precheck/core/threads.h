/* How the process's thread pools wait. */
#ifndef PC_CORE_THREADS_H
#define PC_CORE_THREADS_H

#include <stddef.h>

#include "precheck/core/status.h"

/*
 * OpenMP's threads (element-wise kernels, inputs, metrics) and OpenBLAS's own threads (the
 * GEMMs) take turns on the same cores, and each pool's idle threads keep spinning a while after
 * its work: libgomp's after each parallel region (a GEMM started then runs at a quarter of its
 * speed: bench/bench_gemm measures it), OpenBLAS's after each GEMM (calling sched_yield for
 * 2^28 cycles, about 0.1 s, which takes the cores from the OpenMP loop that follows: half of
 * run_ut's system time on a model-sized layer). Both libraries read their setting once, when
 * they are loaded, before main. So where a user has not set them, this sets
 * OMP_WAIT_POLICY=PASSIVE (unless GOMP_SPINCOUNT is set) and OPENBLAS_THREAD_TIMEOUT (unless
 * GOTO_THREAD_TIMEOUT is set) to PC_OPENBLAS_THREAD_TIMEOUT (2^16 cycles: GEMMs called back to
 * back still find the threads awake), and executes the program again (/proc/self/exe) with
 * the same arguments. It returns only when nothing had to be done or the exec failed (then the
 * run goes on with the libraries' defaults). A user's own setting of any of them is kept.
 */
#define PC_OPENBLAS_THREAD_TIMEOUT "16"
void pc_threads_prefer_passive(char **argv);

/*
 * An address-space limit (ulimit -v: RLIMIT_AS; RLIMIT_DATA, which Linux applies to every
 * private writable mapping): OpenBLAS reserves a buffer of PC_THREADS_BLAS_BUFFER (128 MiB, its
 * BUFFER_SIZE on x86-64 and arm64) for each thread that runs a matrix product, and retries a
 * reservation that fails forever -- a worker spins, and a parent whose OpenBLAS threads are
 * started waits for them forever in fork(), deaf to SIGTERM. So under such a limit,
 * pc_threads_prefer_passive also starts the program with OPENBLAS_NUM_THREADS=1 (no OpenBLAS
 * thread in the parent) and OMP_NUM_THREADS at pc_threads_cap() (unless the user set them),
 * and the workers run at most pc_threads_cap() threads.
 *
 * pc_threads_address_limit: the lower of the two soft limits in bytes, 0 when neither is set.
 * pc_threads_cap: how many threads of one process may run products under it: a buffer and a
 * stack each (PC_THREADS_PER_THREAD) and PC_THREADS_BASE for the program and the API's tensors,
 * at least 1; 0 when unlimited.
 * pc_threads_check_limit: PC_ERR_INVALID, with a message naming the limit and the minimum
 * (PC_THREADS_MIN_ADDRESS), when the limit is below it; PC_OK otherwise.
 */
#define PC_THREADS_BLAS_BUFFER ((size_t)128 << 20)
#define PC_THREADS_BASE        ((size_t)128 << 20)
#define PC_THREADS_PER_THREAD  (PC_THREADS_BLAS_BUFFER + ((size_t)16 << 20))
#define PC_THREADS_MIN_ADDRESS (PC_THREADS_BASE + PC_THREADS_BLAS_BUFFER)
size_t pc_threads_address_limit(void);
int pc_threads_cap(void);
pc_status pc_threads_check_limit(void);

#endif
