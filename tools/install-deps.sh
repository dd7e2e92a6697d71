#!/usr/bin/env bash
# Installs the Debian 12 packages precheck needs to build and test (run as root).
# docs/development.md's dependency table says why each one is here.
set -euo pipefail
# python3-dev and libdlpack-dev: the headers of the torch backend plug-in (built when present)
build="build-essential cmake libyaml-dev libopenblas-dev python3-dev libdlpack-dev"
# python3-torch: Debian's PyTorch (1.13, CPU), the device the torch backend's tests run on;
# chromium: the browser that renders precheck report's page in its test (headless), and
# fonts-wqy-microhei the CJK font that shows msprobe's Chinese column names in its screenshot
tests="libcmocka-dev clang clang-format libclang-rt-14-dev libomp-dev valgrind python3-torch"
tests="$tests chromium fonts-wqy-microhei"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $build $tests >/dev/null
echo "install-deps: installed $build $tests"
