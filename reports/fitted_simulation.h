// The closed-loop evidence of a finding: the path fitted from the capture
// (estimated bottleneck rate, base RTT, the largest queue the flow saw, the
// queueing delay at which CE marks appeared) in the simulator
// (replay/sim/simulation.h), with the flow's controller one way and the
// counterfactual the other.
#ifndef CCREPLAY_REPORTS_FITTED_SIMULATION_H_
#define CCREPLAY_REPORTS_FITTED_SIMULATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "replay/sim/bottleneck.h"
#include "reports/flow_observation.h"
#include "reports/path_estimates.h"

namespace ccreplay {

// How far each fitted parameter may be off, as half-widths: the paths
// within them of the fit are ones the capture cannot tell apart
// (PathsWithinUncertainty). FitPath fills each from what limits its
// measurement; SharedFittedPath widens them to the two flows' disagreement.
struct FitUncertainty {
  // Of rate_bps: one ACK's worth of full-size packets over the window the
  // rate was measured in (PathEstimates::window_s).
  double rate_fraction = 0;
  // One full-size packet's service time at the rate: the smallest RTT
  // sample had none to one packet ahead of it in service.
  int64_t base_rtt_ns = 0;
  // Of the queueing delay the buffer holds at the rate: one full-size
  // packet (the queue drops the packet that does not fit) and twice the
  // standard error of the RTT at loss (PathEstimates::rtt_at_loss_se_s),
  // in quadrature.
  int64_t buffer_delay_ns = 0;
  // One full-size packet's service time at the rate: the receiver's timer
  // starts at an arrival, which the sender sees only through ACKs clocked
  // out one service time apart. 0 when the hold was not measured.
  int64_t delayed_ack_ns = 0;
};

struct FittedPath {
  int64_t rate_bps = 0;
  int64_t base_rtt_ns = 0;
  // What the base RTT left out of the smallest RTT sample: its packet's
  // service time at `rate_bps` (0 when the handshake gave it), so a fit
  // whose rate was one flow's share can be read at the link's
  // (SharedFittedPath).
  int64_t base_rtt_service_ns = 0;
  uint64_t buffer_bytes = 0;
  // How the buffer admits an arrival (replay/sim/bottleneck.h): the fit
  // cannot tell, so packet-size neutral, unless the input states a queue
  // that counts bytes (a lab bundle's bfifo: byte-fit, SharedFittedPath).
  AdmissionPolicy admission = AdmissionPolicy::kPacketSizeNeutral;
  // -1: the flow saw no CE, the simulated path marks none.
  int64_t ce_sojourn_threshold_ns = -1;
  // Simulated time: the flow's duration, capped so a run stays small
  // (FitPath: at a minute and at MaxSimulatedPacketSeconds).
  int64_t duration_ns = 0;
  // The receiver ACKs every this many segments, as the flow's did on
  // average (GRO or delayed ACKs thin ACKs; Prague's collapse needs it,
  // docs/experiments.md "Experiment 2")...
  uint32_t ack_every = 2;
  // ...or when its timer fires: how long ACKs covering fewer segments were
  // held (FlowObserver::AckHoldUs), else Linux's TCP_DELACK_MIN (40 ms).
  int64_t delayed_ack_ns = 40'000'000;
  bool delayed_ack_measured = false;
  // What the measured hold left out: the held ACK's segments' service
  // time at `rate_bps` (FlowObserver::AckHoldUs), so a fit whose rate was
  // one flow's share can be read at the link's (SharedFittedPath).
  int64_t delayed_ack_service_ns = 0;
  // What a BBR finding's counterfactual adds to the fit (FitPath sets
  // neither): the rate becomes `rate_after_step_bps` at `rate_step_ns`
  // (-1: never), as SimulationConfig::rate_step_ns; ACKs held for
  // `ack_hold_ns` of every `ack_hold_period_ns` (0: none), as
  // FlowConfig::ack_hold_ns.
  int64_t rate_step_ns = -1;
  int64_t rate_after_step_bps = 0;
  int64_t ack_hold_ns = 0;
  int64_t ack_hold_period_ns = 0;
  FitUncertainty uncertainty;

  // What the link could carry over the run, in bytes (the step included).
  double CapacityBytes() const;
  std::string Describe() const;  // "20.0 Mb/s, base RTT 21.8 ms, ..."

 private:
  std::string DescribeFit() const;  // Describe() without the additions
};

// What the fit takes from the flow besides its estimates.
struct FlowFitFacts {
  double duration_s = 0;
  // The full-size payload, whose service time the simulated link adds to
  // every RTT sample; 0: unknown (a 1500-byte packet is assumed).
  uint32_t packet_bytes = 0;
  // The SYN to SYN-ACK round trip (no payload to serve); 0: not seen.
  int64_t handshake_rtt_ns = 0;
};

// InvalidArgument when the estimates cannot make a path (no rate or RTT).
absl::StatusOr<FittedPath> FitPath(const PathEstimates& estimates,
                                   const FlowObserver& observed,
                                   const FlowFitFacts& flow);

// A receiver's ACK hold as a fitted path may have it: within [10 us,
// 500 ms] (RFC 1122 section 4.2.3.2 allows an ACK to be delayed by at most
// 0.5 s).
int64_t ClampDelayedAckNs(int64_t hold_ns);

// A fitted buffer of `bytes`: at least 8 full-size (1500-byte) packets, at
// most what a fitted simulation may send (400,000 of them); a queue
// estimated from a damaged capture's RTT or rate can be 1e22 bytes, beyond
// any uint64_t (diagnose_fuzzer), and NaN is the minimum.
uint64_t ClampBufferBytes(double bytes);

// The longest run, in seconds, that stays within the packets a fitted
// simulation at `rate_bps` may send (about a second of CPU).
double MaxSimulatedPacketSeconds(double rate_bps);

// One flow of `spec` with packets of `packet_bytes`: its bottleneck egress
// over the run / (rate x duration). TCP Prague paces (tcp_prague.c v0.5
// (L4STeam/l4steam.github.io @ 0125ddd7) sets SK_PACING_NEEDED at init), and
// so does BBR (the simulated sender paces every controller whose
// needs_pacing() says so); the others do not.
absl::StatusOr<double> SimulatedUtilization(const FittedPath& path,
                                            const std::string& spec,
                                            uint32_t packet_bytes);

// One flow of a closed-loop run on the fitted path.
struct SimulatedFlow {
  std::string spec;  // for MakeController(), e.g. "cubic:linux"
  uint32_t packet_bytes = 1448;
  // Sets the spec's normalize= option (MTU normalization to this packet
  // size, RFC 7141 section 2.3); unset: the spec's own.
  std::optional<uint32_t> normalize_bytes;
  int64_t start_ns = 0;      // after the run's start
  int64_t base_rtt_ns = -1;  // -1: the path's
};

// Two flows sharing the path: the throughput (bytes out of the bottleneck)
// of `a` over that of `b`, from `measure_from` of the way between the later
// start and the end of the run to its end (0.5: the second half, both past
// slow start by then; 0: the whole common interval). With `runs` > 1, the
// bytes summed over that many runs, each with its own seed and the sender
// jitter of one bottleneck service time (replay/sim/sender_jitter.h), so
// that drop-tail phase effects, which move a single run's ratio by tenths
// with a 2 % change of the buffer, average out. 0 when `b` sent nothing;
// InvalidArgument for a bad spec.
absl::StatusOr<double> SimulatedThroughputRatio(const FittedPath& path,
                                                const SimulatedFlow& a,
                                                const SimulatedFlow& b,
                                                double measure_from = 0.5,
                                                int runs = 1);

// `count` paths around `path`, each of rate, base RTT, buffer (as its
// queueing delay) and ACK hold offset within +-its uncertainty: a Latin
// hypercube (each parameter's range cut into `count` equal strata, each
// used once, at its centre), deterministic (parameter j takes stratum
// (i * (2j + 1)) mod count in path i; with `count` a power of two these
// are permutations), so the offsets average to zero. The ratio of two
// flows is a rugged function of the path (a 1e-4 change of the rate moves
// one run's ratio by 0.03-0.09 with no trend, reports/unfairness_test.cc),
// so a prediction is an average over the paths the fit allows.
std::vector<FittedPath> PathsWithinUncertainty(const FittedPath& path,
                                               int count);

// SimulatedThroughputRatio over several paths.
struct RatioOverPaths {
  // a's bytes over b's, summed over every run of every path.
  double mean = 0;
  // The 10th and 90th percentile of the paths' own ratios (each over its
  // runs; reports/percentile.h).
  double low = 0, high = 0;
  int paths = 0;
};

// As SimulatedThroughputRatio with `runs_per_path` runs on each of
// `paths` (run r on path r / runs_per_path, seed r + 1).
absl::StatusOr<RatioOverPaths> SimulatedThroughputRatioOverPaths(
    const std::vector<FittedPath>& paths, const SimulatedFlow& a,
    const SimulatedFlow& b, double measure_from, int runs_per_path);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_FITTED_SIMULATION_H_
