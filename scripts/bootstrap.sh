#!/usr/bin/env bash
# Installs the Debian packages ccreplay needs to build and test, and only
# those that are missing. Idempotent; silent when everything is present.
# Usage: scripts/bootstrap.sh [EXTRA_PACKAGE...]
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config iproute2
  libpcap-dev libabsl-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev libsimdjson-dev zlib1g-dev
  clang libclang-rt-14-dev
  chromium  # reports/report_browser_test.sh: the HTML report in a real browser
  tshark  # the independent dissector tests cross-check against (flow facts, out-of-order counts)
  jq  # README examples pipe --json through it (ctest readme_examples)
  golang-github-gopacket-gopacket-dev  # gopacket's test captures, read by tests in place
  ngtcp2-server ngtcp2-client openssl  # lab --transfer ngtcp2: gtlsserver/gtlsclient, the throwaway key pair
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "bootstrap: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
