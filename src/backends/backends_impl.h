/* Private to src/backends: the reference device's autocast emulation, and the plug-in loader
 * with the Python host it prepares for plug-ins that embed Python. */
#ifndef PC_BACKENDS_IMPL_H
#define PC_BACKENDS_IMPL_H

#include <stdbool.h>

#include "precheck/backends/backend.h"

/* ---- the reference device's autocast (cpu_autocast.c) ---- */

/* *out: the call as autocast to call->autocast runs it (inputs cast per the AMP op lists);
 * *changed false (and *out untouched) when there is no autocast or it leaves the op alone. */
pc_status pc_cpu_autocast(const pc_op_call *call, pc_op_call *out, bool *changed);
/* The gradients of an autocast call cast back to the dtypes of call's (the original call's)
 * tensors, as autograd hands them back. */
pc_status pc_cpu_autocast_grads(const pc_op_call *call, pc_op_grads *g);

/* ---- plug-ins (loader.c) ---- */

/* Loads the plug-in backend called name: *vt its vtable, *prepared the host to open it with
 * (host's settings, and for a plug-in that embeds Python the interpreter the loader found and
 * loaded). *known: whether name is a plug-in precheck knows of or has a file for; when it is
 * false the status is PC_ERR_NOT_FOUND and no message is set. */
pc_status pc_backend_plugin_load(const char *name, const pc_backend_host *host,
                                 const pc_backend_vtable **vt, pc_backend_host *prepared,
                                 bool *known);
/* Whether name is a plug-in precheck knows of (built or not) or has a file for, as
 * pc_backend_plugin_load reports it in *known. */
bool pc_backend_plugin_known(const char *name);
/* The names of the known plug-ins, for messages: "torch". */
const char *pc_backend_plugin_names(void);

/* Runs argv (execvp) and returns its stdout (malloc'ed) with its wait status in *status and
 * its stderr in *err (malloc'ed); NULL with errno when it could not be started. */
char *pc_backend_capture(char *const argv[], int *status, char **err);

#endif
