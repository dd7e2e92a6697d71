/*
 * The ranks of one run under mpirun (runner_impl.h, "ranks"): starting and ending MPI, the
 * plan rank 0 shares before the run, and the few messages of the run itself (a position to
 * run, a packed result, stop, done, quit). Everything else of a rank is the ordinary run:
 * rank 0 is run_ut as always plus remote slots in its pool (worker_pool.c), the other ranks serve
 * positions with forked workers of their own (pc_pool_serve).
 *
 * No rank ever waits inside a blocking MPI receive during the run (Open MPI spins there and
 * would take a core from the workers): they poll (pc_mpi_poll) between short waits on their
 * workers' pipes.
 */
#include <stdlib.h>
#include <string.h>

#include "pc_mpi_config.h"
#include "precheck/core/log.h"
#include "precheck/io/path_check.h"
#include "runner_impl.h"

int pc_mpi_env_size(void)
{
    /* Open MPI's mpirun, MPICH/Hydra and Slurm's srun --mpi=pmi2, MVAPICH */
    static const char *const keys[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const char *v = getenv(keys[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

#ifdef PC_HAVE_MPI
#include <mpi.h>

/* The run's own communicator (a duplicate of the world's). */
static MPI_Comm run_comm = MPI_COMM_NULL;

pc_status pc_mpi_start(pc_mpi *m)
{
    *m = (pc_mpi){.rank = 0, .size = 1, .local_rank = 0, .local_size = 1};
    if (pc_mpi_env_size() <= 1)
        return PC_OK;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return pc_error_set(PC_ERR_IO, "MPI_Init failed: precheck was started by mpirun "
                                       "but could not join its job");
    MPI_Comm_dup(MPI_COMM_WORLD, &run_comm);
    MPI_Comm_rank(run_comm, &m->rank);
    MPI_Comm_size(run_comm, &m->size);
    MPI_Comm local;
    MPI_Comm_split_type(run_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_rank(local, &m->local_rank);
    MPI_Comm_size(local, &m->local_size);
    MPI_Comm_free(&local);
    m->active = true;
    return PC_OK;
}

int pc_mpi_finish(pc_mpi *m, int rc)
{
    if (!m->active)
        return rc;
    if (m->broken) { /* a rank stopped answering: end the whole job */
        MPI_Abort(MPI_COMM_WORLD, rc ? rc : 1);
        return rc;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, run_comm);
    MPI_Comm_free(&run_comm);
    MPI_Finalize();
    m->active = false;
    return rc;
}

pc_status pc_mpi_plan_share(pc_mpi *m, int *go, size_t **apis, size_t *count, char *error_dir,
                            size_t size)
{
    int64_t head[3] = {*go, 0, 0};
    if (m->rank == 0 && *go) {
        head[1] = (int64_t)*count;
        head[2] = (int64_t)strlen(error_dir);
    }
    MPI_Bcast(head, 3, MPI_INT64_T, 0, run_comm);
    *go = (int)head[0];
    if (!*go)
        return PC_OK;
    size_t n = (size_t)head[1];
    uint64_t *wire = malloc((n + 1) * sizeof *wire);
    size_t *mine = m->rank == 0 ? *apis : malloc((n + 1) * sizeof *mine);
    if (!wire || !mine) { /* the broadcast cannot be left half-way: end the job */
        pc_log_error("rank %d: out of memory for the run's plan (%zu APIs)", m->rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; m->rank == 0 && i < n; i++)
        wire[i] = mine[i];
    MPI_Bcast(wire, (int)n, MPI_UINT64_T, 0, run_comm);
    for (size_t i = 0; i < n; i++)
        mine[i] = (size_t)wire[i];
    free(wire);
    char dir[PC_PATH_BUFFER_SIZE + 64] = "";
    if (m->rank == 0)
        snprintf(dir, sizeof dir, "%s", error_dir);
    MPI_Bcast(dir, (int)head[2] + 1, MPI_CHAR, 0, run_comm);
    if (m->rank != 0) {
        *apis = mine;
        *count = n;
        snprintf(error_dir, size, "%s", dir);
    }
    return PC_OK;
}

void pc_mpi_slots_gather(pc_mpi *m, int mine, int *slots)
{
    MPI_Gather(&mine, 1, MPI_INT, slots, 1, MPI_INT, 0, run_comm);
}

void pc_mpi_go_share(pc_mpi *m, int *go)
{
    (void)m;
    MPI_Bcast(go, 1, MPI_INT, 0, run_comm);
}

pc_status pc_mpi_send(pc_mpi *m, int to, int kind, uint64_t pos)
{
    (void)m;
    if (MPI_Send(&pos, 1, MPI_UINT64_T, to, kind, run_comm) != MPI_SUCCESS)
        return pc_error_set(PC_ERR_IO, "MPI: cannot send to rank %d", to);
    return PC_OK;
}

pc_status pc_mpi_send_result(pc_mpi *m, uint64_t pos, const char *bytes, size_t len)
{
    (void)m;
    if (len > (size_t)1 << 30)
        return pc_error_set(PC_ERR_RANGE, "a result of %zu bytes is too large for one message",
                            len);
    char *msg = malloc(len + sizeof pos);
    if (!msg)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    memcpy(msg, &pos, sizeof pos);
    if (len)
        memcpy(msg + sizeof pos, bytes, len);
    int rc = MPI_Send(msg, (int)(len + sizeof pos), MPI_BYTE, 0, PC_MPI_RESULT, run_comm);
    free(msg);
    return rc == MPI_SUCCESS ? PC_OK : pc_error_set(PC_ERR_IO, "MPI: cannot send to rank 0");
}

pc_status pc_mpi_poll(pc_mpi *m, int from, int *kind, int *src, uint64_t *pos, pc_csv_buffer *bytes)
{
    (void)m;
    int flag = 0;
    MPI_Status s;
    *kind = 0;
    MPI_Iprobe(from < 0 ? MPI_ANY_SOURCE : from, MPI_ANY_TAG, run_comm, &flag, &s);
    if (!flag)
        return PC_OK;
    *kind = s.MPI_TAG;
    *src = s.MPI_SOURCE;
    if (s.MPI_TAG != PC_MPI_RESULT) {
        MPI_Recv(pos, 1, MPI_UINT64_T, s.MPI_SOURCE, s.MPI_TAG, run_comm, MPI_STATUS_IGNORE);
        return PC_OK;
    }
    int n = 0;
    MPI_Get_count(&s, MPI_BYTE, &n);
    char *msg = malloc((size_t)n + 1);
    if (!msg)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    MPI_Recv(msg, n, MPI_BYTE, s.MPI_SOURCE, PC_MPI_RESULT, run_comm, MPI_STATUS_IGNORE);
    if ((size_t)n < sizeof *pos) {
        free(msg);
        return pc_error_set(PC_ERR_FORMAT, "MPI: rank %d sent a short result", s.MPI_SOURCE);
    }
    memcpy(pos, msg, sizeof *pos);
    size_t len = (size_t)n - sizeof *pos;
    memmove(msg, msg + sizeof *pos, len);
    msg[len] = 0;
    *bytes = (pc_csv_buffer){.data = msg, .len = len, .cap = len + 1}; /* adopted: freed by reset */
    return PC_OK;
}

#else /* built without MPI */

static pc_status no_mpi(void)
{
    return pc_error_set(PC_ERR_UNSUPPORTED, "this precheck was built without MPI");
}

pc_status pc_mpi_start(pc_mpi *m)
{
    *m = (pc_mpi){.rank = 0, .size = 1, .local_rank = 0, .local_size = 1};
    int n = pc_mpi_env_size();
    if (n > 1)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "precheck was started as one of %d MPI ranks (mpirun), but this "
                            "precheck was built without MPI, so every rank would run the whole "
                            "dump. Build it with Debian's libopenmpi-dev installed (CMake "
                            "-DPRECHECK_MPI=ON), or run without mpirun: one process, or "
                            "--shard K/N runs joined by precheck merge (docs/run_ut.md).",
                            n);
    return PC_OK;
}

int pc_mpi_finish(pc_mpi *m, int rc)
{
    (void)m;
    return rc;
}

pc_status pc_mpi_plan_share(pc_mpi *m, int *go, size_t **apis, size_t *count, char *error_dir,
                            size_t size)
{
    (void)m, (void)go, (void)apis, (void)count, (void)error_dir, (void)size;
    return no_mpi();
}

void pc_mpi_slots_gather(pc_mpi *m, int mine, int *slots)
{
    (void)m, (void)mine, (void)slots;
}

void pc_mpi_go_share(pc_mpi *m, int *go)
{
    (void)m, (void)go;
}

pc_status pc_mpi_send(pc_mpi *m, int to, int kind, uint64_t pos)
{
    (void)m, (void)to, (void)kind, (void)pos;
    return no_mpi();
}

pc_status pc_mpi_send_result(pc_mpi *m, uint64_t pos, const char *bytes, size_t len)
{
    (void)m, (void)pos, (void)bytes, (void)len;
    return no_mpi();
}

pc_status pc_mpi_poll(pc_mpi *m, int from, int *kind, int *src, uint64_t *pos, pc_csv_buffer *bytes)
{
    (void)m, (void)from, (void)src, (void)pos, (void)bytes;
    *kind = 0;
    return no_mpi();
}

#endif
