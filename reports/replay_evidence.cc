#include "reports/replay_evidence.h"

#include <limits>

#include "reports/figure_format.h"

namespace ccreplay {

std::string MedianErrorText(const ReplayEvidence& e, int c) {
  return Figure(MedianErrorPct(e, c), 1, "%");
}

double MedianErrorPct(const ReplayEvidence& e, int c) {
  const std::optional<double>& m =
      e.replay->controllers[c].divergence.median_abs_err_pct;
  return m.value_or(std::numeric_limits<double>::infinity());
}

int BestFittingClaimed(const ReplayEvidence& e) {
  int best = -1;
  for (size_t c = 0; c < e.choices.size(); ++c) {
    if (e.choices[c].role != ReplayRole::kClaimed) continue;
    if (best < 0 || MedianErrorPct(e, c) < MedianErrorPct(e, best))
      best = static_cast<int>(c);
  }
  return best;
}

}  // namespace ccreplay
