/* The backend registry: the built-in vtables, opening by name or by --backend spec (plug-ins
 * through loader.c), and the calls through an opened backend. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "backends_impl.h"

static const pc_backend_vtable *const builtins[] = {
    &pc_backend_cpu,
    &pc_backend_bench,
    &pc_backend_replay,
    &pc_backend_faulty,
};

const pc_backend_vtable *pc_backend_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i]->name, name) == 0)
            return builtins[i];
    return NULL;
}

pc_status pc_backend_open(pc_backend *out, const pc_backend_vtable *vt, const char *options,
                          const pc_backend_host *host)
{
    if (!vt || vt->abi_version != PC_BACKEND_ABI_VERSION)
        return pc_error_set(PC_ERR_UNSUPPORTED, "backend %s: ABI version %d, precheck needs %d",
                            vt && vt->name ? vt->name : "?", vt ? vt->abi_version : -1,
                            PC_BACKEND_ABI_VERSION);
    static const pc_backend_host no_host;
    void *state = NULL;
    pc_status st = vt->open(&state, options, host ? host : &no_host);
    if (st != PC_OK)
        return pc_error_prefix(st, "backend %s", vt->name);
    out->vt = vt;
    out->state = state;
    return PC_OK;
}

/* name = spec's NAME (of NAME or NAME:OPTIONS); false when it is empty or too long. */
static bool spec_name(const char *spec, char *name, size_t size)
{
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len == 0 || len >= size)
        return false;
    memcpy(name, spec, len);
    name[len] = 0;
    return true;
}

bool pc_backend_name_known(const char *spec)
{
    char name[64];
    if (!spec || !spec_name(spec, name, sizeof name))
        return false;
    return pc_backend_find(name) || pc_backend_plugin_known(name);
}

const char *pc_backend_suggest(const char *spec)
{
    static const struct {
        const char *typed, *meant;
    } guesses[] = {{"npu", "torch:npu"}, {"cuda", "torch:cuda"}, {"gpu", "torch:cuda"}};
    char name[64];
    if (!spec || !spec_name(spec, name, sizeof name))
        return NULL;
    for (size_t i = 0; i < sizeof guesses / sizeof guesses[0]; i++)
        if (strcasecmp(name, guesses[i].typed) == 0)
            return guesses[i].meant;
    return NULL;
}

void pc_backend_choices(char *buf, size_t size)
{
    if (size)
        snprintf(buf, size, "cpu, %s:DEVICE, replay, faulty:FAULT:OP", pc_backend_plugin_names());
}

pc_status pc_backend_open_spec(pc_backend *out, const char *spec, const pc_backend_host *host)
{
    char name[64];
    if (!spec_name(spec, name, sizeof name))
        return pc_error_set(PC_ERR_INVALID, "'%s' does not name a backend (NAME or NAME:OPTIONS)",
                            spec);
    const char *colon = strchr(spec, ':');
    const char *options = colon ? colon + 1 : NULL;
    const pc_backend_vtable *vt = pc_backend_find(name);
    if (vt)
        return pc_backend_open(out, vt, options, host);
    bool known = false;
    pc_backend_host prepared;
    pc_status st = pc_backend_plugin_load(name, host, &vt, &prepared, &known);
    if (st == PC_OK)
        return pc_backend_open(out, vt, options, &prepared);
    if (known)
        return st;
    const char *meant = pc_backend_suggest(spec);
    return pc_error_set(PC_ERR_NOT_FOUND,
                        "precheck has no backend '%s'; it has cpu, replay, faulty:FAULT:OP and "
                        "%s:DEVICE%s%s%s",
                        name, pc_backend_plugin_names(), meant ? " (did you mean " : "",
                        meant ? meant : "", meant ? "?)" : "");
}

void pc_backend_close(pc_backend *b)
{
    if (!b || !b->vt)
        return;
    b->vt->close(b->state);
    b->vt = NULL;
    b->state = NULL;
}

void pc_backend_worker_start(const pc_backend *b, int worker)
{
    if (b && b->vt && b->vt->worker_start)
        b->vt->worker_start(b->state, worker);
}

void pc_backend_describe(const pc_backend *b, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = 0;
    if (b && b->vt && b->vt->describe)
        b->vt->describe(b->state, buf, size);
    else if (b && b->vt)
        snprintf(buf, size, "device under test: backend %s", b->vt->name);
}

bool pc_backend_supports(const pc_backend *b, const pc_op_call *call, char *why, size_t size)
{
    return b->vt->supports(b->state, call, why, size);
}

void pc_backend_idle(const pc_backend *b)
{
    if (b && b->vt && b->vt->idle)
        b->vt->idle(b->state);
}

pc_status pc_backend_forward(const pc_backend *b, const pc_op_call *call, pc_op_result *out)
{
    return b->vt->forward(b->state, call, out);
}

pc_status pc_backend_backward(const pc_backend *b, const pc_op_call *call,
                              const pc_tensor *grad_out, pc_op_grads *out)
{
    return b->vt->backward(b->state, call, grad_out, out);
}
