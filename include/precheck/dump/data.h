/*
 * The real tensors of a tensor-mode dump: finding a record's file, loading it, and checking it
 * against the record (dtype, shape, and the statistics msprobe wrote,
 * docs/msprobe-contract.md#dump-records).
 *
 * Files live in <folder of dump.json>/dump_tensor_data/<data_name> (the legacy datapath key
 * takes precedence), as .pt or .npy. Loaded tensors own a reference to their data (a mapping
 * of the file where possible); the caller frees them with pc_tensor_free.
 */
#ifndef PC_DUMP_DATA_H
#define PC_DUMP_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/tensor.h"
#include "precheck/dump/dump.h"

/* Writes the path of the tensor's file into buf. PC_ERR_NOT_FOUND when the record names no
 * file (a statistics-mode record), PC_ERR_RANGE when buf is too small. */
pc_status pc_dump_tensor_path(const pc_dump *dump, const pc_dump_tensor *t, char *buf, size_t size);

/*
 * Loads the file of the tensor argument arg of api: msprobe's path checks (exists, no
 * symlink, readable, size limit, ...), .pt or .npy by suffix, then the record's dtype and shape
 * must match the file's (a record saying float8 over a float32 file is cast to float8: the
 * record is authoritative there, as in msprobe). Errors name the API, the argument and the
 * file. *out is written only on success.
 */
pc_status pc_dump_load_tensor(const pc_dump *dump, const pc_dump_api *api, const pc_dump_arg *arg,
                              pc_tensor *out);

/* The statistics msprobe records for a tensor, and the sums pc_dump_verify_stats bounds
 * torch's reductions with. */
typedef struct pc_tensor_stats {
    bool present;  /* false for empty tensors: msprobe writes null */
    bool is_bool;  /* max = any, min = all; no mean or norm */
    bool has_norm; /* false for bool and complex tensors */
    /* exact, rounded once to dtype (what an exactly rounded reduction gives) */
    double max, min, mean, norm;
    pc_dtype dtype; /* the dtype the statistics were computed in */
    int64_t numel;
    double mean_abs;         /* mean of |x|, the scale of the mean's rounding error */
    double sum_pos, sum_neg; /* sum of the positive values, of the negative ones (in double) */
    double sum_sq, max_abs;  /* sum of x^2 (the norm's sum), largest |x| */
    int64_t nonzero;         /* values that are not 0 (adding a 0 rounds nothing) */
} pc_tensor_stats;

/* Computes msprobe's statistics of t: float16/bfloat16/float32 in their own dtype, float64 and
 * integers cast to float32 first, bool as any/all, complex on |x|, 0-dim as the value. */
pc_status pc_tensor_stats_compute(const pc_tensor *t, pc_tensor_stats *out);

/* Why pc_dump_verify_stats accepted a record's Mean or Norm only loosely (bits of *loose): the
 * value is one that torch's reduction may give, but precheck cannot reproduce that reduction's
 * rounding from the file, so it was checked within a bound derived from how torch reduces. */
enum {
    /* the reduction accumulated in the statistic's own dtype, in an order precheck does not know
     * (torch 1.13 on the CPU: float16 norms and sums, bfloat16 ones over strided views, float32
     * norms of large tensors in a few long sequential sums) */
    PC_STATS_LOOSE_LOW_PRECISION = 1u << 0,
    /* a partial sum may have overflowed to an infinity, while the exact sum need not */
    PC_STATS_LOOSE_OVERFLOW = 1u << 1,
};

/*
 * Checks the statistics of the record against computed ones; msprobe takes them with
 * torch.max/min/mean/norm on the tensor as the API saw it (possibly a strided view), while the
 * file holds a contiguous copy. Max and Min exactly (NaN matches NaN). Mean and Norm in tiers:
 *  - a match: within the rounding of a float32-accumulated tree reduction of the data (the
 *    exactly rounded value +- eps(dtype) and log2(N) float32 roundings), or the infinity that
 *    such a float32 sum must reach (a mask full of finfo(float32).min has Mean -inf);
 *  - loose (PC_OK, a bit in *loose, and the thread's message names the statistic, both values
 *    and the cause): an infinity a float32 partial sum could reach, or a value within the
 *    bounds of a reduction accumulated in the statistic's own dtype in any order;
 *  - otherwise PC_ERR_INVALID with a message naming the statistic, both values, the API and
 *    the argument.
 * loose may be NULL. The bounds are derived in data.c.
 */
pc_status pc_dump_verify_stats(const pc_dump_api *api, const pc_dump_arg *arg,
                               const pc_tensor_stats *stats, unsigned *loose);

/* The whole check of one tensor argument with a file: pc_dump_load_tensor, then
 * pc_tensor_stats_compute and pc_dump_verify_stats; the tensor is freed again. Same errors and
 * loose bits as those. */
pc_status pc_dump_check_tensor_file(const pc_dump *dump, const pc_dump_api *api,
                                    const pc_dump_arg *arg, unsigned *loose);

/* A tensor-mode dump copied without its tensors: when some API's record names a tensor file
 * and dump.json's folder has no dump_tensor_data/, PC_ERR_NOT_FOUND with a message that says
 * to copy the whole rank folder (*named: how many tensor files dump.json names, when not
 * NULL); PC_OK otherwise (also for a statistics-mode dump). run_ut and check_dump say it once
 * instead of once per file. */
pc_status pc_dump_check_tensor_dir(const pc_dump *dump, size_t *named);

/* Calls fn for every tensor argument of api, depth first: the forward entry's input_args,
 * input_kwargs and output, then the paired backward entry's input and output. Stops at the
 * first non-zero return of fn and returns it; 0 when every call returned 0. */
typedef int (*pc_dump_tensor_visitor)(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg);
int pc_dump_visit_tensors(const pc_dump_api *api, pc_dump_tensor_visitor fn, void *ctx);

#endif
