/*
 * Plug-in backends: shared objects named precheck-backend-<name>.so that export
 * precheck_backend_plugin() (backends/host_api.h), loaded with dlopen when --backend names
 * them and handed precheck's host table: the only way a plug-in calls precheck (the executable
 * exports nothing).
 *
 * Where: the directory in PRECHECK_PLUGIN_DIR when it is set, else the directory of the
 * precheck executable, else ../lib/precheck beside it (an installed layout).
 *
 * Plug-ins that embed Python (torch) need the user's libpython loaded RTLD_GLOBAL before they
 * are: their own references to Python's symbols, and those of the extension modules Python
 * imports later (torch's), resolve against it. So for them the loader first asks the chosen
 * interpreter (--python, else python3 on PATH) in a child process for its version, shared
 * library and sys.path, then loads that library -- without initialising it: Python starts in
 * each worker, after fork (backend.h, "Processes"). An interpreter without a shared libpython
 * (a static build) cannot be embedded; the error says how to get one.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends_impl.h"
#include "precheck/backends/host_api.h"
#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/core/strbuf.h"

typedef struct plugin_info {
    const char *name;
    bool embeds_python;
} plugin_info;

static const plugin_info known_plugins[] = {
    {"torch", true},
};

const char *pc_backend_plugin_names(void)
{
    return "torch";
}

/* ---- where plug-ins live ---- */

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* path = dir + "/" + file; false when it does not fit. */
static bool join(char *path, size_t size, const char *dir, const char *file)
{
    int n = snprintf(path, size, "%s/%s", dir, file);
    return n > 0 && (size_t)n < size;
}

/* *path: the plug-in file of name, first found; false (with the places looked at in where)
 * when there is none. */
static bool plugin_path(const char *name, char *path, size_t size, char *where, size_t wsize)
{
    char file[128];
    snprintf(file, sizeof file, "precheck-backend-%s.so", name);
    const char *env = getenv("PRECHECK_PLUGIN_DIR");
    if (env && *env) {
        bool ok = join(path, size, env, file) && file_exists(path);
        snprintf(where, wsize, "%s/%s (PRECHECK_PLUGIN_DIR)", env, file);
        return ok;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(where, wsize, "(the precheck executable's directory is unknown)");
        return false;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    if (join(path, size, exe, file) && file_exists(path))
        return true;
    char installed[PATH_MAX + 32];
    if (!join(installed, sizeof installed, exe, "../lib/precheck"))
        installed[0] = 0;
    if (join(path, size, installed, file) && file_exists(path))
        return true;
    if (snprintf(where, wsize, "%s/%s and %s/%s", exe, file, installed, file) >= (int)wsize)
        where[wsize - 1] = 0; /* a cut list of places is still a message */
    return false;
}

/* ---- the Python host ---- */

/*
 * What the interpreter prints, one item a line: the version, sys.executable, whether it has a
 * shared library, LIBDIR, INSTSONAME (the runtime library's file name; LDLIBRARY names the
 * linker's symlink, which only a -dev package installs), the base prefixes (PYTHONHOME for the
 * embedded interpreter: the standard library lives there, also for a venv), then sys.path
 * without the script directory ('' for -c).
 */
static const char query_script[] = "import sys, sysconfig\n"
                                   "v = sysconfig.get_config_var\n"
                                   "print('%d.%d.%d' % sys.version_info[:3])\n"
                                   "print(sys.executable)\n"
                                   "print(v('Py_ENABLE_SHARED') or 0)\n"
                                   "print(v('LIBDIR') or '')\n"
                                   "print(v('INSTSONAME') or '')\n"
                                   "print(sys.base_prefix)\n"
                                   "print(sys.base_exec_prefix)\n"
                                   "for p in sys.path[1:]: print(p)\n";

#define PY_MAX_PATH 64

static pc_python_env py_env;
static char *py_path_items[PY_MAX_PATH];
static char py_home[2 * PATH_MAX + 2];
static char py_library[PATH_MAX];
static char py_executable[PATH_MAX];
static char py_command[PATH_MAX];
static char py_version[32];
static bool py_loaded;

/* Appends what fd has to b; false at its end or on an error (an out-of-memory stays in b). */
static bool drain(int fd, pc_strbuf *b)
{
    enum { CHUNK = 4096 };
    char *room = pc_strbuf_extend(b, CHUNK);
    if (!room)
        return false;
    ssize_t r = read(fd, room, CHUNK);
    int e = errno;
    pc_strbuf_truncate(b, pc_strbuf_len(b) - CHUNK + (r > 0 ? (size_t)r : 0));
    if (r < 0 && e == EINTR)
        return true;
    return r > 0;
}

/* Runs argv and returns its stdout (malloc'ed) with its wait status; NULL with errno when it
 * could not be started (also a failed exec: its errno comes back through a close-on-exec
 * pipe). stderr goes to *err (malloc'ed). */
char *pc_backend_capture(char *const argv[], int *status, char **err)
{
    int out[2] = {-1, -1}, errp[2] = {-1, -1}, ex[2] = {-1, -1};
    if (pipe(out) != 0 || pipe(errp) != 0 || pipe(ex) != 0 ||
        fcntl(ex[1], F_SETFD, FD_CLOEXEC) != 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            if (out[i] >= 0)
                close(out[i]);
            if (errp[i] >= 0)
                close(errp[i]);
            if (ex[i] >= 0)
                close(ex[i]);
        }
        errno = e;
        return NULL;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        dup2(errp[1], STDERR_FILENO);
        close(out[0]), close(out[1]), close(errp[0]), close(errp[1]), close(ex[0]);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(ex[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    int fork_errno = errno;
    close(out[1]), close(errp[1]), close(ex[1]);
    if (pid < 0) {
        close(out[0]), close(errp[0]), close(ex[0]);
        errno = fork_errno;
        return NULL;
    }
    pc_strbuf out_text = PC_STRBUF_INIT, err_text = PC_STRBUF_INIT;
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    while (fds[0].fd >= 0 || fds[1].fd >= 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[0].fd >= 0 && fds[0].revents && !drain(out[0], &out_text))
            fds[0].fd = -1;
        if (fds[1].fd >= 0 && fds[1].revents && !drain(errp[0], &err_text))
            fds[1].fd = -1;
    }
    close(out[0]), close(errp[0]);
    int e = 0;
    ssize_t got = read(ex[0], &e, sizeof e);
    close(ex[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    *status = st;
    char *buf = NULL, *ebuf = NULL;
    if (got != (ssize_t)sizeof e && !pc_strbuf_error(&out_text) && !pc_strbuf_error(&err_text)) {
        buf = pc_strbuf_finish(&out_text, NULL);
        ebuf = pc_strbuf_finish(&err_text, NULL);
    }
    pc_strbuf_reset(&out_text);
    pc_strbuf_reset(&err_text);
    if (!buf || !ebuf) {
        free(buf);
        free(ebuf);
        errno = got == (ssize_t)sizeof e ? e : ENOMEM;
        return NULL;
    }
    *err = ebuf;
    return buf;
}

/* The last non-empty line of text (a traceback's message), in buf. */
static const char *last_line(const char *text, char *buf, size_t size)
{
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == ' '))
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    snprintf(buf, size, "%.*s", (int)(end - start), start);
    return buf;
}

static char *next_line(char **p)
{
    char *s = *p;
    if (!s || !*s)
        return NULL;
    char *nl = strchr(s, '\n');
    if (nl) {
        *nl = 0;
        *p = nl + 1;
    } else {
        *p = s + strlen(s);
    }
    return s;
}

/* Queries the interpreter and loads its shared library (once per process). */
static pc_status python_prepare(const char *python, const pc_python_env **out)
{
    if (py_loaded) {
        *out = &py_env;
        return PC_OK;
    }
    const char *exe = python && *python ? python : "python3";
    /* exec takes char *const[] (for old callers' sake); it writes none of them */
    char *argv[] = {(char *)(uintptr_t)exe, "-c", (char *)(uintptr_t)query_script, NULL};
    int status = 0;
    char *err = NULL;
    char *text = pc_backend_capture(argv, &status, &err);
    if (!text)
        return pc_error_set(PC_ERR_NOT_FOUND,
                            "cannot run the Python interpreter '%s': %s (name one with --python "
                            "PATH; the torch backend runs APIs through that Python's PyTorch)",
                            exe, strerror(errno));
    char line[512];
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        pc_status st = pc_error_set(PC_ERR_INVALID,
                                    "the Python interpreter '%s' failed when asked for its "
                                    "configuration: %s",
                                    exe, err ? last_line(err, line, sizeof line) : "");
        free(text);
        free(err);
        return st;
    }
    free(err);
    char *p = text;
    const char *version = next_line(&p), *executable = next_line(&p), *shared = next_line(&p),
               *libdir = next_line(&p), *soname = next_line(&p), *base = next_line(&p),
               *base_exec = next_line(&p);
    pc_status st = PC_OK;
    int major = 0, minor = 0;
    if (!base_exec || sscanf(version, "%d.%d", &major, &minor) != 2) {
        st = pc_error_set(PC_ERR_FORMAT, "'%s' did not answer like a Python interpreter", exe);
    } else if (major != 3 || minor < 8) {
        st = pc_error_set(PC_ERR_UNSUPPORTED,
                          "'%s' is Python %s; the torch backend needs Python 3.8 or later", exe,
                          version);
    } else if (strcmp(shared, "1") != 0 || !*soname || !*libdir) {
        st = pc_error_set(PC_ERR_UNSUPPORTED,
                          "'%s' (Python %s) has no shared libpython to embed (it was built "
                          "without --enable-shared, as pyenv builds by default): use a Python "
                          "with one (Debian's python3, conda's, or pyenv with "
                          "PYTHON_CONFIGURE_OPTS=--enable-shared) with --python PATH",
                          executable, version);
    }
    if (st == PC_OK) {
        snprintf(py_library, sizeof py_library, "%s/%s", libdir, soname);
        snprintf(py_executable, sizeof py_executable, "%s", executable);
        snprintf(py_version, sizeof py_version, "%s", version);
        if (strcmp(base, base_exec) == 0)
            snprintf(py_home, sizeof py_home, "%s", base);
        else
            snprintf(py_home, sizeof py_home, "%s:%s", base, base_exec);
        int n = 0;
        for (char *item; n < PY_MAX_PATH && (item = next_line(&p));)
            if (*item && (py_path_items[n] = strdup(item)) != NULL)
                n++;
        py_env.path = (const char *const *)py_path_items;
        py_env.npath = n;
        snprintf(py_command, sizeof py_command, "%s", exe);
        py_env.command = py_command;
        py_env.executable = py_executable;
        py_env.version = py_version;
        py_env.library = py_library;
        py_env.home = py_home;
        /* the interpreter starts in the workers; here its library is only mapped, so that the
         * plug-in and the extension modules it imports later resolve against it */
        if (!dlopen(py_library, RTLD_NOW | RTLD_GLOBAL))
            st = pc_error_set(PC_ERR_NOT_FOUND, "cannot load %s, the shared library of '%s': %s",
                              py_library, executable, dlerror());
        else
            py_loaded = true;
    }
    free(text);
    if (st == PC_OK)
        *out = &py_env;
    return st;
}

/* ---- the host table (host_api.h) ---- */

static const pc_host_api host_api = {
    .version = PC_HOST_API_VERSION,
    .size = sizeof(pc_host_api),
    .error_set = pc_error_set,
    .error_message = pc_error_message,
    .log_info = pc_log_info,
    .log_warning = pc_log_warning,
    .log_error = pc_log_error,
    .clock_seconds = pc_clock_seconds,
    .dtype_name = pc_dtype_name,
    .dtype_is_float = pc_dtype_is_float,
    .dtype_is_complex = pc_dtype_is_complex,
    .tensor_alloc = pc_tensor_alloc,
    .tensor_wrap = pc_tensor_wrap,
    .tensor_share = pc_tensor_share,
    .tensor_data = pc_tensor_data,
    .tensor_free = pc_tensor_free,
    .op_call_record_tensor = pc_op_call_record_tensor,
    .op_result_free = pc_op_result_free,
    .op_grads_free = pc_op_grads_free,
    .capture = pc_backend_capture,
    .backend_cpu = &pc_backend_cpu,
};

/* ---- opening ---- */

static const plugin_info *known_plugin(const char *name)
{
    for (size_t i = 0; i < sizeof known_plugins / sizeof known_plugins[0]; i++)
        if (strcmp(known_plugins[i].name, name) == 0)
            return &known_plugins[i];
    return NULL;
}

bool pc_backend_plugin_known(const char *name)
{
    char path[PATH_MAX + 64], where[2 * PATH_MAX + 160];
    return known_plugin(name) || plugin_path(name, path, sizeof path, where, sizeof where);
}

pc_status pc_backend_plugin_load(const char *name, const pc_backend_host *host,
                                 const pc_backend_vtable **vt, pc_backend_host *prepared,
                                 bool *known)
{
    const plugin_info *info = known_plugin(name);
    char path[PATH_MAX + 64], where[2 * PATH_MAX + 160];
    *known = info != NULL;
    if (!plugin_path(name, path, sizeof path, where, sizeof where)) {
        if (!info)
            return PC_ERR_NOT_FOUND;
        return pc_error_set(PC_ERR_NOT_FOUND,
                            "the %s backend is a plug-in that this precheck was built without "
                            "(looked for %s): build it with Python's development headers "
                            "installed (Debian: python3-dev), see docs/development.md",
                            name, where);
    }
    *known = true; /* a plug-in file of that name: its errors are its own */
    *prepared = host ? *host : (pc_backend_host){0};
    if (info && info->embeds_python) {
        pc_status st = python_prepare(prepared->python, &prepared->python_env);
        if (st != PC_OK)
            return st;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl)
        return pc_error_set(PC_ERR_INVALID, "cannot load the %s backend %s: %s", name, path,
                            dlerror());
    pc_backend_plugin_fn entry = NULL;
    void *sym = dlsym(dl, PC_BACKEND_PLUGIN_ENTRY);
    memcpy(&entry, &sym, sizeof entry); /* a data pointer to a function pointer, POSIX's way */
    if (!entry)
        return pc_error_set(PC_ERR_INVALID, "%s is not a precheck backend (no %s)", path,
                            PC_BACKEND_PLUGIN_ENTRY);
    /* never dlclose'd: a plug-in that started Python cannot be unloaded */
    char why[512] = "";
    *vt = entry(&host_api, why, sizeof why);
    if (!*vt)
        return pc_error_set(PC_ERR_UNSUPPORTED, "cannot use the %s backend %s: %s", name, path,
                            why[0] ? why : "its entry refused precheck's host table");
    return PC_OK;
}
