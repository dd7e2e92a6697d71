#!/usr/bin/env bash
# The aarch64 job (tests/run.sh runs it after the Release build): precheck cross-built for 64-bit
# Arm with Debian's cross compiler against Debian's arm64 libraries (cmake/aarch64-linux-gnu.cmake),
# then under qemu-user:
#   1. the unit tests that matter for numerics and for reading files: dtype conversions (the
#      exhaustive float32 walk sampled: PRECHECK_EXHAUSTIVE_SAMPLE), metrics, the op goldens
#      (the ops that call BLAS held to a normwise bound: PRECHECK_GOLDEN_BLAS=foreign), the
#      parsers and their fuzz corpora (char is unsigned on aarch64), input generation,
#      api_precision_compare's rules;
#   2. run_ut of every bundled dump, materialize of the statistics dump and
#      api_precision_compare of the bfloat16 run against the float32 one, compared with the
#      x86-64 build's: the generated tensors byte for byte, the CSVs row by row, where only the
#      rows tests/aarch64_differences.txt lists (and says why) may differ, in numbers only;
#   3. cpack's arm64 .deb and aarch64 .rpm (tests/install/test_package.sh).
# docs/PORTABILITY.md says what it shows and where aarch64 and x86-64 differ.
# Needs the packages of tools/install-deps.sh (the developer/CI set); fails without them.
# Usage: bash tests/aarch64.sh [X86_BUILD_DIR]   (default build: the Release build of run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
x86=${1:-build}
out=build-aarch64
jobs=$(nproc 2>/dev/null || echo 2)
fail() {
    echo "aarch64: FAIL: $*" >&2
    exit 1
}

# ---- what it needs ----
missing=()
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
for lib in libopenblas.so libyaml.so libcmocka.so libgomp.so.1; do
    [[ -e /usr/lib/aarch64-linux-gnu/$lib ]] || missing+=("$lib:arm64")
done
((${#missing[@]} == 0)) ||
    fail "missing ${missing[*]}: run 'bash tools/install-deps.sh' (it adds the arm64 architecture)"
[[ -x $x86/precheck ]] || fail "no x86-64 precheck in $x86/ to compare with (build it first)"

# ---- the cross build ----
# (tests/CMakeLists.txt labels these, and runner.run_ut, "numerics": the tests run.sh's clang
# stage runs)
tests=(core.convert core.exhaustive_convert core.dtype core.rng core.tensor
    compare.metrics compare.metrics_fast compare.numpy_sum compare.compare compare.conformance
    compare.vectors_rows ops.op_goldens ops.gemm_panels ops.elementwise_threads ops.schema
    io.json io.pt io.npy io.csv_read io.csv_write dump.dump dump.dump_data
    inputs.inputs inputs.materialize precision_compare.rules precision_compare.vectors
    precision_compare.conformance runner.multi_output
    fuzz.dump fuzz.pt fuzz.npy fuzz.csv fuzz.config)
targets=(precheck precheck_man) # (and what the package installs: cpack does not build a Ninja folder)
for t in "${tests[@]}"; do
    case $t in
    fuzz.*) targets+=("replay_${t#fuzz.}") ;; # the fuzz corpora replayed (unsigned char here)
    *) targets+=("test_${t/./_}") ;;
    esac
done
echo "== aarch64: cross build (${#tests[@]} test programs)"
mkdir -p "$out"
cmake -S . -B "$out" --toolchain cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release \
    -DPRECHECK_TORCH=OFF -DPRECHECK_MPI=OFF -DPRECHECK_BUILD_BENCH=OFF -DPRECHECK_WERROR=ON \
    ${CMAKE_C_COMPILER_LAUNCHER:+"-DCMAKE_C_COMPILER_LAUNCHER=$CMAKE_C_COMPILER_LAUNCHER"} \
    >"$out/aarch64-configure.log" 2>&1 ||
    fail "configuring the cross build failed: $(tail -20 "$out/aarch64-configure.log")"
cmake --build "$out" -j "$jobs" --target "${targets[@]}" >"$out/aarch64-build.log" 2>&1 ||
    fail "the cross build failed: $(grep -m5 -E 'error|Error' "$out/aarch64-build.log")"
file "$out/precheck" | grep -q "ARM aarch64" || fail "$out/precheck is not an aarch64 program"
built=$SECONDS

# qemu-user cannot run an aarch64 program that precheck executes (no binfmt here): set what
# precheck would otherwise set and execute itself again for (core/threads.h)
export OMP_WAIT_POLICY=PASSIVE OPENBLAS_THREAD_TIMEOUT=16
# qemu-user can deadlock when a guest process that has threads forks (a CI run once hung here
# until CI's own limit): precheck runs in process under it (--jobs 0, no workers to fork) and
# OpenBLAS starts no threads of its own when it is loaded; every emulated command has a time
# limit, and a unit test that meets it is run once more (ctest --repeat after-timeout)
export OPENBLAS_NUM_THREADS=1
limit=300
emu=(timeout "$limit" qemu-aarch64)

# ---- 1. unit tests under qemu ----
echo "== aarch64: unit tests under qemu-aarch64"
regex="^($(
    IFS='|'
    echo "${tests[*]//./\\.}"
))\$"
if ! PRECHECK_EXHAUSTIVE_SAMPLE=1 PRECHECK_GOLDEN_BLAS=foreign \
    ctest --test-dir "$out" -R "$regex" -j "$jobs" --timeout 240 --repeat after-timeout:2 \
        --output-on-failure >"$out/aarch64-ctest.log" 2>&1; then
    cat "$out/aarch64-ctest.log"
    fail "unit tests under qemu"
fi
grep -E "tests passed|Total Test time" "$out/aarch64-ctest.log"
unit=$SECONDS

# ---- 2. end to end, against x86-64 ----
echo "== aarch64: run_ut, materialize and api_precision_compare against x86-64"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pairs=()
dumps=tests/fixtures/msprobe/dumps
for dump in "$dumps"/*/step0/rank/dump.json; do
    name=$(basename "$(dirname "$(dirname "$(dirname "$dump")")")")
    "$x86/precheck" run_ut -api_info "$dump" -o "$work/x86-64/$name" --no-progress >/dev/null
    "${emu[@]}" "$out/precheck" run_ut -api_info "$dump" -o "$work/aarch64/$name" --no-progress \
        --jobs 0 >"$work/$name.log" 2>&1 ||
        fail "run_ut of $name under qemu (exit $?; 124: over $limit s): $(tail -3 "$work/$name.log")"
    pairs+=("$work/x86-64/$name" "$work/aarch64/$name")
done
for arch in x86-64 aarch64; do
    exe=("$x86/precheck")
    [[ $arch == aarch64 ]] && exe=("${emu[@]}" "$out/precheck")
    # two dumps of one model (bfloat16 against float32) on purpose: the run records would refuse
    # them without --allow-different-dumps
    "${exe[@]}" api_precision_compare -npu "$work/$arch"/gpt_bf16_tensor/accuracy_checking_details_*.csv \
        -gpu "$work/$arch"/gpt_tensor/accuracy_checking_details_*.csv -o "$work/$arch/precision_compare" \
        --allow-different-dumps >"$work/$arch.compare.log" 2>&1 ||
        fail "api_precision_compare on $arch (exit $?): $(tail -3 "$work/$arch.compare.log")"
    "${exe[@]}" materialize -api_info "$dumps/gpt_stats/step0/rank/dump.json" \
        -o "$work/$arch/materialized" >/dev/null
done
pairs+=("$work/x86-64/precision_compare" "$work/aarch64/precision_compare")
# the inputs generated from statistics, written as tensor files: the same bytes on both
diff -r "$work/x86-64/materialized/dump_tensor_data" "$work/aarch64/materialized/dump_tensor_data" >/dev/null ||
    fail "materialize wrote other tensors on aarch64 than on x86-64"
echo "materialize gpt_stats: $(find "$work/aarch64/materialized/dump_tensor_data" -type f | wc -l) tensor files, identical"
# tests/aarch64_differences.txt lists what differs from x86-64's AVX-512 kernels (SkylakeX's,
# Cooperlake's); where the x86-64 side runs other OpenBLAS kernels (the CPU's, or those that
# OPENBLAS_CORETYPE forces, e.g. Haswell), more float32 GEMM rows differ in their numbers
# (tests/aarch64_differences_blas.txt; docs/PORTABILITY.md, "BLAS kernel sets")
x86_core=$(OPENBLAS_VERBOSE=2 "$x86/precheck" --version 2>&1 | sed -n 's/^Core: //p' | head -n 1)
differences=tests/aarch64_differences.txt
if [[ $x86_core != SkylakeX && $x86_core != Cooperlake ]]; then
    differences=$work/differences.txt
    cat tests/aarch64_differences.txt tests/aarch64_differences_blas.txt >"$differences"
fi
echo "x86-64's OpenBLAS kernels: ${x86_core:-unknown}; rows that may differ: $differences"
python3 tests/aarch64_csvs.py "$differences" "${pairs[@]}" ||
    fail "aarch64's CSVs differ from x86-64's where they may not (tests/aarch64_differences.txt)"
e2e=$SECONDS

# ---- 3. the aarch64 packages ----
echo "== aarch64: packages"
bash tests/install/test_package.sh "$out" OFF arm64 aarch64 "timeout $limit qemu-aarch64"

echo "aarch64: ok in $((SECONDS - start)) s (build $((built - start)) s, unit tests $((unit - built)) s," \
    "end to end $((e2e - unit)) s, packages $((SECONDS - e2e)) s)"
