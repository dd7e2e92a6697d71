#!/usr/bin/env bash
# Installs the Debian 12 packages precheck needs to build and test (run as root).
# The README's dependency table says why each one is here.
set -euo pipefail
build="build-essential cmake libyaml-dev libopenblas-dev"
tests="libcmocka-dev clang clang-format libclang-rt-14-dev libomp-dev valgrind"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $build $tests >/dev/null
echo "install-deps: installed $build $tests"
