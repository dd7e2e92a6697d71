/* Calls through a sink, and the CSV sink: msprobe's two files, appended API by API. */
#include "precheck/report/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pc_status pc_sink_api(pc_sink *s, const pc_api_result *res)
{
    return s->vt->api(s->self, res);
}

pc_status pc_sink_finish(pc_sink *s, const pc_run_end *end)
{
    return s->vt->finish ? s->vt->finish(s->self, end) : PC_OK;
}

void pc_sink_free(pc_sink *s)
{
    if (!s || !s->vt)
        return;
    s->vt->free(s->self);
    s->vt = NULL;
    s->self = NULL;
}

/* ---- the CSVs ---- */

typedef struct csv_sink {
    int result_fd, details_fd;
    const char *result_path, *details_path; /* borrowed, for messages */
    int precision;
    pc_csv_buffer details, result;
} csv_sink;

static pc_status write_whole(int fd, const char *path, const pc_csv_buffer *b)
{
    const char *p = b->data;
    size_t n = b->len;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return pc_error_set(PC_ERR_IO, "%s: cannot write: %s", path,
                                w < 0 ? strerror(errno) : "no space");
        p += w;
        n -= (size_t)w;
    }
    return PC_OK;
}

static pc_status csv_api(void *self, const pc_api_result *res)
{
    csv_sink *c = self;
    pc_csv_buffer_clear(&c->details);
    pc_csv_buffer_clear(&c->result);
    pc_status st = pc_api_result_append_csv(res, &c->details, &c->result, c->precision);
    /* details first: a result row is the mark that the API is complete (resume relies on it);
     * each file gets the API's rows in one write, so a kill leaves whole rows or a cut last
     * record, which resume repairs */
    if (st == PC_OK)
        st = write_whole(c->details_fd, c->details_path, &c->details);
    if (st == PC_OK)
        st = write_whole(c->result_fd, c->result_path, &c->result);
    return st;
}

static void csv_free(void *self)
{
    csv_sink *c = self;
    if (c->result_fd >= 0)
        close(c->result_fd);
    if (c->details_fd >= 0)
        close(c->details_fd);
    pc_csv_buffer_free(&c->details);
    pc_csv_buffer_free(&c->result);
    free(c);
}

static const pc_sink_vt csv_vt = {"csv", csv_api, NULL, csv_free};

pc_status pc_sink_csv_open(pc_sink *out, const char *result_path, const char *details_path,
                           int precision)
{
    csv_sink *c = calloc(1, sizeof *c);
    if (!c)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    c->result_path = result_path;
    c->details_path = details_path;
    c->precision = precision;
    c->result_fd = open(result_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    c->details_fd = open(details_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (c->result_fd < 0 || c->details_fd < 0) {
        const char *bad = c->result_fd < 0 ? result_path : details_path;
        pc_status st =
            errno == ELOOP
                ? pc_error_set(PC_ERR_INVALID,
                               "%s is a symbolic link: precheck does not append through links "
                               "(the run's CSVs are files it made); remove the link and resume "
                               "from a copy of the real file",
                               bad)
                : pc_error_set(PC_ERR_IO, "%s: cannot open: %s", bad, strerror(errno));
        csv_free(c);
        return st;
    }
    *out = (pc_sink){&csv_vt, c};
    return PC_OK;
}
