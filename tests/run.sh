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

# The stages, each a tier of what it checks (docs/development.md, "Test tiers", has the table
# of what each checks and how long it takes):
#   Release      every ctest case, the 2^32 exhaustive conversion walk and the torch tests included
#   ASan+UBSan   every ctest case but the install tests, light: the exhaustive walk sampled,
#                the torch tests' dumps each path once (PRECHECK_TEST_LIGHT)
#   clang        its own warnings over every source (built beside the stages), and the numerics
#                tests (label "numerics") under another compiler
#   aarch64      the numerics tests and run_ut under qemu, against x86-64
#   valgrind     run_ut end to end in process, beside the stages from the Release build on
#   libFuzzer    the harnesses built beside the stages, then 10 s each, two at a time
# Each stage's wall and CPU time is printed at its end and in a table at the end (a stage's CPU
# includes that of a job beside it that ended during the stage).

# ---- the time of each stage: wall seconds, and CPU seconds of the processes it waited for ----
clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
children_cpu() { # user+system CPU of this shell's waited-for children, in clock ticks
    local st
    read -r -a st </proc/$$/stat
    echo $((st[15] + st[16]))
}
stage_rows=()
stage_name="" stage_t0=0 stage_c0=0
stage() { # stage NAME: ends the stage that runs and starts NAME ("" ends the last)
    if [[ -n $stage_name ]]; then
        local wall=$((SECONDS - stage_t0)) cpu=$((($(children_cpu) - stage_c0) / clk_tck))
        echo "-- $stage_name: ${wall} s wall, ${cpu} s CPU"
        stage_rows+=("$(printf '%-34s %6d s %7d s' "$stage_name" "$wall" "$cpu")")
    fi
    stage_name=$1 stage_t0=$SECONDS stage_c0=$(children_cpu)
    [[ -z $stage_name ]] || echo "== $stage_name"
}
# the stages' warnings are errors, and the benchmarks (off in a user's build) are built
werror=(-DPRECHECK_WERROR=ON -DPRECHECK_BUILD_TESTS=ON)
# (PRECHECK_BUILD_TESTS=ON: a build folder the README's quick start configured has them off)

# ccache (tools/install-deps.sh installs it): every build of the suite compiles through it when
# it is installed -- the five builds here, tests/aarch64.sh's and tests/fuzz.sh's, and the
# README's quick start in tests/docs_check.sh (CMake takes the launcher from the environment) --
# so that a second run compiles only what changed (the builds of a whole run: ~480 s wall on 2 cores
# without it). CCACHE_BASEDIR: the cache is shared by clones and worktrees at other paths.
# PRECHECK_CCACHE=0 compiles without it.
if [[ ${PRECHECK_CCACHE:-1} != 0 ]] && command -v ccache >/dev/null; then
    export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-ccache}"
    export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi
# Ninja (tools/install-deps.sh installs ninja-build): the builds of the suite take ~35% less wall
# time with it than with make here (a cold Release build: 74 s instead of 114 s on 2 cores), and
# cpack, which makes run the whole build again first ("preinstall": 12 s with nothing to do, and
# the rest of aarch64.sh's cross build), installs a Ninja folder as it is. CMake reads
# CMAKE_GENERATOR when it configures a folder first, so a folder configured with make keeps it;
# tests/aarch64.sh and tests/fuzz.sh inherit it. PRECHECK_NINJA=0 leaves CMake's default.
if [[ ${PRECHECK_NINJA:-1} != 0 && -z ${CMAKE_GENERATOR:-} ]] && command -v ninja >/dev/null; then
    export CMAKE_GENERATOR=Ninja
fi
if [[ -n ${CMAKE_C_COMPILER_LAUNCHER:-} ]]; then
    # also for a build folder configured before without it (the variable is read when a
    # folder is configured first)
    werror+=("-DCMAKE_C_COMPILER_LAUNCHER=$CMAKE_C_COMPILER_LAUNCHER")
else
    werror+=(-UCMAKE_C_COMPILER_LAUNCHER)
fi

if command -v clang-format >/dev/null && git rev-parse --git-dir >/dev/null 2>&1; then
    stage "clang-format"
    git ls-files '*.c' '*.h' '*.inc' | xargs clang-format --dry-run -Werror
fi

stage "Release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${werror[@]}" -DPRECHECK_BUILD_BENCH=ON >/dev/null
# CCACHE_IGNOREOPTIONS=-Werror here and in the docs stage: the README's quick start compiles the
# same sources with the same options but -Werror, and so finds this build's objects in the cache
# (its build: ~60 s less). The other way round, this build could take an object that a build
# without -Werror stored with a warning: ccache replays the warning without failing, so any
# warning in this build's output fails the stage (warned_build).
warned_build() { # warned_build LOG: fails when the build that wrote LOG printed a warning
    if grep -q "warning:" "$1"; then
        grep "warning:" "$1" >&2
        echo "the build above printed warnings (ccache replayed them from a build without" \
            "-Werror; 'ccache --clear' and run again to see them as errors)" >&2
        exit 1
    fi
}
build_log=$(mktemp)
CCACHE_IGNOREOPTIONS=-Werror cmake --build build -j "$jobs" 2>&1 | tee "$build_log"
warned_build "$build_log"
rm -f "$build_log"

# ---- jobs beside the stages ----
# A job that needs nothing of the stages after the Release build runs beside them at the lowest
# priority (nice 19), on what a stage leaves idle (the tails of ctest, the docs check, qemu), and
# whole when a stage waits for it. Its output goes to a log that is printed then
# (background_wait), so that each stage's lines and failure stay its own. A wall-clock limit
# would count the time it waits for a core: valgrind's is CPU time (ulimit -t), with a wall
# limit for a hang that burns none.
bg_pids=() bg_names=() bg_logs=()
background() { # background NAME COMMAND...: COMMAND beside the stages
    local name=$1 log
    shift
    log=$(mktemp)
    (
        renice -n 19 -p "$BASHPID" >/dev/null 2>&1 || true
        t0=$SECONDS
        rc=0
        "$@" || rc=$?
        read -r -a st </proc/$BASHPID/stat
        printf '%-34s %6d s %7d s\n' "$name (beside)" $((SECONDS - t0)) \
            $(((st[15] + st[16]) / clk_tck)) >"$log.row"
        exit $rc
    ) >"$log" 2>&1 &
    bg_pids+=($!) bg_names+=("$name") bg_logs+=("$log")
}
background_wait() { # background_wait [NAME]: waits for job NAME (every job when none is named),
    # prints its log; fails on a failure
    local i rc failed=0
    for i in "${!bg_pids[@]}"; do
        [[ $# == 0 || ${bg_names[$i]} == "$1" ]] || continue
        [[ -n ${bg_pids[$i]} ]] || continue
        rc=0
        wait "${bg_pids[$i]}" || rc=$?
        bg_pids[i]=""
        echo "== ${bg_names[$i]} (beside the stages)"
        cat "${bg_logs[$i]}"
        [[ ! -f ${bg_logs[$i]}.row ]] || stage_rows+=("$(cat "${bg_logs[$i]}.row")")
        rm -f "${bg_logs[$i]}" "${bg_logs[$i]}.row"
        if [[ $rc != 0 ]]; then
            echo "${bg_names[$i]} failed (exit $rc)" >&2
            failed=1
        fi
    done
    [[ $failed == 0 ]] || exit 1
}
background_kill() { # a failing stage ends the run: the jobs beside it end with it
    local p
    for p in "${bg_pids[@]}"; do
        [[ -z $p ]] || { pkill -TERM -P "$p" || true; kill "$p" || true; } 2>/dev/null
    done
}
trap background_kill EXIT

# valgrind memcheck: run_ut end to end, in process, on a transformer and a CNN dump (one core:
# valgrind runs the program's threads one at a time)
valgrind_job() {
    local out dump rc
    out=$(mktemp -d)
    ulimit -t 1200
    for dump in gpt_bf16_tensor cnn_tensor; do
        # OMP_WAIT_POLICY and OPENBLAS_THREAD_TIMEOUT set: precheck would otherwise execute
        # itself again to set them, and valgrind does not follow an exec (core/threads.h); the
        # block cache off, so that memcheck sees every storage as a heap block of its own
        # (core/alloc.h)
        rc=0
        OMP_WAIT_POLICY=PASSIVE OPENBLAS_THREAD_TIMEOUT=16 PRECHECK_BLOCK_CACHE=0 timeout 2400 \
            valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
            --show-possibly-lost=no -q \
            ./build/precheck run_ut -api_info "tests/fixtures/msprobe/dumps/$dump/step0/rank/dump.json" \
            -o "$out/$dump" --jobs 0 --no-progress >/dev/null || rc=$?
        if [[ $rc != 0 ]]; then
            echo "valgrind memcheck of $dump failed (exit $rc; 9: memcheck found errors," \
                "124: over 2400 s wall, 137 or 152: over 1200 s CPU)"
            rm -rf "$out"
            return 1
        fi
        echo "valgrind: $dump clean"
    done
    rm -rf "$out"
}
if command -v valgrind >/dev/null; then
    background "valgrind memcheck" valgrind_job
fi
# the clang build (its warnings over every source, and the numerics tests' programs, which run
# after the ASan+UBSan tests) and the libFuzzer harnesses' build (clang, ASan+UBSan, coverage;
# the smoke runs last): their output in a log shown when it fails
quiet_build() { # quiet_build DIR CMAKE-OPTIONS...: configures and builds DIR, its output shown on failure
    local dir=$1
    shift
    mkdir -p "$dir"
    if ! { cmake -S . -B "$dir" "$@" && cmake --build "$dir" -j "$jobs"; } >"$dir/suite-build.log" 2>&1; then
        tail -n 60 "$dir/suite-build.log"
        return 1
    fi
    echo "built $dir"
}
# The clang build makes code only for what its stage runs: precheck and the numerics tests'
# programs, at -O3. Every other source (the other tests, the benchmarks, the fuzz replays) is
# compiled with -fsyntax-only, its warnings errors as in the build: clang's warnings come from its
# front end, whatever code it makes after (with Ninja; with make, everything is built).
# Programs that would not run here were ~40% of the build's CPU (compiled at -O3, then linked).
# (the clang stage's tests: those labelled numerics, but the exhaustive walk and the install
# tests, which ran in the Release stage)
clang_tests=(-L numerics -LE 'exhaustive|install')
clang_build() {
    local dir=build-clang targets compile=' -o [^ ]+\.o( .*)? -c [^ ]+\.c$'
    local opts=(-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Release "${werror[@]}"
        -DPRECHECK_BUILD_BENCH=ON)
    if [[ ${CMAKE_GENERATOR:-} != Ninja ]]; then
        quiet_build "$dir" "${opts[@]}"
        return
    fi
    mkdir -p "$dir"
    if ! {
        cmake -S . -B "$dir" "${opts[@]}" &&
            targets=$(ctest --test-dir "$dir" -N "${clang_tests[@]}" |
                sed -n 's/^ *Test *#[0-9]*: \([a-z_]*\)\.\([a-z0-9_]*\)$/test_\1_\2/p') &&
            [[ -n $targets ]] &&
            cmake --build "$dir" -j "$jobs" --target precheck $targets &&
            # each compile command of the folder that those targets do not need (whatever
            # objects an earlier build left), without its object and dependency file
            ninja -C "$dir" -t commands precheck $targets | grep -E "$compile" | sort -u \
                >"$dir/built.txt" &&
            ninja -C "$dir" -t commands | grep -E "$compile" | sort -u | comm -23 - "$dir/built.txt" |
            sed -E 's/ -MD / /; s/ -MT [^ ]+//; s/ -MF [^ ]+//; s/ -o [^ ]+\.o / -fsyntax-only /' \
                >"$dir/syntax-only.txt" &&
            echo "clang -fsyntax-only: $(wc -l <"$dir/syntax-only.txt") sources" &&
            (cd "$dir" && xargs -d '\n' -n 1 -P "$jobs" sh -c <syntax-only.txt)
    } >"$dir/suite-build.log" 2>&1; then
        tail -n 60 "$dir/suite-build.log"
        return 1
    fi
    echo "built $dir (precheck and the numerics tests; $(wc -l <"$dir/syntax-only.txt")" \
        "other sources checked with -fsyntax-only)"
}
if command -v clang >/dev/null; then
    background "clang Release build" clang_build
fi
background "libFuzzer build" bash tests/fuzz.sh --build
stage "Release tests"
ctest --test-dir build --output-on-failure -j "$jobs"

stage "docs: the README's and the guide's runnable commands"
# (tests/docs_check.sh: every block marked <!-- runnable -->, as a reader pastes it; the quick
# start installs the build's packages and builds precheck in a fresh copy of the files)
CCACHE_IGNOREOPTIONS=-Werror bash tests/docs_check.sh build

stage "ASan+UBSan build"
# (no benchmarks: the Release and clang builds compile them, and none runs here)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPRECHECK_SANITIZE=ON "${werror[@]}" \
    -DPRECHECK_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j "$jobs"
stage "ASan+UBSan tests"
# (the install and package tests, label "install", run in the Release build only; the
# exhaustive walk of every float32 pattern runs there too, here a sample: every upper half
# with the lower halves at the rounding boundaries and a few random ones, 4.2 million patterns
# instead of 2^32 (it took ~725 s here whole))
# (PRECHECK_TEST_LIGHT=1: a test that repeats one path over several inputs runs each path once
# here, and whole in the Release stage: tests/support/pc_test.h, pc_test_light)
# (OMP_WAIT_POLICY and OPENBLAS_THREAD_TIMEOUT set as precheck sets them: it does not execute
# itself again to set them (core/threads.c), which costs an instrumented program's start, 0.07 s
# of system time here, at every run of the binary; tests/core/test_threads.c checks that step,
# and the Release stage runs the binary as a user does)
PRECHECK_EXHAUSTIVE_SAMPLE=1 PRECHECK_TEST_LIGHT=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1 OMP_WAIT_POLICY=PASSIVE OPENBLAS_THREAD_TIMEOUT=16 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -LE install

if command -v clang >/dev/null; then
    stage "clang Release tests"
    # (the build ran beside the stages above)
    background_wait "clang Release build"
    # the tests whose results depend on the code the compiler generates (label "numerics":
    # conversions, metrics, the op goldens and GEMM panels, input generation, the parsers,
    # api_precision_compare's rules, run_ut end to end against msprobe's statuses), under
    # clang's -O3 and LLVM's OpenMP; the others check what precheck does, not what a compiler
    # made of it, and ran in the Release and ASan+UBSan stages (clang's warnings over every
    # source, tests and benchmarks included, are the build's). The exhaustive walk and the
    # torch tests ran in the Release stage.
    PRECHECK_TEST_TORCH=0 ctest --test-dir build-clang --output-on-failure -j "$jobs" \
        "${clang_tests[@]}"
fi

if [[ $PRECHECK_AARCH64 != 0 && $(uname -m) == x86_64 ]]; then
    # cross build, numerics tests and run_ut under qemu, compared with x86-64
    stage "aarch64"
    # bounded, like every stage outside ctest (whose tests have their own limits): a hang
    # must fail in minutes, not run into CI's limit (it takes 2.5-3.5 minutes)
    timeout 1200 bash tests/aarch64.sh build ||
        { echo "aarch64 job failed (exit $?; 124: over 1200 s)" >&2; exit 1; }
fi

stage "libFuzzer smoke"
# (the harnesses were built beside the stages above; two at a time, one core each)
background_wait "libFuzzer build"
bash tests/fuzz.sh 10 || { echo "libFuzzer smoke failed (exit $?)" >&2; exit 1; }
stage ""
background_wait

echo "== time per stage (wall, CPU of the stage's processes)"
printf '%s\n' "${stage_rows[@]}"
echo "total: $SECONDS s wall"
