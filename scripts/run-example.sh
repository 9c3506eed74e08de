#!/usr/bin/env bash
# The main job on a bundled real capture: sets up, builds, and lists the
# flows of the TCP Prague capture (AccECN, through a DualPI2 bottleneck).
# Usage: scripts/run-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
build/cli/ccreplay flows testdata/tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz
