// A flow's congestion-avoidance growth in bytes per RTT, measured from a
// cwnd series on a replay's samples: what mtu_normalization_gap compares
// with the replays and what the unfairness attribution (unfairness.h)
// compares between competing flows.
#ifndef CCREPLAY_REPORTS_CA_GROWTH_H_
#define CCREPLAY_REPORTS_CA_GROWTH_H_

#include <cstddef>
#include <functional>
#include <optional>

#include "reports/rules/rule_context.h"

namespace ccreplay {

// Congestion-avoidance growth in bytes per RTT, measured without the RTT:
// while cwnd grows by g bytes per cwnd of bytes acknowledged (Reno: g = the
// packet size, or 1462 with normalization, quicly PR #686), dC/dB = g / C,
// so C^2 = C0^2 + 2 g B along one epoch. g is the slope of C^2 against the
// bytes delivered B, pooled over the epochs of congestion avoidance of
// controller `phase_of`'s replay between two of its reductions (each epoch
// its own intercept). `cwnd(i)` is the window of sample i (nullopt: not
// known there). 0 when no epoch has two samples.
double CaGrowthBytesPerRtt(
    const ReplaySamples& samples, int phase_of,
    const std::function<std::optional<double>(size_t)>& cwnd);

// Congestion-avoidance growth per RTT, in bytes, of the captured cwnd and
// of the replays without (`off`) and with (`on`) MTU normalization, on the
// same ACKs and on `off`'s epochs.
struct CaGrowth {
  double captured = 0, off = 0, on = 0;
  // Whether the captured growth is nearer the replay without
  // normalization than the one with it (log distance).
  bool NearerUnnormalized() const;
  // Whether the captured growth tells the two replays apart: within
  // kDecisiveTolerance of one and farther than that from the other. Where
  // windows are small, CUBIC's two replays grow alike and the captured
  // growth sits between them or near both.
  bool Decisive() const;
  // The slope of cwnd^2 is within 3 % of the simulator's growth on its
  // exports (reports/sim_diagnosis_test.cc): 5 % leaves a margin.
  static constexpr double kDecisiveTolerance = 0.05;
};
CaGrowth MeasureCaGrowth(const ReplaySamples& samples, int off, int on);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_CA_GROWTH_H_
