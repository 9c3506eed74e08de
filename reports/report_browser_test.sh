#!/usr/bin/env bash
# The diagnosis report in a real browser: headless Chromium loads reports
# that `ccreplay diagnose` wrote (the shipped simulated Prague capture, a
# real Prague capture, a lab bundle, a QUIC qlog; the multi-flow report of
# two simulated flows, of a lab bundle's two flows and of two qlogs) from
# files and must show no console error, draw every plot's SVG
# with non-empty path data, zoom to a finding's time range when its link
# (#range=START,END) is followed, and render a screenshot that is not blank;
# a multi-flow report's shared view shows its pair's attribution.
# The flow index page (`diagnose --flows all -o`) must load without a
# console error, hold a row per flow, and sort when a header is clicked.
# Exits 77 (ctest SKIP_RETURN_CODE) when /usr/bin/chromium is absent; a
# third-party input absent from SHARED_TESTDATA_DIR (../shared/testdata,
# testdata/SOURCES.md) is skipped with a line saying so.
# Usage: report_browser_test.sh CCREPLAY TESTDATA_DIR SHARED_TESTDATA_DIR
set -euo pipefail
ccreplay=$1
testdata=$2
shared=$3
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "SKIP: $chromium not found (Debian package chromium; scripts/bootstrap.sh installs it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs Chromium on URL with extra flags; stdout to $work/out, log to $work/log.
browse() {
  local url=$1; shift
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d -p "$work")" --enable-logging=stderr --v=0 \
    --window-size=1280,2600 "$@" "$url" >"$work/out" 2>"$work/log" || true
  # Console messages and uncaught exceptions are logged as CONSOLE lines.
  if grep -E 'CONSOLE|Uncaught' "$work/log"; then fail "console output loading $url"; fi
}

# Every figure of DOM: a band-only strip has bands, any other plot a series
# path with data (d="M..."); at least MIN figures.
check_figures() {
  local name=$1 dom=$2 min=$3
  awk -v name="$name" -v min="$min" 'BEGIN { RS = "<figure"; bad = 0; n = 0 }
    NR > 1 {
      n++
      if ($0 ~ /class="plot bandsonly"/) { if ($0 !~ /class="band"/) { print name ": empty band strip"; bad = 1 } }
      else if ($0 !~ /<path class="series[^"]*"[^>]*d="M[-0-9.]/) { print name ": plot " n " has no path data"; bad = 1 }
    }
    END { if (n < min) { print name ": only " n " plots"; bad = 1 } exit bad }' "$dom" ||
    fail "$name: plot without data"
}

# A screenshot of URL that is not blank.
check_screenshot() {
  local name=$1 url=$2
  browse "$url" --screenshot="$work/$name.png"
  [ -s "$work/$name.png" ] || fail "$name: no screenshot"
  local size distinct
  size=$(stat -c %s "$work/$name.png")
  distinct=$(od -An -tu1 -v "$work/$name.png" | tr -s ' ' '\n' | sort -u | wc -l)
  # A blank page compresses to a few kB with few distinct byte values.
  [ "$size" -gt 40000 ] && [ "$distinct" -gt 200 ] ||
    fail "$name: screenshot looks blank ($size bytes, $distinct distinct byte values)"
  if [ -n "${KEEP_SCREENSHOTS:-}" ]; then cp "$work/$name.png" "$KEEP_SCREENSHOTS/"; fi
  echo "ok: $name (screenshot $size bytes)"
}

check_report() {
  local name=$1; shift
  local html="$work/$name.html"
  "$ccreplay" diagnose "$@" -o "$html" >/dev/null || fail "diagnose $*"
  browse "file://$html" --dump-dom
  local dom="$work/$name.dom"
  cp "$work/out" "$dom"
  grep -q '<svg class="chart"' "$dom" || fail "$name: no plot in the DOM"
  check_figures "$name" "$dom" 5
  # Following the first finding's link zooms every plot to its range.
  local link start end
  link=$(grep -o 'href="#range=[^"]*"' "$html" | head -1 | sed 's/href="#range=//; s/"$//') || true
  if [ -n "$link" ]; then
    start=${link%,*}
    browse "file://$html#range=$link" --dump-dom
    grep -q '<rect class="finding"' "$work/out" || fail "$name: link to $link drew no range"
    # The data viewBox now starts at the range (less 10 % padding).
    local x
    x=$(grep -o '<svg class="data"[^>]*viewBox="[^ ]*' "$work/out" | head -1 | sed 's/.*viewBox="//')
    awk -v x="$x" -v s="$start" 'BEGIN { exit !(x <= s && x > s - 0.5 * (s + 1)) }' ||
      fail "$name: zoomed to $x, not to $start"
  fi
  check_screenshot "$name" "file://$html"
  echo "ok: $name ($(stat -c %s "$html") bytes of HTML)"
}

# The multi-flow report (`diagnose --flows LIST` or several inputs): the
# shared view's plots and each flow's drawn; #flow-b opens B's section; a
# link into B's findings (#b-range=S,E) opens it and zooms its plots; the
# shared view's link (#shared-range=S,E) zooms the shared plots only.
check_multiflow() {
  local name=$1; shift
  local html="$work/$name.html"
  "$ccreplay" diagnose "$@" -o "$html" >/dev/null || fail "diagnose $*"
  browse "file://$html" --dump-dom
  local dom="$work/$name.dom"
  cp "$work/out" "$dom"
  grep -q '<details class="flow" id="flow-a"' "$dom" || fail "$name: no section for flow A"
  grep -q '<details class="flow" id="flow-b"' "$dom" || fail "$name: no section for flow B"
  grep -q 'id="shared-plot-throughput"' "$dom" || fail "$name: no shared throughput plot"
  # Shared plots (throughput, share, Jain, cwnd, RTT) and two flows' own.
  check_figures "$name" "$dom" 15
  browse "file://$html#flow-b" --dump-dom
  grep -q '<details class="flow" id="flow-b" open' "$work/out" || fail "$name: #flow-b did not open B"
  local link
  link=$(grep -o 'href="#b-range=[^"]*"' "$html" | head -1 | sed 's/href="#//; s/"$//') || true
  if [ -n "$link" ]; then
    browse "file://$html#$link" --dump-dom
    grep -q '<details class="flow" id="flow-b" open' "$work/out" || fail "$name: #$link did not open B"
    # The zoom drew its range in B's section, not in A's.
    # (Parts of the DOM to files first: grep -q ending a pipe early fails it.)
    sed -n '/id="flow-b"/,$p' "$work/out" >"$work/part"
    grep -q '<rect class="finding"' "$work/part" || fail "$name: #$link drew no range in B"
    sed -n '/id="flow-a"/,/id="flow-b"/p' "$work/out" >"$work/part"
    if grep -q '<rect class="finding"' "$work/part"; then fail "$name: #$link drew a range in A"; fi
  fi
  link=$(grep -o 'href="#shared-range=[^"]*"' "$html" | head -1 | sed 's/href="#//; s/"$//') || true
  [ -n "$link" ] || fail "$name: the shared view has no compared pair"
  browse "file://$html#$link" --dump-dom
  sed -n '1,/id="flows"/p' "$work/out" >"$work/part"
  grep -q '<rect class="finding"' "$work/part" || fail "$name: #$link drew no range"
  check_screenshot "$name" "file://$html"
}

# The attribution of the compared pair as rendered in the shared view
# (before the flows' own sections): its sentence (the small-packet flow,
# SIZE bytes, and its growth per RTT), the packet-size cause among the
# finding's evidence, and the pair's row under the shares.
check_attribution() {
  local name=$1 size=$2
  sed -n '1,/id="flows"/p' "$work/$name.dom" >"$work/part"
  local text
  for text in "flow B, with $size-byte packets, got" "in congestion avoidance it grew" \
    "packet_size: in congestion avoidance" "B/A 0." "causes: packet_size 0." \
    "fitted simulation:"; do
    grep -qF "$text" "$work/part" || fail "$name: the shared view lacks \"$text\""
  done
  echo "ok: $name attribution"
}

check_report sim "$testdata/sim/prague_v05_rtt_scaling_1gbit.pcap.gz"
prague="$shared/tcp/l4s-tests_prague_dualpi2_wifi.pcap.gz"
if [ -r "$prague" ]; then
  check_report prague "$prague"
else
  echo "skip: prague: $prague is absent (third-party test data is not in the repository)"
fi
check_report lab "$testdata/lab/cubic_ecn_K60k_40mbit_ackdelay10ms"
check_report quic "$testdata/quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"
# Two Reno flows of 1462- and 1280-byte packets through one 20 Mb/s, 40 ms
# bottleneck (the simulator's export), and two qlogs as two inputs.
"$ccreplay" simulate --cc reno:mss=1462,reno:mss=1280 --rate 20mbit --delay 40ms \
  --duration 30s --pcap "$work/two_reno.pcap" >/dev/null 2>&1 || fail "simulate"
check_multiflow multiflow "$work/two_reno.pcap" --flows 0,1
check_attribution multiflow 1280
check_multiflow multilab "$testdata/lab/two_mss_1448_1188_shared_20mbit_40ms" --flows 0,1
check_attribution multilab 1188
check_multiflow multiqlog "$testdata/quic/ngtcp2_cubic_20mbit_pfifo12/server.sqlog.gz" \
  "$testdata/quic/ngtcp2_reno_20mbit_pfifo12/server.sqlog.gz"

# The flow index page: one row per flow; following #sort=4 clicks the
# "bytes" header (descending), #sort=4,4 clicks it twice (ascending).
# Prints the bytes column (data-v of the 5th cell) of the rows, in order.
index_bytes() {
  browse "file://$1$2" --dump-dom
  grep -o '<tr><td data-v="[^"]*">[^<]*</td><td class="text">[^<]*</td><td data-v="[^"]*">[^<]*</td><td data-v="[^"]*">[^<]*</td><td data-v="[^"]*"' "$work/out" |
    sed 's/.*data-v="//; s/"$//'
}
check_index() {
  local name=$1 input=$2 flows=$3
  local html="$work/$name.html"
  "$ccreplay" diagnose "$input" --flows all --sort index -o "$html" >/dev/null ||
    fail "diagnose --flows all $input"
  local rows
  rows=$(index_bytes "$html" "" | wc -l)
  [ "$rows" -eq "$flows" ] || fail "$name: $rows rows, not $flows"
  index_bytes "$html" "#sort=4" > "$work/desc"
  sort -g -r "$work/desc" | cmp -s - "$work/desc" || fail "$name: #sort=4 did not sort bytes descending"
  index_bytes "$html" "#sort=4,4" > "$work/asc"
  sort -g "$work/asc" | cmp -s - "$work/asc" || fail "$name: #sort=4,4 did not sort bytes ascending"
  [ "$(head -1 "$work/desc")" != "$(head -1 "$work/asc")" ] || fail "$name: both orders start alike"
  echo "ok: $name ($rows rows sorted both ways by a click)"
}
tls2="$shared/wild/pcapplusplus_tls2.pcap.gz"
if [ -r "$tls2" ]; then
  check_index index_wild "$tls2" 334  # tshark -q -z conv,tcp: 334 conversations.
else
  echo "skip: index_wild: $tls2 is absent (third-party test data is not in the repository)"
fi
check_index index_lab "$testdata/lab/reno_ecn1_stepK60k_50mbit" 2
