#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan+UBSan) and runs each for SECONDS (default
# 10) over its seed corpus. New inputs go to a scratch folder; copy the interesting ones into
# fuzz/corpus/<name>/ to keep them. A crash stops the script with the crashing input's path.
# The harnesses run side by side, one per core (nproc), each for SECONDS of its own.
#   usage: tests/fuzz.sh [SECONDS] [HARNESS...]
#          tests/fuzz.sh --build       only builds them (tests/run.sh, beside its other stages)
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=0
if [[ ${1:-} == --build ]]; then
    build_only=1
    shift
fi
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
jobs=$(nproc 2>/dev/null || echo 2)
# the harnesses and their library alone (fuzz/CMakeLists.txt): not the program, which they
# do not use
cmake --build build-fuzz -j "$jobs" --target pc_fuzz_harnesses >/dev/null
((build_only == 0)) || exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fuzz_one() { # fuzz_one NAME SEEDS...: one harness, its lines to $work/NAME.log
    local name=$1
    shift
    mkdir -p "$work/$name" "$work/$name-crash"
    ./build-fuzz/fuzz/fuzz_"$name" -max_total_time="$seconds" -max_len=1048576 -timeout=20 \
        -rss_limit_mb=4096 -artifact_prefix="$work/$name-crash/" -print_final_stats=1 \
        "$work/$name" "$@" 2>&1 | grep -E '^(#[0-9]+ *DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)' \
        >"$work/$name.log" || true
}
names=()
running=0
while read -r name seeds; do
    if [ "$#" -gt 0 ] && [[ " $* " != *" $name "* ]]; then
        continue
    fi
    names+=("$name")
    # one per core: wait for one to end when all are busy
    if ((running >= jobs)); then
        wait -n || true
        running=$((running - 1))
    fi
    running=$((running + 1))
    # shellcheck disable=SC2086
    fuzz_one "$name" $seeds &
done <build-fuzz/fuzz_targets.txt
wait
crashed=0
for name in "${names[@]}"; do
    echo "== fuzz_$name for ${seconds}s"
    cat "$work/$name.log"
    if [ -n "$(ls -A "$work/$name-crash")" ]; then
        mkdir -p fuzz/crashes
        cp "$work/$name-crash"/* fuzz/crashes/
        echo "fuzz.sh: fuzz_$name found a crash; input saved in fuzz/crashes/" >&2
        crashed=1
    fi
done
exit $crashed
