#include "reports/limiter_runs.h"

#include <algorithm>
#include <cmath>

#include "reports/percentile.h"

namespace ccreplay {
namespace {

Limiter BinLimiter(const ObservationBin& b) {
  if (b.retransmissions > 0) return Limiter::kRecovery;
  const uint32_t* n = b.limit_acks;
  const int kinds[] = {
      static_cast<int>(SendLimit::kCwnd), static_cast<int>(SendLimit::kRwnd),
      static_cast<int>(SendLimit::kApp), static_cast<int>(SendLimit::kUnknown)};
  const Limiter as[] = {Limiter::kCwnd, Limiter::kRwnd, Limiter::kApp,
                        Limiter::kUnknown};
  int best = 3;
  for (int i = 0; i < 4; ++i) {
    if (n[kinds[i]] > n[kinds[best]]) best = i;
  }
  return as[best];
}

}  // namespace

const char* LimiterName(Limiter limiter) {
  switch (limiter) {
    case Limiter::kCwnd:
      return "cwnd";
    case Limiter::kRwnd:
      return "rwnd";
    case Limiter::kApp:
      return "app";
    case Limiter::kRecovery:
      return "recovery";
    case Limiter::kUnknown:
      break;
  }
  return "unknown";
}

const char* LimiterLabel(Limiter limiter) {
  switch (limiter) {
    case Limiter::kCwnd:
      return "cwnd (waiting for ACKs)";
    case Limiter::kRwnd:
      return "receive window";
    case Limiter::kApp:
      return "application (nothing to send)";
    case Limiter::kRecovery:
      return "loss recovery";
    case Limiter::kUnknown:
      break;
  }
  return "unknown / pacing";
}

LimiterCoverage CoverageOf(const std::vector<LimiterRun>& runs,
                           Limiter limiter) {
  LimiterCoverage c;
  for (const LimiterRun& r : runs) {
    if (r.limiter != limiter) continue;
    c.total_s += r.end_s - r.start_s;
    if (r.end_s - r.start_s > c.longest.end_s - c.longest.start_s)
      c.longest = r;
  }
  return c;
}

std::vector<LimiterRun> LimiterRuns(const FlowObserver& observed) {
  // Judge over about one smoothed RTT at a time: within an RTT a
  // window-limited sender alternates between sending and waiting.
  const double w = observed.bin_width_s();
  const std::vector<ObservationBin>& bins = observed.bins();
  std::vector<int64_t> srtts;
  for (const ObservationBin& b : bins) {
    if (b.srtt_us > 0) srtts.push_back(b.srtt_us);
  }
  size_t group = 1;
  if (!srtts.empty()) {
    group = std::max<size_t>(
        1, static_cast<size_t>(std::lround(Median(srtts) * 1e-6 / w)));
  }
  std::vector<LimiterRun> runs;
  for (size_t i = 0; i < bins.size(); i += group) {
    ObservationBin merged = bins[i];
    for (size_t j = i + 1; j < std::min(bins.size(), i + group); ++j)
      merged.Merge(bins[j]);
    const double start = i * w, end = std::min(bins.size(), i + group) * w;
    if (merged.acks == 0 && merged.retransmissions == 0 && !runs.empty()) {
      runs.back().end_s = end;
      continue;
    }
    const Limiter l = BinLimiter(merged);
    if (!runs.empty() && runs.back().limiter == l) {
      runs.back().end_s = end;
    } else {
      runs.push_back({l, start, end});
    }
  }
  return runs;
}

}  // namespace ccreplay
