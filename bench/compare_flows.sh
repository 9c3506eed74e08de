#!/usr/bin/env bash
# Times `ccreplay flows` against a bare libpcap loop, `tcptrace -n -l` and
# `tshark -q -z conv,tcp` on one large real capture, and reports packets per
# second and peak memory (max RSS) of each.
#
# The capture is made from the bundled real lab captures: COPIES copies of
# each, shifted in time one after the other (editcap -t) and appended
# (mergecap -a). Each copy's connection closes before the next one's SYN,
# so every copy is a flow of its own.
#
# Usage: bench/compare_flows.sh [COPIES (default 20: about 2.3 million packets)]
set -euo pipefail
cd "$(dirname "$0")/.."
copies=${1:-20}
scripts/bootstrap.sh tcptrace tshark time
scripts/build.sh >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
big=$work/big.pcap
parts=()
i=0
for c in $(seq 1 "$copies"); do
  for f in testdata/lab/*/sender.pcap.gz testdata/lab/*/receiver.pcap.gz; do
    out=$work/part$i.pcap
    zcat "$f" > "$work/plain.pcap"
    editcap -t $((i * 10)) "$work/plain.pcap" "$out"
    parts+=("$out")
    i=$((i + 1))
  done
done
mergecap -a -F pcap -w "$big" "${parts[@]}"
rm -f "${parts[@]}" "$work/plain.pcap"
packets=$(capinfos -c -M "$big" | awk '/Number of packets/ {print $NF}')
bytes=$(stat -c %s "$big")
echo "capture: $packets packets, $bytes bytes"
cat "$big" > /dev/null  # warm the page cache for everyone alike

measure() {  # runs, name, command...: the best of `runs` runs
  local runs=$1 name=$2; shift 2
  local best=""
  local rss=""
  for run in $(seq 1 "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" > /dev/null 2>"$work/err" || {
      echo "$name failed:"; cat "$work/err"; return 1; }
    read -r secs kb < "$work/time"
    if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs; rss=$kb; fi
  done
  awk -v n="$name" -v s="$best" -v p="$packets" -v kb="$rss" \
    'BEGIN { printf "%-28s %8.2f s %12.0f packets/s %8.1f MiB peak RSS\n", n, s, (s > 0 ? p / s : 0), kb / 1024 }'
}

measure 3 "bare libpcap loop" build/bench/pcap_bare_loop "$big"
measure 3 "ccreplay flows" build/cli/ccreplay flows "$big"
measure 3 "ccreplay flows --json" build/cli/ccreplay flows --json "$big"
measure 3 "tcptrace -n -l" tcptrace -n -l "$big"
# tshark takes minutes on this capture: one run.
measure 1 "tshark -q -z conv,tcp" tshark -q -n -z conv,tcp -r "$big"
