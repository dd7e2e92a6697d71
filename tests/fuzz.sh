#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan+UBSan) and runs each for SECONDS (default
# 10) over its seed corpus. New inputs go to a scratch folder; copy the interesting ones into
# fuzz/corpus/<name>/ to keep them. A crash stops the script with the crashing input's path.
#   usage: tests/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true
if ! command -v clang >/dev/null; then
    echo "fuzz.sh: clang is not installed; skipping libFuzzer runs" >&2
    exit 0
fi
# (the compiler launcher, ccache, that tests/run.sh sets when it is installed)
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DPRECHECK_FUZZ=ON \
    -DPRECHECK_BUILD_TESTS=OFF -DPRECHECK_BUILD_BENCH=OFF -DPRECHECK_WERROR=ON \
    ${CMAKE_C_COMPILER_LAUNCHER:+"-DCMAKE_C_COMPILER_LAUNCHER=$CMAKE_C_COMPILER_LAUNCHER"} >/dev/null
cmake --build build-fuzz -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
while read -r name seeds; do
    if [ "$#" -gt 0 ] && [[ " $* " != *" $name "* ]]; then
        continue
    fi
    mkdir -p "$work/$name" "$work/$name-crash"
    echo "== fuzz_$name for ${seconds}s"
    # shellcheck disable=SC2086
    ./build-fuzz/fuzz/fuzz_"$name" -max_total_time="$seconds" -max_len=1048576 -timeout=20 \
        -rss_limit_mb=4096 -artifact_prefix="$work/$name-crash/" -print_final_stats=1 \
        "$work/$name" $seeds 2>&1 | grep -E '^(#[0-9]+ *DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)' || true
    if [ -n "$(ls -A "$work/$name-crash")" ]; then
        mkdir -p fuzz/crashes
        cp "$work/$name-crash"/* fuzz/crashes/
        echo "fuzz.sh: fuzz_$name found a crash; input saved in fuzz/crashes/" >&2
        exit 1
    fi
done <build-fuzz/fuzz_targets.txt
