#!/usr/bin/env bash
# Installs the Debian 12 packages precheck needs to build and test (run as root).
# The README's dependency table says why each one is here.
set -euo pipefail
packages="build-essential cmake libcmocka-dev"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $packages >/dev/null
echo "install-deps: installed $packages"
