/*
 * The command-line parser of every precheck command: a table of options per command, parsed
 * by the rules of Python's argparse (3.11), which msprobe's parsers use with their defaults, so
 * that every spelling a user types for msprobe means the same to precheck:
 *
 *  - an option is one of its names (-o, --out_path), or the name and its value joined by '='
 *    (--out_path=DIR, -api_info=FILE); a single-character option also takes its value attached
 *    (-oDIR, -d0), and single-character switches combine (-fj is -f -j, -foDIR is -f -o DIR);
 *  - an unambiguous prefix of a name stands for it (--api_info for --api_info_file, --out=DIR,
 *    -api_inf FILE; a single-dash prefix takes no "=value"); a prefix that several names start
 *    with is an error naming them ("ambiguous option: -c could match -csv_path, -config").
 *    Prefixes resolve among msprobe's options first: precheck's own (PC_ARGS_PRECHECK) are
 *    reached by a prefix only when no msprobe option starts with it, so --conf still means
 *    msprobe's --config_path next to precheck's --config_yaml;
 *  - a value never starts with '-' unless it looks like a negative number (-5, -.5: no option
 *    looks like one), contains a space, or is "-" itself; so a missing value is an error
 *    ("argument -o/--out_path: expected one argument") instead of swallowing the next option.
 *    "--" ends the options: what follows is unrecognized (precheck's commands take no
 *    positional arguments);
 *  - a PC_ARGS_VALUES option (nargs='+') takes every following value up to the next option;
 *  - errors come in argparse's order: an ambiguous prefix anywhere first, then, option by
 *    option, a missing value or a value the command refuses, then the missing required
 *    options, then every argument nobody took ("unrecognized arguments: ...").
 *
 * A usage error prints the command's usage lines and "PROG: error: MESSAGE" on stderr and
 * makes the exit status 2; -h/--help prints the help on stdout (exit 0).
 */
#ifndef PC_CLI_ARGS_H
#define PC_CLI_ARGS_H

#include <stdbool.h>
#include <stdio.h>

typedef enum pc_args_kind {
    PC_ARGS_SWITCH, /* no value (argparse's store_true) */
    PC_ARGS_VALUE,  /* one value */
    PC_ARGS_VALUES, /* one or more values (nargs='+') */
    PC_ARGS_HELP,   /* a switch that prints the command's help and ends the parse (exit 0) */
} pc_args_kind;

enum { PC_ARGS_MAX_NAMES = 3 };

/* One option: what the table of flags (flags.h) says about it, once for every command. */
typedef struct pc_args_option {
    int id;                               /* its index in its table */
    const char *names[PC_ARGS_MAX_NAMES]; /* as argparse declares them, NULL after the last */
    pc_args_kind kind;
    bool precheck; /* precheck's own, not msprobe's: a prefix reaches it only as a last resort */
} pc_args_option;

typedef struct pc_args_command pc_args_command;

/* What a command does with one use of an option, in argv order: values[0..count) are its
 * values (argv strings; none for a switch). Returns PC_ARGS_RUN to go on, or the exit status to
 * end the parse with: pc_args_usage_error()'s 2, or 0 when it printed what was asked for. */
typedef int (*pc_args_take_fn)(void *ctx, const pc_args_command *cmd, int id, char **values,
                               int count);

struct pc_args_command {
    const char *prog;            /* "precheck run_ut": the start of every error line */
    const pc_args_option *table; /* the options by id */
    const int *options;          /* the ids this command takes, in declaration order; -1 ends */
    const int *required;         /* the ids it must be given, -1 ends; NULL: none */
    /* The usage lines printed before an error, and the whole help (on -h, to stdout). */
    void (*print_usage)(FILE *out, const pc_args_command *cmd);
    void (*print_help)(FILE *out, const pc_args_command *cmd);
    const void *data;       /* the command's own, for its print functions */
    bool stops_at_argument; /* the top level: the options end at the first argument (the
                               command's name), whose index pc_args_parse gives back */
};

enum { PC_ARGS_RUN = -1 };

/*
 * Parses argv[1..argc) (argv[0] is the command's name) and calls take for every option used.
 * Returns PC_ARGS_RUN when the command is to run, else the exit status: 0 after the help, 2
 * after a usage error (printed). With cmd->stops_at_argument, *next is the index of the first
 * argument that is no option or option value (argc when there is none); next is not used
 * otherwise.
 */
int pc_args_parse(const pc_args_command *cmd, int argc, char **argv, pc_args_take_fn take,
                  void *ctx, int *next);

/* Prints cmd's usage and "PROG: error: MESSAGE" (printf-style) on stderr; returns 2, the exit
 * status of a usage error. */
int pc_args_usage_error(const pc_args_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* For the commands with parsers of their own (report, merge): the option of names (a NULL-
 * terminated list such as {"--output", "--error-data", NULL}) that arg, an unknown option,
 * most likely meant: the same name once dashes and underscores are alike and case is ignored
 * (--error_data, -error-data), or the one name it begins (--out for --output; 2 letters at
 * least). NULL when there is none or several. */
const char *pc_args_suggest(const char *arg, const char *const *names);

#endif
