/* How the process's thread pools wait. */
#ifndef PC_CORE_THREADS_H
#define PC_CORE_THREADS_H

/*
 * OpenMP's threads (element-wise kernels, inputs, metrics) and OpenBLAS's own threads (the
 * GEMMs) take turns on the same cores. libgomp's default is to spin a while after each parallel
 * region, and a GEMM started then runs at a quarter of its speed (bench/bench_gemm measures
 * it); with OMP_WAIT_POLICY=PASSIVE its threads sleep instead. libgomp reads the variable once,
 * when it is loaded, before main: so when neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT is set,
 * this sets OMP_WAIT_POLICY=PASSIVE and executes the program again (/proc/self/exe) with the
 * same arguments. It returns only when nothing had to be done or the exec failed (then the run
 * goes on with the spinning default). A user's own setting of either variable is kept.
 */
void pc_threads_prefer_passive(char **argv);

#endif
