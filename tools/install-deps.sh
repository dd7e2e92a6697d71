#!/usr/bin/env bash
# Installs the Debian 12 packages precheck needs (run as root). The README's dependency table
# says why each one is here.
#   bash tools/install-deps.sh          everything: to build, test, package and cross-test for
#                                       aarch64 (developers and CI; tests/run.sh needs it all)
#   bash tools/install-deps.sh --user   only what a user's build needs: then build with
#                                       -DPRECHECK_BUILD_TESTS=OFF (README.md, "Install")
set -euo pipefail
mode=all
case ${1:-} in
"") ;;
--user) mode=user ;;
-h | --help)
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
*)
    echo "usage: bash tools/install-deps.sh [--user]" >&2
    exit 2
    ;;
esac
# the build; python3-dev and libdlpack-dev: the headers of the torch backend plug-in (built when
# present); pkg-config: CMake finds OpenBLAS through it; libopenmpi-dev and openmpi-bin: MPI
# (mpirun -np N precheck run_ut; built in when present)
build="build-essential cmake pkg-config libyaml-dev libopenblas-dev python3-dev libdlpack-dev
libopenmpi-dev openmpi-bin"
# the tests; python3-torch: Debian's PyTorch (1.13, CPU), the device the torch backend's tests
# run on
tests="libcmocka-dev clang clang-format libclang-rt-14-dev libomp-dev valgrind python3-torch"
# chromium: the browser that renders precheck report's page in its test (headless), and
# fonts-wqy-microhei the CJK font that shows msprobe's Chinese column names in its screenshot
tests="$tests chromium fonts-wqy-microhei"
# ccache: tests/run.sh compiles its builds through it, so that a second run compiles only what
# changed; ninja-build: its builds' generator (~35% faster than make here)
tests="$tests ccache ninja-build"
# the install and package tests (tests/install): man -l, cpack's .rpm (rpmbuild; the .deb's
# dpkg-shlibdeps comes with dpkg-dev); file: tests/aarch64.sh checks its executable's machine
packaging="man-db file rpm"
# the aarch64 job (tests/aarch64.sh): Debian's cross compiler, qemu-user, and the arm64
# libraries precheck and its tests link, installed beside the host's (multiarch)
aarch64="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libopenblas-dev:arm64
libyaml-dev:arm64 libcmocka-dev:arm64 libgomp1:arm64"

packages=$build
if [[ $mode == all ]]; then
    packages="$build $tests $packaging"
    if [[ $(dpkg --print-architecture) == amd64 ]]; then
        dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
        packages="$packages $aarch64"
    fi
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $packages >/dev/null
echo "install-deps: installed" $packages # one line
