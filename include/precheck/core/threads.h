/* How the process's thread pools wait. */
#ifndef PC_CORE_THREADS_H
#define PC_CORE_THREADS_H

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

#endif
