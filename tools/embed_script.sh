#!/bin/sh
# Regenerates src/repro/script_body.inc (or the file given) (a C string literal) from src/repro/script_body.py, the
# part every script of precheck op_generate / repro shares. Run after editing the .py; commit
# both (the build reads the .inc; tests/cli/test_op_generate.c checks that they agree).
set -eu
case "${1:-}" in /*) ;; ?*) set -- "$PWD/$1" ;; esac
cd "$(dirname "$0")/.."
src=src/repro/script_body.py
out=${1:-src/repro/script_body.inc}
{
    echo "/* Generated from script_body.py by tools/embed_script.sh: edit the .py, then rerun. */"
    echo "// clang-format off"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$src"
    echo "    // clang-format on"
} >"$out.tmp"
mv "$out.tmp" "$out"
