#!/usr/bin/env bash
# The main job on a bundled real capture: sets up, builds, and diagnoses the
# TCP Prague flow of testdata/tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz
# (AccECN through a DualPI2 bottleneck), writing report.html here and a
# summary to the terminal. Usage: scripts/run-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
build/cli/ccreplay diagnose testdata/tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz -o report.html
