#!/usr/bin/env bash
# ctest install.package: cpack -G DEB and -G RPM of the build, in a temporary folder. Each
# package must hold the binary, the torch plug-in when it was built, the manual page, the bash
# completion and the examples; the .deb's Depends must name the Debian packages of the shared
# libraries the binary links (dpkg-shlibdeps), the .rpm's requirements their sonames; the
# binary unpacked from each must run an example from another folder.
# Usage: test_package.sh BUILD_DIR TORCH_PLUGIN(ON|OFF) [DEB_ARCH RPM_ARCH EMULATOR]
#   (tests/aarch64.sh passes arm64 aarch64 "timeout 300 qemu-aarch64" for the cross build's
#   packages)
# Needs dpkg-deb, dpkg-shlibdeps (dpkg-dev) and rpmbuild (rpm): tools/install-deps.sh
# installs them for developers and CI.
set -euo pipefail
build=$(cd "$1" && pwd)
plugin=$2
deb_arch=${3:-$(dpkg --print-architecture 2>/dev/null || echo amd64)}
rpm_arch=${4:-$(uname -m)}
emulator=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
for tool in dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev rpmbuild:rpm rpm2archive:rpm2cpio; do
    command -v "${tool%%:*}" >/dev/null ||
        fail "${tool%%:*} is missing (Debian: ${tool#*:}; bash tools/install-deps.sh)"
done
# dpkg-shlibdeps reads the target's objdump and libraries when DEB_HOST_ARCH names it
DEB_HOST_ARCH=$deb_arch "${CPACK:-cpack}" --config "$build/CPackConfig.cmake" -B "$tmp/out" -G "DEB;RPM" \
    >"$tmp/cpack.log" 2>&1 || fail "cpack failed: $(tail -20 "$tmp/cpack.log")"
deb=$(ls "$tmp"/out/precheck_*_"$deb_arch".deb)
rpm=$(ls "$tmp"/out/precheck-*."$rpm_arch".rpm)
echo "packages: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB), $(basename "$rpm") ($(du -k "$rpm" | cut -f1) KiB)"

want=(usr/bin/precheck usr/share/man/man1/precheck.1.gz usr/share/bash-completion/completions/precheck
    usr/share/precheck/config.yaml usr/share/doc/precheck/README.md
    usr/share/doc/precheck/examples/gpt_tensor/dump.json)
[[ $plugin == ON ]] && want+=(usr/lib/precheck/precheck-backend-torch.so)

# ---- .deb ----
deb_files=$(dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./||')
for f in "${want[@]}"; do
    grep -qx -- "$f" <<<"$deb_files" || fail "$(basename "$deb") does not hold /$f"
done
[[ $(dpkg-deb -f "$deb" Architecture) == "$deb_arch" ]] || fail "the .deb's Architecture is not $deb_arch"
depends=$(dpkg-deb -f "$deb" Depends)
for pkg in libc6 libgomp1 libyaml-0-2; do
    grep -qE "(^|, )$pkg( |,|$)" <<<"$depends" || fail "the .deb's Depends ($depends) lacks $pkg"
done
grep -qE "libopenblas0|libblas3" <<<"$depends" || fail "the .deb's Depends ($depends) names no BLAS"
echo "deb: ${#want[@]} required files, Depends: $depends"

# ---- .rpm ----
rpm_files=$(rpm -qlp "$rpm" 2>/dev/null | sed 's|^/||')
for f in "${want[@]}"; do
    grep -qx -- "$f" <<<"$rpm_files" || fail "$(basename "$rpm") does not hold /$f"
done
requires=$(rpm -qp --requires "$rpm" 2>/dev/null | tr '\n' ' ')
for so in libopenblas.so.0 libyaml-0.so.2 libgomp.so.1 libc.so.6 libm.so.6; do
    grep -q "$so" <<<"$requires" || fail "the .rpm does not require $so (it requires: $requires)"
done
[[ $(rpm -qp --qf '%{ARCH}' "$rpm" 2>/dev/null) == "$rpm_arch" ]] || fail "the .rpm's arch is not $rpm_arch"
echo "rpm: ${#want[@]} required files, requires: $(grep -oE '[a-z0-9_.+-]+\.so\.[0-9]+[^ ]*' <<<"$requires" | sort -u | tr '\n' ' ')"

# ---- the unpacked binaries run an example from another folder ----
mkdir -p "$tmp/deb" "$tmp/rpm" "$tmp/work"
dpkg-deb -x "$deb" "$tmp/deb"
rpm2archive - <"$rpm" | tar -xz -C "$tmp/rpm"
cd "$tmp/work"
# under an emulator, in process (--jobs 0): qemu-user can deadlock when a guest with threads
# forks (tests/aarch64.sh)
inproc=()
[[ -n $emulator ]] && inproc=(--jobs 0)
for root in deb rpm; do
    # shellcheck disable=SC2086
    $emulator "$tmp/$root/usr/bin/precheck" run_ut --no-progress -o "$root" "${inproc[@]}" \
        -api_info "$tmp/$root/usr/share/doc/precheck/examples/gpt_stats/dump.json" >"$root.log" 2>&1 ||
        fail "the precheck of the .$root failed on its example (exit $?): $(tail -3 "$root.log")"
done
cmp -s deb/accuracy_checking_details_*.csv rpm/accuracy_checking_details_*.csv ||
    fail "the binaries of the .deb and the .rpm wrote different CSVs"
echo "the .deb's and the .rpm's precheck run their example from another folder: the same CSVs"
echo "install.package: ok"
