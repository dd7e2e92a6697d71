#!/usr/bin/env bash
# The whole test suite, as CI runs it: a Release build and an ASan+UBSan build of everything,
# and every ctest case in each. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
# the torch backend's tests fail, not skip, when Debian's PyTorch is missing (CI installs it
# with tools/install-deps.sh); PRECHECK_REQUIRE_TORCH=0 lets a machine without it skip them
export PRECHECK_REQUIRE_TORCH="${PRECHECK_REQUIRE_TORCH:-1}"
# the same for the report's browser test (tests/report/test_browser.c) and Debian's chromium;
# PRECHECK_REQUIRE_CHROMIUM=0 lets a machine without it skip that test
export PRECHECK_REQUIRE_CHROMIUM="${PRECHECK_REQUIRE_CHROMIUM:-1}"
# the aarch64 job (tests/aarch64.sh) fails, not skips, without its cross compiler, qemu-user and
# arm64 libraries (tools/install-deps.sh); PRECHECK_AARCH64=0 lets a machine without them skip it
PRECHECK_AARCH64="${PRECHECK_AARCH64:-1}"

if command -v clang-format >/dev/null && git rev-parse --git-dir >/dev/null 2>&1; then
    echo "== clang-format"
    git ls-files '*.c' '*.h' '*.inc' | xargs clang-format --dry-run -Werror
fi

echo "== Release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== ASan+UBSan build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPRECHECK_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$jobs"
# (the install and package tests, label "install", run in the Release build only)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE install

if command -v clang >/dev/null; then
    echo "== clang Release build (its warnings are errors too)"
    cmake -S . -B build-clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build-clang -j "$jobs" >/dev/null
    ctest --test-dir build-clang --output-on-failure -j "$jobs" -LE 'exhaustive|install'
fi

if [[ $PRECHECK_AARCH64 != 0 && $(uname -m) == x86_64 ]]; then
    echo "== aarch64: cross build, numerics tests and run_ut under qemu, compared with x86-64"
    # bounded, like every stage outside ctest (whose tests have their own limits): a hang
    # must fail in minutes, not run into CI's limit (it takes 2.5-3.5 minutes)
    timeout 1200 bash tests/aarch64.sh build ||
        { echo "aarch64 job failed (exit $?; 124: over 1200 s)" >&2; exit 1; }
fi

if command -v valgrind >/dev/null; then
    echo "== valgrind memcheck: run_ut end to end (in process), on a transformer and a CNN dump"
    vg_out=$(mktemp -d)
    for dump in gpt_bf16_tensor cnn_tensor; do
        # OMP_WAIT_POLICY and OPENBLAS_THREAD_TIMEOUT set: precheck would otherwise execute
        # itself again to set them, and valgrind does not follow an exec (core/threads.h);
        # the block cache off, so that memcheck sees every storage as a heap block of its
        # own (core/alloc.h)
        OMP_WAIT_POLICY=PASSIVE OPENBLAS_THREAD_TIMEOUT=16 PRECHECK_BLOCK_CACHE=0 timeout 900 valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
            --show-possibly-lost=no -q \
            ./build/precheck run_ut -api_info "tests/fixtures/msprobe/dumps/$dump/step0/rank/dump.json" \
            -o "$vg_out/$dump" --jobs 0 --no-progress >/dev/null
        echo "valgrind: $dump clean"
    done
    rm -rf "$vg_out"
fi

echo "== libFuzzer smoke (10 s per harness)"
bash tests/fuzz.sh 10
