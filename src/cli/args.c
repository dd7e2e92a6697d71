/*
 * argparse's rules (args.h) over a command's table of options. The parse has argparse's two
 * passes: every argument is first classified on its own (an option, which one and with what
 * attached value; a plain argument; "--"; an unknown option; an ambiguous prefix), then the
 * options are taken from left to right, each with the values that follow it -- a value being
 * an argument classified as plain, so that a missing value never swallows the next option.
 */
#include "cli/args.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum token_kind {
    TOKEN_ARGUMENT,  /* a value, or an argument nobody takes */
    TOKEN_DASHDASH,  /* "--": every argument after it is plain */
    TOKEN_OPTION,    /* one of the command's options */
    TOKEN_UNKNOWN,   /* looks like an option, is none */
    TOKEN_AMBIGUOUS, /* a prefix of several options' names */
} token_kind;

typedef struct token {
    token_kind kind;
    const pc_args_option *option; /* TOKEN_OPTION */
    const char *name;             /* the name it stands for (a table string) */
    char *value; /* the value attached to it (after '=' or a short name), or NULL */
} token;

int pc_args_usage_error(const pc_args_command *cmd, const char *fmt, ...)
{
    fflush(stdout);
    cmd->print_usage(stderr, cmd);
    fprintf(stderr, "%s: error: ", cmd->prog);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* "-o/--out_path", as argparse names an option in its messages. */
static const char *names_of(const pc_args_option *o, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < PC_ARGS_MAX_NAMES && o->names[k]; k++) {
        int n = snprintf(buf + len, size - len, "%s%s", k ? "/" : "", o->names[k]);
        if (n < 0 || (size_t)n >= size - len)
            break;
        len += (size_t)n;
    }
    return buf;
}

/* The option one of whose names is s[0..len), with that name in *name; NULL when none is. */
static const pc_args_option *find_exact(const pc_args_command *cmd, const char *s, size_t len,
                                        const char **name)
{
    for (const int *id = cmd->options; *id >= 0; id++) {
        const pc_args_option *o = &cmd->table[*id];
        for (int k = 0; k < PC_ARGS_MAX_NAMES && o->names[k]; k++)
            if (strlen(o->names[k]) == len && memcmp(o->names[k], s, len) == 0) {
                *name = o->names[k];
                return o;
            }
    }
    return NULL;
}

/*
 * The names arg may abbreviate, among msprobe's options (precheck false) or precheck's own:
 * with "--", the names that start with arg up to its '=' (the rest is the value); with one
 * '-', a single-character name equal to arg's first two characters (the rest of arg is the
 * value) and the names that start with the whole of arg. Returns how many there are; the
 * first is in *first, and, when list is not NULL, all of them, ", "-separated, in list.
 */
static int find_prefixes(const pc_args_command *cmd, char *arg, bool precheck, token *first,
                         char *list, size_t size)
{
    bool dashdash = arg[1] == '-';
    char *eq = dashdash ? strchr(arg, '=') : NULL;
    size_t prefix_len = eq ? (size_t)(eq - arg) : strlen(arg);
    int count = 0;
    size_t used = 0;
    for (const int *id = cmd->options; *id >= 0; id++) {
        const pc_args_option *o = &cmd->table[*id];
        if (o->precheck != precheck)
            continue;
        for (int k = 0; k < PC_ARGS_MAX_NAMES && o->names[k]; k++) {
            const char *name = o->names[k];
            char *value = NULL;
            if (dashdash) {
                if (strncmp(name, arg, prefix_len) != 0)
                    continue;
                value = eq ? eq + 1 : NULL;
            } else if (strlen(name) == 2 && name[0] == arg[0] && name[1] == arg[1]) {
                value = arg + 2;
            } else if (strncmp(name, arg, prefix_len) != 0) {
                continue;
            }
            if (count++ == 0)
                *first = (token){TOKEN_OPTION, o, name, value};
            if (list) {
                int n = snprintf(list + used, size - used, "%s%s", used ? ", " : "", name);
                if (n > 0 && (size_t)n < size - used)
                    used += (size_t)n;
            }
        }
    }
    return count;
}

/* Python's "^-\d+$|^-\d*\.\d+$" ('$' also before a final newline). */
static bool looks_negative(const char *s)
{
    if (s[0] != '-')
        return false;
    const char *p = s + 1;
    size_t whole = strspn(p, "0123456789");
    p += whole;
    if (*p == '.') {
        size_t frac = strspn(p + 1, "0123456789");
        if (frac == 0)
            return false;
        p += 1 + frac;
    } else if (whole == 0) {
        return false;
    }
    return p[0] == '\0' || (p[0] == '\n' && p[1] == '\0');
}

static bool has_negative_names(const pc_args_command *cmd)
{
    for (const int *id = cmd->options; *id >= 0; id++) {
        const pc_args_option *o = &cmd->table[*id];
        for (int k = 0; k < PC_ARGS_MAX_NAMES && o->names[k]; k++)
            if (looks_negative(o->names[k]))
                return true;
    }
    return false;
}

/* What arg is on its own (argparse's _parse_optional). */
static token classify(const pc_args_command *cmd, char *arg, bool negative_names)
{
    token t = {TOKEN_ARGUMENT, NULL, NULL, NULL};
    if (arg[0] != '-')
        return t;
    if ((t.option = find_exact(cmd, arg, strlen(arg), &t.name))) {
        t.kind = TOKEN_OPTION;
        return t;
    }
    if (arg[1] == '\0')
        return t;
    char *eq = strchr(arg, '=');
    if (eq && (t.option = find_exact(cmd, arg, (size_t)(eq - arg), &t.name))) {
        t.kind = TOKEN_OPTION;
        t.value = eq + 1;
        return t;
    }
    int n = find_prefixes(cmd, arg, false, &t, NULL, 0);
    if (n == 0)
        n = find_prefixes(cmd, arg, true, &t, NULL, 0);
    if (n > 1)
        return (token){TOKEN_AMBIGUOUS, NULL, NULL, NULL};
    if (n == 1)
        return t;
    if (looks_negative(arg) && !negative_names)
        return t;
    if (strchr(arg, ' '))
        return t;
    return (token){TOKEN_UNKNOWN, NULL, NULL, NULL};
}

static int ambiguous_error(const pc_args_command *cmd, char *arg)
{
    char list[1024];
    token first;
    if (find_prefixes(cmd, arg, false, &first, list, sizeof list) < 2)
        find_prefixes(cmd, arg, true, &first, list, sizeof list);
    return pc_args_usage_error(cmd, "ambiguous option: %s could match %s", arg, list);
}

/* The state of one parse. */
typedef struct parse {
    const pc_args_command *cmd;
    int argc;
    char **argv;
    token *tokens; /* by argv index */
    int *extras;   /* the argv indexes nobody took */
    int extra_count;
    bool *seen; /* by option id */
    pc_args_take_fn take;
    void *ctx;
} parse;

/* One use of an option within an argument (several for combined switches, -fj). */
typedef struct use {
    const pc_args_option *option;
    char **values;
    int count;
    char *value; /* the attached value, values points here */
} use;

/* Takes the option at argv[*i] and its values (argparse's consume_optional); *i moves past
 * them. */
static int take_option(parse *p, int *i)
{
    const token *t = &p->tokens[*i];
    const pc_args_option *o = t->option;
    const char *name = t->name;
    char *value = t->value;
    char names[256];
    /* combined switches use at most one name per character of the argument */
    use *uses = calloc(strlen(p->argv[*i]) + 1, sizeof *uses);
    if (!uses) {
        fprintf(stderr, "%s: out of memory\n", p->cmd->prog);
        return 1;
    }
    int n = 0, rc = PC_ARGS_RUN, stop = *i + 1;
    for (;;) {
        bool is_switch = o->kind == PC_ARGS_SWITCH || o->kind == PC_ARGS_HELP;
        if (value && is_switch) {
            /* -fj: a single-dash switch with more after it is followed by the option the next
             * character names, which takes the rest */
            if (name[1] != '-' && value[0] != '\0') {
                uses[n++] = (use){o, NULL, 0, NULL};
                const char short_name[3] = {'-', value[0], '\0'};
                const char *next_name;
                const pc_args_option *next = find_exact(p->cmd, short_name, 2, &next_name);
                if (next) {
                    o = next;
                    name = next_name;
                    value = value[1] ? value + 1 : NULL;
                    continue;
                }
            }
            rc = pc_args_usage_error(p->cmd, "argument %s: ignored explicit argument '%s'",
                                     names_of(o, names, sizeof names), value);
            goto done;
        }
        if (value) {
            uses[n] = (use){o, NULL, 1, value};
            uses[n].values = &uses[n].value;
            n++;
            break;
        }
        if (is_switch) {
            uses[n++] = (use){o, NULL, 0, NULL};
            break;
        }
        int count = 0;
        while (*i + 1 + count < p->argc && p->tokens[*i + 1 + count].kind == TOKEN_ARGUMENT &&
               (count == 0 || o->kind == PC_ARGS_VALUES))
            count++;
        if (count == 0) {
            rc = pc_args_usage_error(p->cmd, "argument %s: expected %s argument",
                                     names_of(o, names, sizeof names),
                                     o->kind == PC_ARGS_VALUES ? "at least one" : "one");
            goto done;
        }
        uses[n++] = (use){o, p->argv + *i + 1, count, NULL};
        stop = *i + 1 + count;
        break;
    }
    for (int k = 0; k < n && rc == PC_ARGS_RUN; k++) {
        p->seen[uses[k].option->id] = true;
        if (uses[k].option->kind == PC_ARGS_HELP) {
            p->cmd->print_help(stdout, p->cmd);
            rc = 0;
        } else {
            rc = p->take(p->ctx, p->cmd, uses[k].option->id, uses[k].values, uses[k].count);
        }
    }
    *i = stop;
done:
    free(uses);
    return rc;
}

/* The name of the command's option that arg, an unknown option, meant with one dash more or
 * less (--save_error_data for -save_error_data, -out_path for --out_path; a value after '='
 * does not count); NULL when there is none. */
static const char *other_dashes(const pc_args_command *cmd, const char *arg)
{
    char alt[256];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len < 3 || arg[0] != '-' || len + 2 > sizeof alt)
        return NULL;
    if (arg[1] == '-') { /* one dash less */
        memcpy(alt, arg + 1, len - 1);
        len--;
    } else { /* one dash more */
        alt[0] = '-';
        memcpy(alt + 1, arg, len);
        len++;
    }
    const char *name = NULL;
    return find_exact(cmd, alt, len, &name) ? name : NULL;
}

/* " (did you mean -save_error_data?)" after "unrecognized arguments: ..." when an unknown
 * option is one of the command's with one dash more or less ("-x for --x, ..." when several
 * arguments were not taken); "" otherwise. */
static void did_you_mean(const parse *p, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < p->extra_count; k++) {
        const char *arg = p->argv[p->extras[k]];
        if (p->tokens[p->extras[k]].kind != TOKEN_UNKNOWN)
            continue;
        const char *meant = other_dashes(p->cmd, arg);
        if (!meant)
            continue;
        int n = p->extra_count == 1 ? snprintf(out + used, size - used, " (did you mean %s", meant)
                                    : snprintf(out + used, size - used, "%s%s for %s",
                                               used ? ", " : " (did you mean ", meant, arg);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
    }
    if (used && used + 3 <= size)
        memcpy(out + used, "?)", 3);
    else
        out[0] = '\0';
}

/* The options the command must be given and was not, then the arguments nobody took. */
static int check_the_rest(parse *p)
{
    char names[256], missing[1024] = "";
    size_t used = 0;
    for (const int *id = p->cmd->required; id && *id >= 0; id++) {
        if (p->seen[*id])
            continue;
        int n = snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "",
                         names_of(&p->cmd->table[*id], names, sizeof names));
        if (n > 0 && (size_t)n < sizeof missing - used)
            used += (size_t)n;
    }
    if (used)
        return pc_args_usage_error(p->cmd, "the following arguments are required: %s", missing);
    if (p->extra_count == 0)
        return PC_ARGS_RUN;
    size_t len = 1;
    for (int k = 0; k < p->extra_count; k++)
        len += strlen(p->argv[p->extras[k]]) + 1;
    char *joined = malloc(len);
    if (!joined) {
        fprintf(stderr, "%s: out of memory\n", p->cmd->prog);
        return 1;
    }
    joined[0] = '\0';
    for (int k = 0; k < p->extra_count; k++) {
        if (k)
            strcat(joined, " ");
        strcat(joined, p->argv[p->extras[k]]);
    }
    char hints[1024] = "";
    did_you_mean(p, hints, sizeof hints);
    int rc = pc_args_usage_error(p->cmd, "unrecognized arguments: %s%s", joined, hints);
    free(joined);
    return rc;
}

int pc_args_parse(const pc_args_command *cmd, int argc, char **argv, pc_args_take_fn take,
                  void *ctx, int *next)
{
    int max_id = 0;
    for (const int *id = cmd->options; *id >= 0; id++)
        max_id = *id > max_id ? *id : max_id;
    parse p = {.cmd = cmd,
               .argc = argc,
               .argv = argv,
               .tokens = calloc((size_t)argc + 1, sizeof *p.tokens),
               .extras = calloc((size_t)argc + 1, sizeof *p.extras),
               .seen = calloc((size_t)max_id + 1, sizeof *p.seen),
               .take = take,
               .ctx = ctx};
    int rc = PC_ARGS_RUN;
    if (next)
        *next = argc;
    if (!p.tokens || !p.extras || !p.seen) {
        fprintf(stderr, "%s: out of memory\n", cmd->prog);
        rc = 1;
        goto done;
    }
    /* pass 1: what each argument is; an ambiguous prefix is an error before anything is taken
     * (at the top level, only one that is reached: the rest belongs to the command) */
    bool negative_names = has_negative_names(cmd), plain = false;
    for (int i = 1; i < argc; i++) {
        if (plain) {
            p.tokens[i].kind = TOKEN_ARGUMENT;
        } else if (strcmp(argv[i], "--") == 0) {
            p.tokens[i].kind = TOKEN_DASHDASH;
            plain = true;
        } else {
            p.tokens[i] = classify(cmd, argv[i], negative_names);
            if (p.tokens[i].kind == TOKEN_AMBIGUOUS && !cmd->stops_at_argument) {
                rc = ambiguous_error(cmd, argv[i]);
                goto done;
            }
        }
    }
    /* pass 2: the options from left to right */
    for (int i = 1; i < argc && rc == PC_ARGS_RUN;) {
        switch (p.tokens[i].kind) {
        case TOKEN_OPTION:
            rc = take_option(&p, &i);
            break;
        case TOKEN_AMBIGUOUS:
            rc = ambiguous_error(cmd, argv[i]);
            break;
        case TOKEN_ARGUMENT:
            if (cmd->stops_at_argument) {
                *next = i;
                i = argc;
            } else { /* precheck's commands take no positional arguments */
                p.extras[p.extra_count++] = i++;
            }
            break;
        case TOKEN_DASHDASH:
        case TOKEN_UNKNOWN:
            p.extras[p.extra_count++] = i++;
            break;
        }
    }
    if (rc == PC_ARGS_RUN)
        rc = check_the_rest(&p);
done:
    free(p.tokens);
    free(p.extras);
    free(p.seen);
    return rc;
}

/* The name without its leading dashes, '_' as '-', lower case. */
static void option_key(const char *name, char *out, size_t size)
{
    while (*name == '-')
        name++;
    size_t o = 0;
    for (; *name && *name != '=' && o + 1 < size; name++)
        out[o++] = *name == '_' ? '-' : (char)tolower((unsigned char)*name);
    out[o] = '\0';
}

const char *pc_args_suggest(const char *arg, const char *const *names)
{
    char key[128], k[128];
    option_key(arg, key, sizeof key);
    size_t len = strlen(key);
    if (len < 2)
        return NULL;
    const char *prefix = NULL;
    int prefixes = 0;
    for (const char *const *n = names; *n; n++) {
        option_key(*n, k, sizeof k);
        if (strcmp(k, key) == 0)
            return *n;
        if (strncmp(k, key, len) == 0) {
            prefix = *n;
            prefixes++;
        }
    }
    return prefixes == 1 ? prefix : NULL;
}
