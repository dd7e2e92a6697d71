/*
 * What an API of a dump costs run_ut, estimated from its record alone (shapes and dtypes), and
 * the split of a dump's APIs into cost-balanced shards (run_ut --shard K/N, precheck merge).
 *
 * The model: the GEMM-like work of the API (linear, matmul and its kin, convolutions,
 * attention: 2 multiply-adds per output element and contracted element), done by the device
 * in float32 and by the bench in float64, three times over with a backward record (forward,
 * two gradients); plus the bytes every other stage touches (inputs generated, outputs and
 * gradients compared, on both sides, the bench at double width); plus a fixed cost per API.
 * The rates are round figures for a 2-core machine (sgemm 50 GFLOP/s, dgemm 25 GFLOP/s,
 * 10 GB/s per pass over memory); a schedule needs the ratios between APIs, not the seconds.
 *
 * Everything is integer arithmetic (picoseconds, saturating): the same dump gives the same
 * costs, and so the same shards, on every machine and compiler.
 */
#ifndef PC_RUNNER_COST_H
#define PC_RUNNER_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"
#include "precheck/dump/dump.h"

typedef struct pc_api_cost {
    uint64_t flops; /* GEMM-like floating-point operations of one side, backward included */
    uint64_t bytes; /* bytes of the inputs, outputs and gradients in the dumped dtypes */
    uint64_t ps;    /* the estimate for both sides, in picoseconds */
} pc_api_cost;

/* The bytes of the tensors of an argument tree in their dumped dtypes (lists and objects
 * walked; a dimension below 0 counts as 0, an unknown dtype as 4 bytes; saturating). The
 * memory guard (runner/api.c) counts with it too. */
uint64_t pc_dump_arg_bytes(const pc_dump_arg *a);

/* The estimate for one API of a dump. */
pc_api_cost pc_api_cost_of(const pc_dump_api *api);

/* The heaviest first: order[0..count) gets the positions k of apis[0..count) (indices into
 * dump->apis; NULL: the dump's first count APIs) by pc_api_cost_of, descending, ties in
 * position order; ps (count entries, may be NULL) each position's picoseconds. The order
 * in which --shard fills its shards and rank 0 hands out work under mpirun. */
pc_status pc_api_order_by_cost(const pc_dump *dump, const size_t *apis, size_t count, size_t *order,
                               uint64_t *ps);

/*
 * Splits the APIs i with candidate[i] (all of them when candidate is NULL) into nshards
 * shards: heaviest first (ties: dump order), each to the shard with the least cost so far
 * (ties: the lowest shard), the classic longest-processing-time schedule, within 4/3 of the
 * best possible makespan. shard_of[i] (dump->api_count entries) gets 0..nshards-1, or
 * UINT32_MAX for an API that is no candidate; load (nshards entries, may be NULL) each shard's
 * total picoseconds.
 */
pc_status pc_shard_assign(const pc_dump *dump, const bool *candidate, uint32_t nshards,
                          uint32_t *shard_of, uint64_t *load);

#endif
