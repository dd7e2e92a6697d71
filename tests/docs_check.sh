#!/usr/bin/env bash
# The docs' commands, run as a reader would paste them: every fenced command block of README.md
# and docs/guide.md that follows a line "<!-- runnable -->" runs with bash -e, and must exit 0.
#   - README.md's blocks run in a fresh copy of the repository's files (the quick start installs
#     the build's packages, builds precheck there and runs it on the bundled dump);
#   - docs/guide.md's blocks run in an empty folder holding the bundled bf16 tensor dump as
#     dump/step0/rank/, with BUILD_DIR's precheck first on the PATH (the guide's commands call
#     `precheck`).
#
#   bash tests/docs_check.sh BUILD_DIR
#
# tests/run.sh runs it (CI). Exit 0 when every block passed, 1 otherwise, 2 on a usage error.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -ne 1 || ! -x $1/precheck ]]; then
    echo "usage: bash tests/docs_check.sh BUILD_DIR (a build folder holding precheck)" >&2
    exit 2
fi
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the blocks of file $1 marked runnable, each written to $2/<n>.sh; prints their count
extract() {
    awk -v out="$2" '
        /^<!-- runnable -->[[:space:]]*$/ { marked = 1; next }
        marked && /^```/ && !inside { inside = 1; n++; file = out "/" n ".sh"; printf "" > file; next }
        inside && /^```/ { inside = 0; marked = 0; close(file); next }
        inside { print >> file }
        END { print n + 0 }
    ' "$1"
}

failed=0
ran=0
for doc in README.md docs/guide.md; do
    blocks="$work/blocks/$doc"
    mkdir -p "$blocks"
    n=$(extract "$root/$doc" "$blocks")
    if [[ $n == 0 ]]; then
        echo "docs_check: $doc has no block marked runnable" >&2
        failed=1
        continue
    fi
    for ((i = 1; i <= n; i++)); do
        dir="$work/run/${doc//\//_}_$i"
        mkdir -p "$dir"
        # (ccache: tests/run.sh exports CMAKE_C_COMPILER_LAUNCHER when it is installed, and
        # CMake takes it from the environment when the quick start configures its fresh build
        # folder; CCACHE_BASEDIR the copy's root, so that the compilers' command lines of one
        # run's copy are those of the next one's, and the next run's build is ccache's)
        basedir=${CCACHE_BASEDIR:-}
        if [[ $doc == README.md ]]; then
            # a fresh copy of the repository's files, as a clone has them
            (cd "$root" && git ls-files -z | xargs -0 cp --parents -t "$dir") || exit 1
            path=$PATH
            basedir=$dir
        else
            mkdir -p "$dir/dump/step0"
            cp -r "$root/tests/fixtures/msprobe/dumps/gpt_bf16_tensor/step0/rank" "$dir/dump/step0/"
            path="$build:$PATH"
        fi
        start=$SECONDS
        # (CMAKE_GENERATOR unset: tests/run.sh's Ninja is not the reader's default)
        if (cd "$dir" && unset CMAKE_GENERATOR && PATH=$path CCACHE_BASEDIR=$basedir \
            bash -eo pipefail "$blocks/$i.sh") \
            >"$dir.log" 2>&1; then
            echo "docs_check: $doc block $i passed ($((SECONDS - start)) s)"
        else
            echo "docs_check: $doc block $i FAILED (exit $?); its commands:" >&2
            sed 's/^/    /' "$blocks/$i.sh" >&2
            echo "  the last lines it printed:" >&2
            tail -n 20 "$dir.log" | sed 's/^/    /' >&2
            failed=1
        fi
        ran=$((ran + 1))
    done
done
echo "docs_check: $ran block(s) ran"
exit $failed
