#!/usr/bin/env bash
# ctest install.layout: `cmake --install` into a temporary prefix, then, from another folder and
# with nothing of the build or source tree on its paths, the installed precheck runs an installed
# example dump (its CSVs equal to the build tree's on the same dump), finds its plug-in, its
# manual page renders without warnings, and its bash completion loads and completes commands,
# options and values. The manual page and the completion must name every command of
# `precheck --help` and every option of `precheck COMMAND --help`.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR TORCH_PLUGIN(ON|OFF)
# Needs man-db and groff (tools/install-deps.sh installs them for developers and CI).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
plugin=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
for tool in man groff; do
    command -v $tool >/dev/null || fail "$tool is missing (Debian: man-db; bash tools/install-deps.sh)"
done

prefix=$tmp/prefix
"${CMAKE:-cmake}" --install "$build" --prefix "$prefix" >/dev/null
exe=$prefix/bin/precheck
man1=$prefix/share/man/man1/precheck.1.gz
completion=$prefix/share/bash-completion/completions/precheck
examples=$prefix/share/doc/precheck/examples
for f in bin/precheck share/man/man1/precheck.1.gz share/bash-completion/completions/precheck \
    share/precheck/config.yaml share/doc/precheck/README.md share/doc/precheck/docs/run_ut.md \
    share/doc/precheck/docs/workflow.svg \
    share/doc/precheck/examples/gpt_tensor/dump.json share/doc/precheck/examples/gpt_stats/dump.json \
    share/doc/precheck/examples/gpt_bf16_tensor/dump_tensor_data; do
    [[ -e $prefix/$f ]] || fail "cmake --install did not install $f"
done
if [[ $plugin == ON ]]; then
    [[ -f $prefix/lib/precheck/precheck-backend-torch.so ]] || fail "the torch plug-in is not installed"
fi
echo "installed: $(cd "$prefix" && find . -type f | wc -l) files"

# ---- the installed binary, from another folder, on an installed example ----
work=$tmp/work
mkdir "$work"
cd "$work"
# OPENBLAS_CORETYPE and its kin stay: they choose OpenBLAS's kernels for this machine (some
# machines set OPENBLAS_CORETYPE=Haswell on CPUs that older OpenBLAS builds mishandle), and
# another kernel set sums in another order, so the CSVs compared below, the source tree's run
# made in this environment, would differ in their numbers (docs/PORTABILITY.md)
clean_env=(env -i "PATH=/usr/bin:/bin" "HOME=$tmp" "MSPROBE_LOG_LEVEL=${MSPROBE_LOG_LEVEL:-1}")
for var in OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; do
    if [[ -v $var ]]; then clean_env+=("$var=${!var}"); fi
done
"${clean_env[@]}" "$exe" --version | grep -q "^precheck .* (follows msprobe " ||
    fail "--version does not name the msprobe release"
"${clean_env[@]}" "$exe" run_ut -api_info "$examples/gpt_tensor/dump.json" -o out --no-progress \
    >run.log || fail "the installed precheck failed on the installed example (run.log: $(tail -3 run.log))"
"$build/precheck" run_ut -api_info "$src/tests/fixtures/msprobe/dumps/gpt_tensor/step0/rank/dump.json" \
    -o ref --no-progress >/dev/null
for kind in result details; do
    cmp -s out/accuracy_checking_${kind}_*.csv ref/accuracy_checking_${kind}_*.csv ||
        fail "the installed example's $kind CSV differs from the source tree's"
done
echo "run_ut from $work on the installed example: $(grep -c . out/accuracy_checking_result_*.csv) lines, the build tree's CSVs"

# the plug-in is found beside the installed binary (../lib/precheck): a missing interpreter is
# then the error, not a missing plug-in
if [[ $plugin == ON ]]; then
    msg=$("${clean_env[@]}" "$exe" run_ut -api_info "$examples/gpt_stats/dump.json" -o torch \
        --backend torch:cpu --python "$tmp/no-python" --no-progress 2>&1 || true)
    grep -q "cannot run the Python interpreter" <<<"$msg" ||
        fail "the installed precheck does not find its torch plug-in: $msg"
    echo "torch plug-in: found in lib/precheck"
fi

# ---- the manual page ----
warnings=$(zcat "$man1" | groff -man -Tutf8 -ww -z 2>&1) || fail "groff failed on precheck.1"
[[ -z $warnings ]] || fail "groff warns on precheck.1: $warnings"
page=$(MANPAGER=cat MANWIDTH=100 man -l "$man1" 2>&1) || fail "man -l failed: $page"
for section in NAME SYNOPSIS COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES; do
    grep -q "^$section" <<<"$page" || fail "the manual page has no $section section"
done
env MANPAGER=cat man -M "$prefix/share/man" precheck >/dev/null 2>&1 ||
    fail "man -M PREFIX/share/man precheck does not find the page"
roff=$(zcat "$man1" | sed 's/\\-/-/g')
echo "manual page: renders ($(wc -l <<<"$page") lines), found by man -M"

# ---- the bash completion ----
# complete WORD...: what the completion offers for the last word (bash, as <Tab> calls it)
complete_words() {
    bash --norc --noprofile -c 'source "$1" || exit 9; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _precheck precheck "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@"
}
registered=$(bash --norc --noprofile -c 'source "$1" && complete -p precheck' _ "$completion")
grep -q "_precheck" <<<"$registered" || fail "the completion script does not register a completion for precheck"
expect() { # expect WANTED WORD...: WANTED is among the completions of WORD...
    local want=$1 got
    shift
    got=$(complete_words "$@")
    grep -qx -- "$want" <<<"$got" || fail "completing '$*' does not offer $want (got: ${got//$'\n'/ })"
}
expect run_ut precheck ru
expect run_overflow_check precheck -f pytorch run_o
expect --backend precheck run_ut --back
expect --num_splits precheck multi_run_ut --num
expect torch:npu precheck run_ut --backend torch:n
expect fp64 precheck compare --bench f
(cd "$examples" && expect gpt_tensor precheck run_ut -api_info gpt_t)
(cd "$examples" && expect gpt_stats precheck run_ut --out_path = gpt_s)

# every command of --help, and every option of each command's --help, in the completion and the
# manual page
commands=$("$exe" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" {print $1}')
[[ $(wc -l <<<"$commands") -ge 10 ]] || fail "cannot read the commands of precheck --help"
for cmd in $commands; do
    expect "$cmd" precheck "${cmd:0:2}"
    grep -qw -- "$cmd" <<<"$roff" || fail "the manual page does not name the command $cmd"
    # the options: the first column of the option lines of the help (up to two spaces); a help
    # without option lines (dtypes) means -h and --help only
    options=$("$exe" "$cmd" --help | { grep -E '^ {2,}-' || echo "  -h, --help"; } |
        sed -E 's/^ +//; s/  .*//' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z_-]*' |
        sed -E 's/^[ ,]//' | sort -u)
    offered=$(complete_words precheck "$cmd" - | sort -u)
    [[ $options == "$offered" ]] || fail "precheck $cmd: the completion offers
$(diff <(echo "$options") <(echo "$offered") | grep '^[<>]')
(< only in --help, > only in the completion)"
    for opt in $options; do
        grep -qw -- "$opt" <<<"$roff" || fail "the manual page does not name $cmd's option $opt"
    done
done
echo "completion and manual page: every command ($(wc -w <<<"$commands")) and option of --help"
echo "install.layout: ok"
