/*
 * Path security checks applied to every path a user gives (docs/msprobe-contract.md#command-line),
 * with msprobe's messages, and the safe creation of output directories and files.
 *
 * pc_path_check() runs, in this order, and stops at the first failure:
 *   1. the path exists (stat, symlinks followed)          "The file path <p> does not exist."
 *   2. the given path, made absolute and normalised without touching the file system, is not
 *      itself a symlink                                   "The file path <p> is a soft link."
 *   3. the path is resolved (symlinks in parent directories are allowed; see pc_path_resolve)
 *      and is at most 4096 characters, its last component at most 255
 *                                                         "The file path length exceeds limit."
 *   4. it is a regular file / a directory                 "The <r> should be a file!" or
 *                                                         "The <r> should be a dictionary!" (sic)
 *   5. access(): readable, then writable, as asked        "The file path <r> is not readable."
 *                                                         "The file path <r> is not writable."
 *   6. it belongs to the process's user, unless that is root
 *                "The file path <r> may be insecure because is does not belong to you." (sic)
 *   7. the resolved path matches ^[a-zA-Z0-9_.:/-]+$      "The file path <r> contains special
 *                                                          characters."
 *   8. regular files only: its size is below the limit of its suffix (pc_path_size_limit)
 *                      "The size (<n>) of <r> exceeds (<max>) bytes, tools not support."
 *   9. the resolved path ends with the required suffix    "The <r> should be a <suffix> file!"
 *  10. a WARNING when it is group-writable ("The directory/file path is writable by group:
 *      <r>."), then an error when it is writable by others
 *        "The directory/file must not allow write access to others. Directory/File path: <r>"
 *  11. files only: WARNINGs when the parent directory is writable by others ("The directory is
 *      writable by others: <d>.") or belongs to someone else ("The directory <d> is not yours.").
 * <p> is the path as given, <r> the resolved path, <d> the resolved parent directory. Each
 * warning is logged once per process for a given path (as msprobe's dedup_log does).
 *
 * Errors are not logged here: a failing function returns a status and sets the message
 * (pc_error_set) to exactly msprobe's text, and the caller decides how to report it. Statuses:
 * PC_ERR_NOT_FOUND (1), PC_ERR_RANGE (size limit, or the `resolved` buffer is too small),
 * PC_ERR_NOMEM, PC_ERR_IO (a directory could not be created, a mode not changed), PC_ERR_INVALID
 * for every other failed check.
 *
 * Nothing here keeps pointers to its arguments. The functions are thread-safe.
 */
#ifndef PC_IO_PATH_CHECK_H
#define PC_IO_PATH_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"

typedef enum pc_path_kind {
    PC_PATH_FILE, /* a regular file (after symlinks in parent directories are followed) */
    PC_PATH_DIR,  /* a directory */
} pc_path_kind;

/* Access to check with access(2) (real uid), as a bit set; 0 checks neither. */
enum { PC_PATH_READ = 1u << 0, PC_PATH_WRITE = 1u << 1 };

enum {
    PC_PATH_LENGTH_MAX = 4096,     /* characters (code points) in a whole resolved path */
    PC_PATH_NAME_LENGTH_MAX = 255, /* characters in its last component */
    /* A `resolved` buffer of this size always fits a path that passed pc_path_check (the
     * character whitelist makes it ASCII, so characters are bytes). */
    PC_PATH_BUFFER_SIZE = PC_PATH_LENGTH_MAX + 1,
};

/* Modes msprobe gives what it creates: directories 0750 (before the umask), files 0640. */
/* What the character check's message adds to msprobe's first sentence: what to do. */
#define PC_PATH_CHARS_HINT                                                                         \
    " Only letters, digits and _ . : / - are allowed (no spaces or other characters): rename or "  \
    "move it."
#define PC_PATH_DIR_CHARS_HINT                                                                     \
    " Only letters, digits and _ . / - are allowed in a path precheck creates (no spaces, no "     \
    "colon): choose another."

#define PC_PATH_DIR_MODE  0750
#define PC_PATH_FILE_MODE 0640

/* Runs checks 1-11 above on `path`. required_suffix (e.g. ".json") may be NULL or "" for none.
 * On success, when `resolved` is not NULL, copies the resolved path there (PC_ERR_RANGE if it
 * does not fit in resolved_size bytes with its NUL). */
pc_status pc_path_check(const char *path, pc_path_kind kind, unsigned access,
                        const char *required_suffix, char *resolved, size_t resolved_size);

/* Check 2 alone, msprobe's link rule for a path precheck reads: the given path, made absolute
 * and normalised without touching the file system, is not itself a symlink. PC_ERR_INVALID with
 * "The file path <p> is a soft link." (p as given); PC_OK for a path that does not exist. For
 * the files a command finds by itself in a folder (report's CSVs and JSON files, merge's run
 * records), and for paths it reads that pc_path_check's other checks would refuse for no
 * reason of safety (report's DIR: any name, anyone's folder). */
pc_status pc_path_check_not_link(const char *path);

/* What msprobe checks before it writes a file or creates a directory at `path`, which need not
 * exist: the given path is not a symlink (as check 2), the resolved path is at most 4096
 * characters and the given path's last component at most 255 ("The file path length exceeds
 * limit."), and the resolved path matches the stricter ^[a-zA-Z0-9_./-]+$ (no colon): "The file
 * path <p> contains special characters." with <p> as given. */
pc_status pc_path_check_before_create(const char *path);

/* Creates the directory `path` and any missing parents (msprobe's create_directory): each
 * missing level is checked with pc_path_check_before_create() from the deepest up, then created
 * with mode PC_PATH_DIR_MODE (the umask applies) and checked as a directory (checks 1-10, no
 * access). An existing directory is accepted after pc_path_check_before_create() alone; check it
 * with pc_path_check() for the access you need. More than 16 missing levels are refused, as in
 * msprobe. A failing mkdir gives PC_ERR_IO: "Failed to create <r>. Please check the path
 * permission or disk space. [Errno <n>] <strerror>: '<r>'". */
pc_status pc_path_make_dir(const char *path);

/* Gives a file msprobe's mode for written files, PC_PATH_FILE_MODE; does nothing (PC_OK) when
 * the path does not exist or is a symlink. On failure PC_ERR_IO: "Failed to change <p>
 * authority. [Errno <n>] <strerror>: '<p>'". */
pc_status pc_path_set_file_mode(const char *path);

/* Resolves `path` the way Python's os.path.realpath (non-strict) does: relative to the current
 * directory, "." and ".." and repeated slashes removed, every symlink that exists followed; a
 * component that does not exist, and everything after it, is kept as written, and a symlink
 * loop is left unresolved. *resolved is malloc'd (free() it). PC_ERR_NOMEM, or PC_ERR_IO when
 * the current directory cannot be read. */
pc_status pc_path_resolve(const char *path, char **resolved);

/* The size a regular file must stay strictly below, by its suffix: .json .pt .npy .zip .log .db
 * 10 GiB; .csv .yaml .pkl .xlsx .ir 1 GiB; anything else 1 MiB. */
uint64_t pc_path_size_limit(const char *path);

/* Whether `path` is non-empty and made only of [a-zA-Z0-9_./-], plus ':' when allow_colon. */
bool pc_path_chars_valid(const char *path, bool allow_colon);

#endif
