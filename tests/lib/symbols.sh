#!/usr/bin/env bash
# Every symbol libprecheck defines for the outside starts with pc_ (or PC_): the library shares
# the process with libpython, torch and their extensions (and a program that links it), where a
# bare name (row_init, load_value) could clash.
# usage: symbols.sh LIBPRECHECK.a
set -euo pipefail
lib=$1
# names that begin with __ are the implementation's (ASan's __odr_asan.* indicators)
bare=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TDBRVW]$/ {print $3}' |
    grep -v '^pc_\|^PC_\|^__' | sort -u || true)
if [[ -n $bare ]]; then
    echo "libprecheck defines symbols without the pc_ prefix (make them static, or prefix them):"
    echo "$bare"
    exit 1
fi
count=$(nm -g --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[TDBRVW]$/ && $3 !~ /^__/' | wc -l)
echo "symbols: all $count external symbols of $lib start with pc_"
