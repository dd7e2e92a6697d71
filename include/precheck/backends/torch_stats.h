/*
 * What the torch backend plug-in measures in a process, for bench/bench_torch: the plug-in
 * exports `const pc_torch_stats *precheck_torch_stats(void)` (found with dlsym).
 */
#ifndef PC_BACKENDS_TORCH_STATS_H
#define PC_BACKENDS_TORCH_STATS_H

#define PC_TORCH_STATS_ENTRY "precheck_torch_stats"

typedef struct pc_torch_stats {
    double torch_seconds;  /* inside torch's own calls: the APIs and their autograd */
    double bridge_seconds; /* in the backend's forward and backward once Python runs */
    double out_seconds;    /* of bridge_seconds: results and gradients back into precheck */
    double free_seconds;   /* of bridge_seconds: freeing an API's torch objects (its outputs,
                              autograd graph and gradients: torch's own memory) */
    double start_seconds;  /* starting Python and importing torch */
    long calls;            /* forward and backward calls through torch */
} pc_torch_stats;

typedef const pc_torch_stats *(*pc_torch_stats_fn)(void);

#endif
