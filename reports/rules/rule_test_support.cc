#include "reports/rules/rule_test_support.h"

#include <unistd.h>

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "replay/sim/pcap_export.h"

namespace ccreplay {

void SimulateAndDiagnose(const SimulationConfig& config, int64_t duration_ns,
                         const std::string& name, int flow, bool simulate,
                         SimulatedCapture& out,
                         const std::vector<std::string>& specs) {
  const std::string path = absl::StrCat(
      ::testing::TempDir(), "/ccreplay_simdiag_", getpid(), "_", name, ".pcap");
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      SimulateToPcap(config, duration_ns, path);
  ASSERT_TRUE(sim.ok()) << sim.status();
  out.sim = *std::move(sim);
  DiagnoseOptions options;
  options.input = path;
  options.flow = absl::StrCat(flow);
  options.simulate = simulate;
  options.specs = specs;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
  unlink(path.c_str());
  ASSERT_TRUE(run.ok()) << run.status();
  out.run = *std::move(run);
}

SimulationConfig PacedAckEvery16Path(const std::string& spec, int64_t rate_bps,
                                     int64_t base_rtt_ns, uint64_t buffer_bytes,
                                     int64_t ce_threshold_ns) {
  SimulationConfig config;
  config.rate_bps = rate_bps;
  config.base_rtt_ns = base_rtt_ns;
  config.buffer_bytes = buffer_bytes;
  config.ce_sojourn_threshold_ns = ce_threshold_ns;
  config.sample_interval_ns = 10 * kMsNs;
  FlowConfig flow;
  flow.cc_spec = spec;
  flow.pacing = true;
  flow.ack_every = 16;
  config.flows.push_back(flow);
  return config;
}

const proto::Finding* FindingOf(const DiagnoseRun& run,
                                const std::string& kind) {
  for (const proto::Finding& f : run.diagnosis.result.findings()) {
    if (f.kind() == kind) return &f;
  }
  return nullptr;
}

bool MethodSays(const DiagnoseRun& run, const std::string& text) {
  for (const std::string& line : run.diagnosis.page.method) {
    if (absl::StrContains(line, text)) return true;
  }
  return false;
}

bool ParseCounterfactual(const proto::Finding& f, CounterfactualFigures* out) {
  for (const std::string& line : f.evidence()) {
    if (line.rfind("closed-loop counterfactual", 0) != 0) continue;
    const size_t at = line.find("): utilization ");
    if (at == std::string::npos) return false;
    char spec[128] = {0};
    if (std::sscanf(line.c_str() + at,
                    "): utilization %lf%% with %*s %lf%% with %127s",
                    &out->base_pct, &out->counterfactual_pct, spec) != 3) {
      return false;
    }
    out->spec = spec;
    return true;
  }
  return false;
}

double SimulatedShare(SimulationConfig config, const std::string& spec,
                      int64_t duration_ns, double capacity_bytes) {
  config.flows[0].cc_spec = spec;
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(config);
  if (!sim.ok()) {
    ADD_FAILURE() << sim.status();
    return -1;
  }
  (*sim)->RunUntil(duration_ns);
  return (*sim)->flow_stats(0).egress_bytes / capacity_bytes;
}

}  // namespace ccreplay
