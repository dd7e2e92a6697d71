#!/usr/bin/env bash
# Do two builds of precheck write the same files? Runs both binaries on every fixture dump
# (run_ut with and without -save_error_data, --jobs 0 and the default pool), api_precision_compare
# on msprobe's sample tables and on the two builds' own details CSVs, merge of two shards, and
# report on each output folder, then compares every file the two wrote byte for byte, after
# replacing only what names the moment or the duration of a run (timestamps in file names and
# texts, "seconds" figures). Both builds run in the same folder, so paths in the files agree.
#
#   bash tests/compare_builds.sh OLD/precheck NEW/precheck [WORKDIR]
#
# Exit 0 when every file agrees, 1 with a list of the files that differ (and a diff of the
# first lines of each), 2 on a usage error. Used when a change must not alter any output:
# DESIGN.md's toolkit changes were checked with it against the build before them.
set -uo pipefail
if [[ $# -lt 2 || ! -x $1 || ! -x $2 ]]; then
    echo "usage: bash tests/compare_builds.sh OLD_PRECHECK NEW_PRECHECK [WORKDIR]" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(realpath "$1")
new=$(realpath "$2")
work=${3:-$(mktemp -d)}
mkdir -p "$work"
work=$(realpath "$work")
fx="$root/tests/fixtures/msprobe"

# one build's outputs, written in $work/run and then moved to $work/$label
run_all() {
    local bin=$1 label=$2 d name
    rm -rf "$work/run" "$work/$label"
    mkdir -p "$work/run"
    cd "$work/run" || exit 2
    for d in "$fx"/dumps/*/step0/rank "$fx"/versions/*; do
        [[ -f $d/dump.json ]] || continue
        name=$(basename "$(dirname "$(dirname "$d")")")
        [[ $name == . || $name == dumps || $name == msprobe ]] && name=$(basename "$d")
        "$bin" run_ut -api_info "$d/dump.json" -o "ut_$name" --no-progress >"log_ut_$name.txt" 2>&1
        echo "exit $?" >>"log_ut_$name.txt"
        # -save_error_data writes ut_error_data<ts>/ in the working folder: one folder a run
        mkdir -p "err_$name"
        (cd "err_$name" && "$bin" run_ut -api_info "$d/dump.json" -o "ut0" --jobs 0 \
            --no-progress -save_error_data >"log_ut0.txt" 2>&1
            echo "exit $?" >>"log_ut0.txt")
        "$bin" report "ut_$name" -o "report_$name.html" >"log_report_$name.txt" 2>&1
        echo "exit $?" >>"log_report_$name.txt"
    done
    # shards and merge on one dump
    local gs="$fx/dumps/gpt_stats/step0/rank/dump.json"
    "$bin" run_ut -api_info "$gs" -o shards/s1 --shard 1/2 --no-progress >log_shard1.txt 2>&1
    "$bin" run_ut -api_info "$gs" -o shards/s2 --shard 2/2 --no-progress >log_shard2.txt 2>&1
    "$bin" merge shards/s1 shards/s2 -o merged >log_merge.txt 2>&1
    echo "exit $?" >>log_merge.txt
    # api_precision_compare: msprobe's sample tables, and this build's own CSVs
    local u="$fx/precision_compare/msprobe_unit_test_inputs"
    "$bin" api_precision_compare -npu "$u/test_data_npu.csv" -gpu "$u/test_data_gpu.csv" \
        -o pcmp_sample >log_pcmp_sample.txt 2>&1
    echo "exit $?" >>log_pcmp_sample.txt
    "$bin" api_precision_compare -npu "$u/test_data_2_npu.csv" -gpu "$u/test_data_2_gpu.csv" \
        -o pcmp_sample2 >log_pcmp_sample2.txt 2>&1
    echo "exit $?" >>log_pcmp_sample2.txt
    local a b
    a=$(ls ut_gpt_bf16_tensor/accuracy_checking_details_*.csv 2>/dev/null | head -1)
    b=$(ls ut_gpt_tensor/accuracy_checking_details_*.csv 2>/dev/null | head -1)
    if [[ -n $a && -n $b ]]; then
        "$bin" api_precision_compare -npu "$a" -gpu "$b" --allow-different-dumps -o pcmp_own >log_pcmp_own.txt 2>&1
        echo "exit $?" >>log_pcmp_own.txt
        "$bin" report pcmp_own -o report_pcmp.html >log_report_pcmp.txt 2>&1
    fi
    cd "$work" || exit 2
    mv run "$label"
}

# a file's text with the moment and duration of its run replaced, and the lists of the slowest
# APIs (the log's ranked lines, the page's table), which time orders, left out: two runs of one
# binary differ there
normalize() {
    sed -E -e 's/"(seconds|wall_s|elapsed|duration|device_seconds|bench_seconds)": ?[0-9.eE+-]+/"\1": <S>/g' \
        -e 's/(^|[^0-9])20[0-9]{12}([^0-9]|$)/\1<TS>\2/g' \
        -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?/<DATE>/g' \
        -e 's/[0-9]+(\.[0-9]+)? ?(s|ms|seconds?)\b/<S>/g' \
        -e 's/<DATE> \([0-9]+\)/<DATE> (<PID>)/g' -e 's/pid [0-9]+/pid <PID>/g' "$1" |
        sed -E -e '/\[INFO\] +[0-9]+\. \S+ +device <S>, bench <S>$/d' |
        perl -pe 's#<table class="rows" id="slowest">.*?</table>#<table id="slowest"></table>#g'
}

echo "compare_builds: old $old"
echo "compare_builds: new $new"
run_all "$old" old
run_all "$new" new

status=0
count=0
while IFS= read -r f; do
    count=$((count + 1))
    g="new/${f#old/}"
    g=$(sed -E 's/20[0-9]{12}/*/g' <<<"$g")
    # shellcheck disable=SC2206
    match=($g)
    if [[ ${#match[@]} -ne 1 || ! -f ${match[0]} ]]; then
        echo "MISSING in new: ${f#old/}"
        status=1
        continue
    fi
    if ! cmp -s <(normalize "$f") <(normalize "${match[0]}"); then
        echo "DIFFERS: ${f#old/}"
        diff <(normalize "$f") <(normalize "${match[0]}") | head -8
        status=1
    fi
done < <(cd "$work" && find old -type f | sort)
extra=$( (cd "$work/old" && find . -type f | sed -E 's/20[0-9]{12}/<TS>/g' | sort) |
    comm -13 - <(cd "$work/new" && find . -type f | sed -E 's/20[0-9]{12}/<TS>/g' | sort))
if [[ -n $extra ]]; then
    echo "ONLY in new:"
    echo "$extra"
    status=1
fi
if [[ $status == 0 ]]; then
    echo "compare_builds: all $count files agree (work folder $work)"
else
    echo "compare_builds: differences found (work folder $work)"
fi
exit $status
