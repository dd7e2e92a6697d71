/*
 * Private to io/ and its tests: hooks that let the tests reach the branches of the path checks
 * that depend on who runs them (the owner check is skipped for root, and access() always says
 * yes to root, which is how CI runs). Not thread-safe; set them before checking paths.
 */
#ifndef PC_IO_PATH_CHECK_IMPL_H
#define PC_IO_PATH_CHECK_IMPL_H

/* The uid the owner checks compare against (and treat as root when 0); negative (the default)
 * means getuid(). */
void pc_path_testing_set_uid(long uid);

/* The function used instead of access(2); NULL (the default) means access(2). */
void pc_path_testing_set_access(int (*access_fn)(const char *path, int mode));

/* Forgets which warnings were already logged, so that a test sees them again. */
void pc_path_testing_forget_warnings(void);

#endif
