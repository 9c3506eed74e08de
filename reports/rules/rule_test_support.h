// For the rule tests: run the in-process simulator (replay/sim) with the
// pcap export on and diagnose the capture as `ccreplay diagnose` does, so a
// rule fires on simulated input whose ground truth (the simulator's own
// series and counters) the test can check against.
#ifndef CCREPLAY_REPORTS_RULES_RULE_TEST_SUPPORT_H_
#define CCREPLAY_REPORTS_RULES_RULE_TEST_SUPPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "replay/sim/simulation.h"
#include "reports/diagnose_session.h"

namespace ccreplay {

inline constexpr int64_t kMsNs = 1'000'000;

struct SimulatedCapture {
  std::unique_ptr<Simulation> sim;
  DiagnoseRun run;
};

// Runs `config` for `duration_ns`, then diagnoses flow `flow` of the
// exported capture (with the fitted closed loop when `simulate`), replaying
// `specs` when given (`diagnose --cc`; a simulated capture names no
// controller). Fails the test (ADD_FAILURE) and leaves `out` empty on any
// error.
void SimulateAndDiagnose(const SimulationConfig& config, int64_t duration_ns,
                         const std::string& name, int flow, bool simulate,
                         SimulatedCapture& out,
                         const std::vector<std::string>& specs = {});

// One paced flow of `spec` acknowledged every 16 segments (a Prague
// receiver's GRO), on a path of `rate_bps` and `base_rtt_ns` that marks CE
// above `ce_threshold_ns` of sojourn; series sampled every 10 ms.
SimulationConfig PacedAckEvery16Path(const std::string& spec, int64_t rate_bps,
                                     int64_t base_rtt_ns, uint64_t buffer_bytes,
                                     int64_t ce_threshold_ns);

// The finding of `kind`, null when there is none.
const proto::Finding* FindingOf(const DiagnoseRun& run,
                                const std::string& kind);

// Whether a line of "How this was computed" contains `text`.
bool MethodSays(const DiagnoseRun& run, const std::string& text);

// A BBR finding's closed-loop counterfactual (reports/rules/
// bbr_counterfactual.h): the utilization with the replayed spec and with
// the counterfactual one, in percent, and that spec; false when the
// finding's evidence has none.
struct CounterfactualFigures {
  double base_pct = 0, counterfactual_pct = 0;
  std::string spec;
};
bool ParseCounterfactual(const proto::Finding& f, CounterfactualFigures* out);

// Flow 0 of `config` with `spec` for `duration_ns`: its bottleneck egress
// over `capacity_bytes`. -1 on an error (ADD_FAILURE).
double SimulatedShare(SimulationConfig config, const std::string& spec,
                      int64_t duration_ns, double capacity_bytes);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_RULE_TEST_SUPPORT_H_
