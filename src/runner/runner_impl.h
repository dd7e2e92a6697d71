/* Private to src/runner: what run_ut and run_overflow_check share per API, the done set of a
 * resumed run, CSV repair, and the worker pool. */
#ifndef PC_RUNNER_IMPL_H
#define PC_RUNNER_IMPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "precheck/core/hashmap.h"
#include "precheck/inputs/bind.h"
#include "precheck/inputs/inputs.h"
#include "precheck/io/csv.h"
#include "precheck/io/msprobe_csv.h"
#include "precheck/io/run_lock.h"
#include "precheck/runner/runner.h"

/* ---- one API, as run_ut (api.c) and run_overflow_check (overflow.c) prepare it
 * (api_shared.c) ---- */

/* Whether the forward entry has the keyword argument key (out=: no backward). */
bool pc_api_has_kwarg(const pc_dump_entry *e, const char *key);

/* Why the API's forward entry cannot be used at all (the entry, or the first argument record
 * precheck could not read), or NULL. The text is the API's error message. */
const char *pc_api_entry_error(const pc_dump_api *api);

/* The op row of an executed API type; NULL with the message msprobe's run would fail with in
 * why: "There is not bench function <name>" for an NPU op precheck does not have (msprobe has
 * a bench function for exactly those it has), pc_api_supported's text for the others. */
const pc_api_name *pc_api_find_op(const pc_dump_api *api, char *why, size_t size);

/* An API whose row in dump/api_rules.def says returns_none (Tensor.__setitem__: torch returns
 * None, so msprobe sees None on both sides; the op's result, the written copy of self, serves
 * the goldens and -save_error_data only). */
bool pc_api_returns_none(const pc_dump_api *api);

/* Whether r is the Python bool an op returns (torch.equal, Tensor.allclose): its schema says
 * "-> bool" and r holds it as one 0-dim bool tensor. */
bool pc_api_result_is_bool(const pc_op *op, const pc_op_result *r);

/* msprobe's log line for an API whose run raised msg (its catch-all,
 * docs/msprobe-contract.md#replay): the int32 hint for "expected scalar type Long", else ERROR "Run
 * <full> UT Error: <msg>". With overflow_check, run_overflow_check's handler, which has two more
 * hints (half tensors and the matmul primitive on the CPU). */
void pc_api_log_failure(const pc_dump_api *api, const char *msg, bool overflow_check);

/* The tensors made of an API's records, each made once: what the binder asks for (overloads
 * may ask again) and, for devices that take the API as the dump wrote it, every tensor record
 * of the forward entry (call.records). in is the caller's; items are owned. */
typedef struct pc_record_cache {
    pc_inputs *in;
    pc_record_tensor *items; /* malloc'ed */
    int count, cap;
} pc_record_cache;

/* A pc_tensor_provider (inputs/bind.h) over the cache: ctx is a pc_record_cache. */
pc_status pc_record_cache_provide(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg,
                                  pc_tensor *out);
void pc_record_cache_free(pc_record_cache *c); /* leaves an empty cache (in kept) */

/* Binds api onto the op of *name or an overload of it (*name gets the row used), its tensors
 * made through cache (cache->in set by the caller with pc_inputs_begin), and fills in where
 * the call came from (backend ABI 3: dump, api, records, seed); with want_records, every
 * tensor record of the forward entry is made too (a backend with PC_BACKEND_WANTS_RECORDS).
 * autocast and needs_backward stay 0: the caller decides them. On failure the message is set
 * and call may hold a partial binding: pc_op_call_free it either way. */
pc_status pc_api_bind(const pc_dump *dump, const pc_dump_api *api, const pc_api_name **name,
                      uint64_t seed, bool want_records, pc_record_cache *cache, pc_op_call *call);

/* ---- msprobe's device autocast rule (autocast.c) ---- */

/* The autocast dtype of the device run (float16 / bfloat16), or PC_DTYPE_INVALID for none. */
pc_dtype pc_autocast_dtype(const pc_op_call *call, const pc_dump_api *api);

/* ---- the bench cache (bench_cache.c) ---- */

typedef struct pc_cache_key {
    uint64_t h[2];
} pc_cache_key;

/* The key of the bench's forward of call (bench_name and policy: which bench computes). */
pc_status pc_cache_key_call(pc_cache_key *k, const char *bench_name, const char *policy,
                            const pc_op_call *call);
/* The key of its backward with the incoming gradient grad. */
pc_status pc_cache_key_grad(pc_cache_key *k, const pc_cache_key *forward, const pc_tensor *grad);
/* PC_ERR_NOT_FOUND when dir has no (whole) entry for k. */
pc_status pc_cache_load_outputs(const char *dir, const pc_cache_key *k, pc_op_result *out);
pc_status pc_cache_store_outputs(const char *dir, const pc_cache_key *k, const pc_op_result *r);
pc_status pc_cache_load_grads(const char *dir, const pc_cache_key *k, const pc_op_call *call,
                              pc_op_grads *out);
pc_status pc_cache_store_grads(const char *dir, const pc_cache_key *k, const pc_op_call *call,
                               const pc_op_grads *g);
/* The cache directory exists (made when missing) and is readable and writable. Also sets up
 * the run's counts, shared with the workers forked after it. */
pc_status pc_cache_dir_check(const char *dir);
/* Whether an API's bench results go through the cache: only APIs with products (GEMMs,
 * convolutions, attention); the others cost about what reading their results back would. */
bool pc_cache_worth_keeping(const pc_dump_api *api);
/* The end of a run: logs the run's hits, misses and entries written and what the directory
 * holds, after deleting its least recently used entries beyond max_bytes (0: no bound). */
void pc_cache_finish(const char *dir, uint64_t max_bytes);

/* Creates <out_dir>/accuracy_checking_{result,details}_<ts>.csv for a run started at start,
 * exclusively: when the names are taken, the next second's (run_ut.c). *ts (16 bytes) becomes
 * the time stamp used. */
pc_status pc_run_claim_names(const char *out_dir, time_t start, char *ts, char *result,
                             size_t result_size, char *details, size_t details_size);

/* ---- the run's identity and its command line (identity.c) ---- */

#define PC_RUN_IDENTITY_MAX   24
#define PC_RUN_IDENTITY_VALUE 2048

typedef struct pc_run_identity_field {
    char key[32];
    char value[PC_RUN_IDENTITY_VALUE];
    bool decides; /* it decides the rows: a resume must have the same */
} pc_run_identity_field;

typedef struct pc_run_identity {
    pc_run_identity_field fields[PC_RUN_IDENTITY_MAX];
    int count;
} pc_run_identity;

/* The identity of the run o on the dump at dump_path (its content is digested), with the
 * effective lists and CSV precision. */
pc_status pc_run_identity_make(pc_run_identity *id, const pc_run_options *o, const char *dump_path,
                               const pc_api_lists *lists, int precision);
/* Adds a field that does not decide the rows (the record's "about": where things went). */
void pc_run_identity_note(pc_run_identity *id, const char *key, const char *value);
/* <dir>/precheck_run_<ts>.json: the record beside a run's CSVs. */
void pc_run_identity_path(char *out, size_t size, const char *dir, const char *ts);
/* A digest of a file's content, as the record's "dump_content" holds it. */
pc_status pc_run_file_digest(const char *path, char *out, size_t size);
/* Writes the record (atomically) with the run's command line. */
pc_status pc_run_identity_write(const pc_run_identity *id, const char *path, const char *command);
/* What a new run's record says about resuming it (its "resume" object): the command that
 * resumes it, the arguments it was given (run again by run_ut --resume DIR, from the folder the
 * run was started in, also recorded) and how many APIs it writes (a result CSV with fewer rows
 * is an unfinished run). */
typedef struct pc_run_record_resume {
    const char *command;
    int argc;
    char *const *argv;
    size_t planned;
} pc_run_record_resume;
/* The record with its "resume" object (resume may be NULL: none). */
pc_status pc_run_record_write(const pc_run_identity *id, const char *path, const char *command,
                              const pc_run_record_resume *resume);
/* Compares id with the record at path, written by the run that made csv: PC_ERR_INVALID
 * naming every difference; *found false (and PC_OK) when there is no record (a CSV written by
 * msprobe or an older precheck). */
pc_status pc_run_identity_check(const pc_run_identity *id, const char *path, const char *csv,
                                bool *found);
/* "precheck <args...>", shell-quoted so that it can be pasted, with any -csv_path of argv
 * replaced by -csv_path csv (csv NULL: the command as it was). */
void pc_run_command_line(char *out, size_t size, int argc, char *const *argv, const char *csv);

/* ---- a set of API names ---- */

/* A zeroed pc_name_set is empty. The names are owned copies in core's map. */
typedef struct pc_name_set {
    pc_strmap map;
    size_t count;
} pc_name_set;

pc_status pc_name_set_add(pc_name_set *s, const char *name, size_t len);
bool pc_name_set_has(const pc_name_set *s, const char *name, size_t len);
void pc_name_set_free(pc_name_set *s);

/* ---- resume ---- */

/* Makes the two CSVs of an interrupted run consistent and reads the done set: a partial last
 * record of either file is cut off; details rows of APIs that have no result row (the API in
 * flight when the run was killed) are removed; line endings other than CRLF (a re-saved file)
 * become CRLF, so the finished CSVs are the bytes of an uninterrupted run. Both files are read
 * and checked whole first: a file that is not a run to resume (empty, the other kind, another
 * header, a record with more fields than the header) is refused unchanged. lock (may be NULL): the
 * run lock on result_path, moved to the new file when the result CSV is rewritten.
 * *repaired counts the records dropped. */
pc_status pc_resume_prepare(const char *result_path, const char *details_path, pc_name_set *done,
                            size_t *repaired, pc_run_lock *lock);

/* ---- the ranks of one run under mpirun (mpi.c) ---- */

typedef struct pc_mpi {
    bool active; /* MPI is up: this is one of size > 1 ranks */
    bool broken; /* a rank stopped answering: the job ends with MPI_Abort */
    int rank, size;
    int local_rank, local_size; /* among the ranks on this machine */
} pc_mpi;

/* The messages of a run (MPI tags): rank 0 sends WORK (a position) and STOP; the others send
 * RESULT (the position and its packed pc_api_result), QUIT (this rank was interrupted) and
 * DONE (the answer to STOP). */
enum { PC_MPI_WORK = 1, PC_MPI_RESULT, PC_MPI_STOP, PC_MPI_DONE, PC_MPI_QUIT };

/* The number of ranks a launcher's environment announces (mpirun, srun), 0 outside one. */
int pc_mpi_env_size(void);
/* Joins the MPI job when the environment announces more than one rank (m->active); otherwise
 * m is rank 0 of 1 and nothing is started. PC_ERR_UNSUPPORTED, with what to do, when it does
 * and precheck was built without MPI. */
pc_status pc_mpi_start(pc_mpi *m);
/* The end of every rank's run: each learns rank 0's exit status and returns it (the job's
 * status is the same everywhere); MPI_Finalize, or MPI_Abort when m->broken. */
int pc_mpi_finish(pc_mpi *m, int rc);
/* Rank 0 shares its plan with the others: *go (0: the run failed before it began and every
 * rank ends), the positions' dump indices (*apis and *count, malloc'ed on the other ranks) and
 * the error-data folder (may be ""). */
pc_status pc_mpi_plan_share(pc_mpi *m, int *go, size_t **apis, size_t *count, char *error_dir,
                            size_t size);
/* Every rank gives how many positions it takes at once (-1: it could not start); rank 0
 * receives them all in slots[m->size]. */
void pc_mpi_slots_gather(pc_mpi *m, int mine, int *slots);
/* Rank 0's decision, for everyone. */
void pc_mpi_go_share(pc_mpi *m, int *go);
/* WORK, STOP, DONE or QUIT (pos: the position of WORK, else 0). */
pc_status pc_mpi_send(pc_mpi *m, int to, int kind, uint64_t pos);
/* RESULT to rank 0. */
pc_status pc_mpi_send_result(pc_mpi *m, uint64_t pos, const char *bytes, size_t len);
/* A message waiting from rank from (-1: any), without blocking: *kind 0 when there is none;
 * a RESULT's bytes are malloc'ed into *bytes. */
pc_status pc_mpi_poll(pc_mpi *m, int from, int *kind, int *src, uint64_t *pos,
                      pc_csv_buffer *bytes);

/* ---- the pool ---- */

typedef struct pc_pool_job {
    const pc_api_runner *runner; /* opened before the workers fork; they inherit it */
    const pc_run_options *opt;
    const pc_dump *dump;
    const size_t *apis; /* indices into dump->apis, in writing order */
    size_t count;
    volatile sig_atomic_t *interrupted;
    /* under mpirun: the job's ranks (NULL: this process alone) and, on rank 0, how many
     * positions each other rank takes at once (slots[rank]) */
    pc_mpi *mpi;
    const int *slots;
    /* the cores this process's workers share (0: every core it may use) */
    int cores;
    /* added to a worker's index for the backend (one device per worker across the ranks of a
     * machine) */
    int worker_base;
} pc_pool_job;

/* Called in order for every finished API with its result (the parent hands it to the run's
 * result sinks). Non-zero stops the run. */
typedef int (*pc_pool_sink)(void *ctx, size_t pos, const pc_api_result *res);

/* Runs the APIs in opt->workers processes (0: in this process) and hands their text to sink in
 * order. *written: how many were handed over. PC_OK also when interrupted (check *written). */
pc_status pc_pool_run(const pc_pool_job *job, pc_pool_sink sink, void *ctx, size_t *written);
/* A rank other than 0 under mpirun: runs the positions rank 0 sends in opt->workers (at least
 * one) forked workers and sends each result back, until rank 0 says stop. */
pc_status pc_pool_serve(const pc_pool_job *job);

#endif
