#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, build-fuzz/) if needed
# and runs each for SECONDS, two at a time (FUZZ_JOBS), under `nice`. New
# inputs go to build-fuzz/fuzz-work/NAME/corpus (the checked-in corpus
# fuzz/corpus/NAME is read, never written); crash, leak, timeout and OOM
# inputs to build-fuzz/fuzz-work/NAME/. Prints per target the executions,
# executions per second, crashes and each crash file; exits 1 on a crash.
# Seeds cut from the test data by scripts/fuzz-seeds.sh (in
# build-fuzz/fuzz-seeds/NAME) are read too when present.
# FUZZ_MERGE=1: afterwards, minimise the checked-in corpus with the run's
# new inputs (`-merge=1`; the seeds are left out, so no test-data file is
# ever copied into fuzz/corpus). The merge keeps the inputs that add edge
# coverage (`-use_counters=0`): hit-count variants stay in the work corpus,
# so the checked-in one stays small (about a tenth of the inputs).
# FUZZ_ARGS: more libFuzzer flags (e.g. "-fork=1 -ignore_crashes=1" to go
# on past a known fault).
# Each target runs with its own -max_len (below): libFuzzer otherwise takes
# the largest seed (64 KiB capture slices), and an execution costs in
# proportion to its input (every packet through every controller, for
# replay). The lengths hold what each target needs to reach its code:
#   pcap 16384: ~100 packets of a capture, every link type and block kind;
#   timeline, qlog 8192: ~60 packets (slow start, a loss, its recovery,
#     SACK), or a qlog header and a few dozen events;
#   replay, diagnose 4096: ~35 packets, each replayed through every
#     controller (diagnose: then fitted, ruled on and rendered);
#   ss, tcp_probe, quicly, detect, gzip 4096: a few snapshots or a few
#     dozen events (an `ss -ti` record is under 2 KiB).
# Longer seeds are read cut to that length (libFuzzer's FileToVector).
# replay, diagnose, timeline and detect run with -entropic=0: their inputs
# reach 12,000-33,000 coverage features, and the entropic schedule's
# bookkeeping per feature and execution (UpdateFeatureFrequency, 33-53% of
# a timeline, detect or ss run in perf) weighs as much as the target.
# The first 6,000 executions (replay 4,000, diagnose 3,000) from the
# checked-in corpus, -seed=1, CPU seconds with and without (docs/fuzzing.md,
# 2026-12-02): replay 9.96 / 3.65, diagnose 18.03 / 9.14, timeline
# 3.49 / 1.37, detect 5.57 / 2.95, with the same edge coverage at the end
# (within 0.2%); ss 2.47 / 2.63 keeps it.
# Usage: scripts/fuzz.sh SECONDS [TARGET...]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}"
shift
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=($(sed -n 's/^ccreplay_fuzzer(\([a-z_]*\) .*/\1/p' fuzz/CMakeLists.txt))
fi
jobs="${FUZZ_JOBS:-2}"

if [ ! -f build-fuzz/build.ninja ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCCREPLAY_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
fi
nice cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}"

# max_len NAME: the target's -max_len (see above).
max_len() {
  case "$1" in
    pcap_fuzzer) echo 16384 ;;
    timeline_fuzzer | qlog_fuzzer) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

# entropic NAME: the target's -entropic (see above).
entropic() {
  case "$1" in
    replay_fuzzer | diagnose_fuzzer | timeline_fuzzer | detect_fuzzer) echo 0 ;;
    *) echo 1 ;;
  esac
}

# One target's run: its log is build-fuzz/fuzz-work/NAME/log.
run_one() {
  local name="$1" work="build-fuzz/fuzz-work/$1"
  local seeds=()
  mkdir -p "$work/corpus" "fuzz/corpus/$name"
  [ -d "build-fuzz/fuzz-seeds/$name" ] && seeds=("build-fuzz/fuzz-seeds/$name")
  nice "build-fuzz/fuzz/$name" "$work/corpus" "fuzz/corpus/$name" \
    "${seeds[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -max_len="$(max_len "$name")" -entropic="$(entropic "$name")" \
    -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$work/" \
    ${FUZZ_ARGS:-} >"$work/log" 2>&1 || true
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    rm -rf "$work/merged" && mkdir "$work/merged"
    nice "build-fuzz/fuzz/$name" -merge=1 -use_counters=0 "$work/merged" \
      "fuzz/corpus/$name" \
      "$work/corpus" >"$work/merge.log" 2>&1 &&
      rm -rf "fuzz/corpus/$name" && mv "$work/merged" "fuzz/corpus/$name"
  fi
}
export -f run_one max_len entropic
export seconds
for name in "${targets[@]}"; do
  rm -f build-fuzz/fuzz-work/"$name"/{crash,leak,timeout,oom,slow-unit}-*
done
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'

status=0
printf '%-18s %12s %8s %8s\n' target executions exec/s crashes
for name in "${targets[@]}"; do
  work="build-fuzz/fuzz-work/$name"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
  if [ -z "$execs" ]; then  # -fork: no final stats, the last status line
    execs=$(sed -n 's/^#\([0-9]*\):* .*/\1/p' "$work/log" | tail -1)
    rate=$(sed -n 's/^#.* exec\/s: \([0-9]*\).*/\1/p' "$work/log" | tail -1)
  fi
  crashes=($(ls "$work"/{crash,leak,timeout,oom}-* 2>/dev/null || true))
  printf '%-18s %12s %8s %8s\n' "$name" "${execs:-?}" "${rate:-?}" "${#crashes[@]}"
  for f in "${crashes[@]}"; do echo "  $f"; done
  if [ "${#crashes[@]}" -gt 0 ] || [ -z "$execs" ]; then status=1; fi
done
exit "$status"
