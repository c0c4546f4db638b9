#!/usr/bin/env bash
# memplan set-up: install the Debian 12 packages memplan needs (when missing),
# build, and plan the bundled example.  Run as root on a fresh machine:
#
#   ./setup.sh              install, build, run the example
#   ./setup.sh --deps-only  install only (what CI uses before `make check`)
set -euo pipefail
cd "$(dirname "$0")"

# Build and test tools, the libraries memplan links (libyaml, jansson), the
# test framework (cmocka), the Cortex-M cross toolchain and emulator for the
# on-target proof, cmake for the modules' CMakeLists.txt and the Cortex-M55
# example, Chromium for the HTML report test, python3-jsonschema for the
# residency report's schema test, and zsh to parse the zsh completion: every
# tool a test needs, since in CI a test that would skip fails instead
# (tests/suite_setup.sh checks that every tool a suite looks for is here).
PKGS="build-essential pkg-config clang libclang-rt-14-dev libyaml-dev libjansson-dev
      libcmocka-dev gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi
      qemu-system-arm cmake chromium python3 python3-jsonschema zsh"

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing:$missing"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: packages are missing and this is not root; run: sudo $0 $*" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing
fi
[ "${1:-}" = "--deps-only" ] && exit 0

make -j"$(nproc)"
echo
echo "setup: planning the bundled example (examples/kws/config.yaml)"
./build/release/memplan convert --path examples/kws/config.yaml
