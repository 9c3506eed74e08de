#!/usr/bin/env bash
# Fidelity of the fitted replay against the Linux kernel's own cwnd, and the
# fitted sender configuration against the one the lab recorded (issue 14).
#
# The matrix (matrix_cases below): {reno, cubic} x base RTT {0, 10, 20,
# 40, 80 ms} x {small drop-tail buffer, large one, RFC 3168 step marking}
# x {paced, unpaced} (`ccreplay lab --paced on|off`, the built-in sender),
# plus a receive-window-limited slow start, an application-limited phase
# before bulk and two competing flows, paced and unpaced: a 3 s bundle each
# with `ccreplay lab` (20 Mbit/s; in a temporary directory, deleted at the
# end), then a replay of the sender capture against the bundle's tcp_probe
# trace with `--cc NAME:linux` and nothing else: the capture alone, not
# meta.json, so every setting is fitted, not recorded. One row per flow:
# median and p95 per-ACK error over every ACK of the fitted replay and per
# phase, the fitted paced / hz / gso next to meta.json's, and how many
# model_divergence findings `diagnose` raises on the bundle's flow.
#
# Then bbr:linux on each checked-in BBR lab bundle (testdata/lab/bbr_*,
# issue 20): per-ACK cwnd error against the bundle's tcp_probe, replayed
# with the PROBE_BW start phase read off its ss log; the bw / min RTT /
# mode agreement with ss is asserted per bundle in
# replay/bbr_fidelity_test.cc (`meets`: there within issue 20's bounds).
#
# Needs root (network namespaces). Usage: sudo bench/fidelity.sh
# (`bench/fidelity.sh bbr`: only the BBR rows, no root). FIDELITY_ONLY=REGEX
# runs only the matching cases; FIDELITY_KEEP=DIR keeps the bundles in DIR
# and reuses those already there (replay only). FIDELITY_CCS="dctcp" runs
# the matrix with other controllers than reno and cubic (dctcp: in a 6.1
# VM, below); FIDELITY_MAKE_ONLY=1 makes the bundles (in FIDELITY_KEEP)
# and replays none, for a VM whose emulated CPU would slow the replays:
#   sudo VM_TCG=1 scripts/vm-lab.sh /tmp/dvm 'modprobe tcp_dctcp &&
#     FIDELITY_CCS=dctcp FIDELITY_MAKE_ONLY=1 FIDELITY_KEEP=/tmp/dvm
#     bench/fidelity.sh'
#   bench/fidelity.sh dctcp /tmp/dvm
set -euo pipefail
cd "$(dirname "$0")/.."
ccreplay=${CCREPLAY:-build/cli/ccreplay}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One row per BBR bundle: folder, start phase, meets the bounds (y/n).
bbr_rows() {
  printf '%-46s %5s %8s %8s %8s  %s\n' bundle phase samples med_err% \
    p95_err% meets
  while read -r bundle phase meets; do
    dir="testdata/lab/$bundle"
    "$ccreplay" replay "$dir/sender.pcap.gz" --probe \
      "$dir/tcp_probe.txt.gz" --cc "bbr:linux,phase=$phase" --json \
      >"$work/bbr.json"
    python3 - "$bundle" "$phase" "$meets" "$work/bbr.json" <<'PY'
import json, sys
bundle, phase, meets, path = sys.argv[1:]
c = json.load(open(path))["controllers"][0]
pct = lambda v: "n/a" if v is None else "%.2f" % v
print("%-46s %5s %8s %8s %8s  %s" % (bundle, phase, c.get("samples", "n/a"),
      pct(c.get("median_abs_err_pct")), pct(c.get("p95_abs_err_pct")), meets))
PY
  done <<'ROWS'
bbr_20mbit_0ms_pfifo50 0 n
bbr_20mbit_0ms_pfifo50_applimited1500ms 0 n
bbr_20mbit_10ms_pfifo50 2 y
bbr_20mbit_10ms_ecn_step30k 0 y
bbr_20mbit_20ms_pfifo50 0 y
bbr_20mbit_40ms_pfifo50 4 y
bbr_20mbit_40ms_ecn_step30k_applimited1500ms 0 y
ROWS
}

if [[ "${1:-}" == bbr ]]; then
  bbr_rows
  exit 0
fi

# The matrix (issue 14 item 4): one lab case per line, "name lab-args...".
# 20 Mbit/s: the BDP is 2500 bytes per ms of base RTT, about 5/3 packets.
# Buffers: small = max(10, BDP/4) packets, large = max(20, 2 BDP); step =
# RFC 3168 ECN with a 30 kB step marker over a queue that does not drop.
# DCTCP is not in the default matrix (this kernel has no tcp_dctcp): its
# bundles come from a 6.1 VM (FIDELITY_CCS=dctcp FIDELITY_MAKE_ONLY=1, above)
# and are replayed by the `dctcp` mode.
matrix_cases() {
  local cc rtt bdp small large step pacing
  for cc in ${FIDELITY_CCS:-reno cubic}; do
    for rtt in 0 10 20 40 80; do
      bdp=$((rtt * 5 / 3))
      small=$((bdp / 4 > 10 ? bdp / 4 : 10))
      large=$((2 * bdp > 20 ? 2 * bdp : 20))
      step=$((2 * bdp + 50 > 100 ? 2 * bdp + 50 : 100))
      for pacing in on off; do
        echo "${cc}_${rtt}ms_small_p$pacing --cc $cc --delay ${rtt}ms" \
          "--queue ${small}p --paced $pacing"
        echo "${cc}_${rtt}ms_large_p$pacing --cc $cc --delay ${rtt}ms" \
          "--queue ${large}p --paced $pacing"
        echo "${cc}_${rtt}ms_step_p$pacing --cc $cc --delay ${rtt}ms" \
          "--queue ${step}p --ecn rfc3168 --mark step:30000 --paced $pacing"
      done
    done
  done
  for cc in ${FIDELITY_CCS:-reno cubic}; do
    for pacing in on off; do
      # Receive-window-limited slow start: at 100 Mbit/s and 40 ms the
      # receiver's initial window (tcp_rmem) holds the sender back.
      echo "${cc}_rwnd_p$pacing --cc $cc --rate 100mbit --delay 40ms" \
        "--queue 700p --paced $pacing"
      echo "${cc}_applimited_p$pacing --flows $cc:rate=5mbit:rate_for=1500ms" \
        "--delay 20ms --queue 68p --paced $pacing"
      echo "${cc}_two_p$pacing --flows $cc,$cc --delay 20ms --queue 68p" \
        "--paced $pacing"
    done
  done
}

# One row per data flow of a bundle: the fitted replay against tcp_probe
# (all ACKs and per phase: median/p95), the fitted paced/hz/gso and
# meta.json's, and the model_divergence findings of `diagnose` on it.
bundle_rows() {
  local name=$1 dir=$2 cc=$3 flows pcap=$2/sender.pcap probe=$2/tcp_probe.txt
  [[ -f $pcap ]] || pcap=$pcap.gz
  [[ -f $probe ]] || probe=$probe.gz
  flows=$("$ccreplay" flows "$pcap" --json | python3 -c '
import json, sys
print(" ".join(str(f["identity"]["index"]) for f in json.load(sys.stdin)["flows"]
               if f["summary"].get("data_bytes", 0) > 100000))')
  for flow in $flows; do
    "$ccreplay" replay "$pcap" --probe "$probe" \
      --flow "$flow" --cc "$cc" --json >"$work/replay.json" 2>/dev/null ||
      continue
    "$ccreplay" diagnose "$dir" --flow "$flow" --quiet \
      --json "$work/diagnose.json" >/dev/null 2>&1 || true
    # The same fitted spec against the lab's ss log (the kernel's cwnd as
    # ss printed it every 10 ms or more): replay --ss compares each sample
    # with the replay's cwnd after the ACKs the sample had seen (its
    # bytes_acked), while the timeline calls the sender cwnd-limited. HZ
    # is left out of the spec, to be fitted from the log's jiffy ticks.
    rm -f "$work/ss.json"
    if [[ -f "$dir/ss.log" ]]; then
      "$ccreplay" replay "$dir/sender.pcap" --ss "$dir/ss.log" \
        --flow "$flow" --cc "$(python3 -c '
import json, sys
spec = json.load(open(sys.argv[1]))["sender_config"]["fits"][0]["replayed_spec"]
print(",".join(p for p in spec.split(",") if not p.startswith("hz=")))
' "$work/replay.json")" --json >"$work/ss.json" 2>/dev/null || true
    fi
    python3 - "$name" "$flow" "$work/replay.json" "$dir/meta.json" \
      "$work/diagnose.json" "$work/fit_counts" "$work/ss.json" <<'PY'
import json, sys
name, flow, replay_path, meta_path, diag_path, count_path, ss_path = sys.argv[1:]
replay = json.load(open(replay_path))
sender = json.load(open(meta_path))["sender"]
try:
  findings = json.load(open(diag_path)).get("findings", [])
  md = str(sum(f.get("kind") == "model_divergence" for f in findings))
except (OSError, ValueError):
  md = "?"
c = replay["controllers"][0]
if not c.get("samples"):
  print("%-24s %2s  no tcp_probe sample" % (name, flow))
  sys.exit()
fit = replay["sender_config"]["fits"][0]
suffix = {"replay": "", "not_determinable": "(n)"}
got = {s["option"]: s.get("value", "") + suffix.get(s["source"], "(" +
       s["source"][0] + ")") for s in fit["settings"]}
# Fitted against meta.json, per option: match, wrong or undetermined.
with open(count_path, "a") as out:
  for s in fit["settings"]:
    rec = {"paced": sender.get("paced"), "hz": sender.get("config_hz"),
           "gso": sender.get("gso_max_size_bytes")}.get(s["option"])
    if rec is None:
      continue
    rec = str(int(rec) if isinstance(rec, bool) else rec)
    verdict = ("undetermined" if s["source"] == "not_determinable" else
               "match" if s.get("value") == rec else "wrong")
    out.write("%s %s %s %s\n" % (s["option"], verdict, name, flow))
pct = lambda v: "-" if v is None else "%.2f" % v
try:
  sc = json.load(open(ss_path))["controllers"][0]
  vs_ss = "%s/%s %d" % (pct(sc.get("median_abs_err_pct")),
                        pct(sc.get("p95_abs_err_pct")), sc.get("samples", 0))
except (OSError, ValueError, KeyError, IndexError):
  vs_ss = "-"
else:
  ss_fit = json.load(open(ss_path))["sender_config"]["fits"][0]["settings"]
  for st in ss_fit:
    if st["option"] == "hz" and sender.get("config_hz"):
      verdict = ("undetermined" if st["source"] == "not_determinable" else
                 "match" if st.get("value") == str(sender["config_hz"]) else
                 "wrong")
      with open(count_path, "a") as out:
        out.write("hz_ss %s %s %s\n" % (verdict, name, flow))
      vs_ss += " " + st.get("value", "") + suffix.get(st["source"], "(" +
                                                      st["source"][0] + ")")
  with open(count_path + ".ss", "a") as out:
    out.write("%s %s %s %s\n" % (name, flow, pct(sc.get("median_abs_err_pct")),
                                 pct(sc.get("p95_abs_err_pct"))))
pair = lambda key: "%s/%s" % (pct(c.get("by_phase", {}).get(key)),
                              pct(c.get("by_phase_p95", {}).get(key)))
rec = lambda v: "-" if v is None else str(int(v) if isinstance(v, bool) else v)
print("%-24s %2s %6d %6s %6s  %-22s %-11s %-11s %-11s  %-5s %-5s %-6s  %-3s %-4s %-5s  %s" % (
  name, flow, c["samples"], pct(c.get("median_abs_err_pct")),
  pct(c.get("p95_abs_err_pct")), vs_ss, pair("slow_start"),
  pair("congestion_avoidance"), pair("recovery"), got.get("paced", "-"),
  got.get("hz", "-"), got.get("gso", "-"), rec(sender.get("paced")),
  rec(sender.get("config_hz")), rec(sender.get("gso_max_size_bytes")), md))
PY
  done
}

header() {
  printf '%-24s %2s %6s %6s %6s  %-22s %-11s %-11s %-11s  %-5s %-5s %-6s  %-3s %-4s %-5s  %s\n' \
    case flow acks med% p95% sslog_med/p95_n_hz ss_med/p95 ca_med/p95 \
    rec_med/p95 paced hz gso rec rhz rgso md
}

# DCTCP (`bench/fidelity.sh dctcp [DIR]`, no root): `--cc dctcp` on every
# bundle in DIR (default: the checked-in testdata/lab/*_dctcp_*), made on
# Debian 12's Linux 6.1 in a VM by scripts/vm-lab.sh (this host's kernel
# has no tcp_dctcp; docs/controllers.md "The fidelity matrix").
if [[ "${1:-}" == dctcp ]]; then
  header
  for meta in "${2:-testdata/lab}"/*/meta.json; do
    dir=$(dirname "$meta")
    [[ -z "${2:-}" && $(basename "$dir") != *_dctcp_* ]] && continue
    bundle_rows "$(basename "$dir")" "$dir" dctcp
  done
  exit 0
fi

header
matrix_cases | while read -r name args; do
  [[ -n "${FIDELITY_ONLY:-}" && ! "$name" =~ $FIDELITY_ONLY ]] && continue
  dir="${FIDELITY_KEEP:-$work}/$name"
  # shellcheck disable=SC2086  # args is a word list.
  # A bundle whose run failed (meta.json "complete": false) is made again.
  if { [[ ! -f "$dir/meta.json" ]] ||
    grep -q '"complete": false' "$dir/meta.json"; } &&
    ! "$ccreplay" lab --rate 20mbit --duration 3s --transfer builtin $args \
    -o "$dir" >"$work/lab.log" 2>&1; then
    echo "$name: lab failed: $(tail -1 "$work/lab.log")"
    continue
  fi
  [[ -n "${FIDELITY_MAKE_ONLY:-}" ]] && continue
  bundle_rows "$name" "$dir" "${name%%_*}:linux"
  if [[ -z "${FIDELITY_KEEP:-}" ]]; then rm -rf "$dir"; fi
done
[[ -n "${FIDELITY_MAKE_ONLY:-}" ]] && exit 0
echo "med/p95: per-ACK |replay - tcp_probe| / tcp_probe, percent, every ACK;" \
  "sslog: the same replay against the bundle's ss log, median/p95 and" \
  "samples compared (cwnd-limited ones), hz fitted with it ((s) the" \
  "log's jiffy ticks); per phase (ss = slow start) of the model. paced/hz/gso: fitted ((g) departure gaps," \
  "(c) the capture's segment sizes, (n) not determinable, else by" \
  "replay); rec/rhz/rgso: meta.json; md: model_divergence findings of" \
  "diagnose on the bundle"
# Fitted = recorded, per option over every flow: a not determinable one
# is counted as such, not as a match.
if [[ -s "$work/fit_counts" ]]; then
  for option in paced hz gso hz_ss; do
    awk -v o="$option" '$1 == o { n++; c[$2]++ } END {
      printf "fitted %s = meta.json on %d of %d flows, wrong on %d, not" \
        " determinable on %d\n", o, c["match"], n, c["wrong"],
        c["undetermined"] }' "$work/fit_counts"
  done
  grep -v ' match ' "$work/fit_counts" | sort || true
fi
# Against ss (issue 14: median <= 2 % on every flow).
if [[ -s "$work/fit_counts.ss" ]]; then
  awk '{ n++; if ($3 != "-" && $3 <= 2) ok++; if ($3 != "-" && $3 > worst)
    worst = $3 } END { printf "against ss: median <= 2 %% on %d of %d flows" \
    " with an ss log (worst median %.2f %%)\n", ok, n, worst }' \
    "$work/fit_counts.ss"
fi
echo
bbr_rows
