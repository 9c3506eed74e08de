#!/usr/bin/env bash
# The diagnosis report in a real browser: headless Chromium loads reports
# that `ccreplay diagnose` wrote (the shipped simulated Prague capture, a
# real Prague capture, a lab bundle, a QUIC qlog) from files and must show no console error, draw every plot's SVG
# with non-empty path data, zoom to a finding's time range when its link
# (#range=START,END) is followed, and render a screenshot that is not blank.
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

check_report() {
  local name=$1; shift
  local html="$work/$name.html"
  "$ccreplay" diagnose "$@" -o "$html" >/dev/null || fail "diagnose $*"
  browse "file://$html" --dump-dom
  local dom="$work/$name.dom"
  cp "$work/out" "$dom"
  grep -q '<svg class="chart"' "$dom" || fail "$name: no plot in the DOM"
  # Every figure: a band-only strip has bands, any other plot a series path
  # with data (d="M...").
  awk -v name="$name" 'BEGIN { RS = "<figure"; bad = 0; n = 0 }
    NR > 1 {
      n++
      if ($0 ~ /class="plot bandsonly"/) { if ($0 !~ /class="band"/) { print name ": empty band strip"; bad = 1 } }
      else if ($0 !~ /<path class="series[^"]*"[^>]*d="M[-0-9.]/) { print name ": plot " n " has no path data"; bad = 1 }
    }
    END { if (n < 5) { print name ": only " n " plots"; bad = 1 } exit bad }' "$dom" ||
    fail "$name: plot without data"
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
  browse "file://$html" --screenshot="$work/$name.png"
  [ -s "$work/$name.png" ] || fail "$name: no screenshot"
  local size distinct
  size=$(stat -c %s "$work/$name.png")
  distinct=$(od -An -tu1 -v "$work/$name.png" | tr -s ' ' '\n' | sort -u | wc -l)
  # A blank page compresses to a few kB with few distinct byte values.
  [ "$size" -gt 40000 ] && [ "$distinct" -gt 200 ] ||
    fail "$name: screenshot looks blank ($size bytes, $distinct distinct byte values)"
  if [ -n "${KEEP_SCREENSHOTS:-}" ]; then cp "$work/$name.png" "$work/$name.html" "$KEEP_SCREENSHOTS/"; fi
  echo "ok: $name ($(stat -c %s "$html") bytes of HTML, screenshot $size bytes)"
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
