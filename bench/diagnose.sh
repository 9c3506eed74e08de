#!/usr/bin/env bash
# Times `ccreplay diagnose` (report written) against `tcptrace -G` (which
# writes its xplot graphs) on one large single-flow capture, and reports
# wall time, peak memory (max RSS) and the report's size in bytes.
#
# The capture is the motivating case made by the simulator: one TCP Prague
# v0.5 flow over 1 Gbit/s with a 0.4 ms base RTT and CE marking above 5 ms
# (`ccreplay simulate --pcap`), SECONDS long (default 20: about 2.6 million
# packets, data and ACKs).
#
# Usage: bench/diagnose.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
ccreplay=${CCREPLAY:-build/cli/ccreplay}
scripts/bootstrap.sh tcptrace time
[ -n "${CCREPLAY:-}" ] || scripts/build.sh >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big=$work/prague.pcap
"$ccreplay" simulate --rate 1gbit --delay 400us --buffer 100ms --cc prague:v05 --pacing \
  --ce_threshold 5ms --duration "${seconds}s" --pcap "$big" >/dev/null 2>&1
packets=$("$ccreplay" flows --json "$big" | grep -o '"packets_data_dir": *[0-9]*\|"packets_ack_dir": *[0-9]*' |
  awk -F: '{s += $2} END {print s}')
echo "capture: $packets packets, $(stat -c %s "$big") bytes"
cat "$big" >/dev/null  # warm the page cache for both alike

measure() {  # name, command...: one run
  local name=$1; shift
  (cd "$work" && /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err") || {
    echo "$name failed:"; cat "$work/err"; return 1; }
  read -r secs kb < "$work/time"
  awk -v n="$name" -v s="$secs" -v kb="$kb" \
    'BEGIN { printf "%-34s %8.2f s %8.1f MiB peak RSS\n", n, s, kb / 1024 }'
}

measure "ccreplay diagnose -o report.html" "$(realpath "$ccreplay")" diagnose "$big" -o "$work/report.html"
echo "report.html: $(stat -c %s "$work/report.html") bytes"
measure "tcptrace -G" tcptrace -n -G "$big"
echo "tcptrace graphs: $(cat "$work"/*.xpl 2>/dev/null | wc -c) bytes in $(ls "$work"/*.xpl 2>/dev/null | wc -l) files"
