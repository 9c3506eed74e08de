#!/usr/bin/env bash
# The main job on a capture the project ships: sets up, builds, and
# diagnoses testdata/sim/prague_v05_rtt_scaling_1gbit.pcap.gz (the
# simulator's export of a TCP Prague v0.5 flow whose RTT scaling starves it
# at 1 Gbit/s and 0.4 ms; scripts/make-sim-captures.sh), writing
# report.html here and a summary to the terminal. Usage: scripts/run-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
build/cli/ccreplay diagnose testdata/sim/prague_v05_rtt_scaling_1gbit.pcap.gz -o report.html
