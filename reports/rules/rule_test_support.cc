#include "reports/rules/rule_test_support.h"

#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "replay/sim/pcap_export.h"

namespace ccreplay {

void SimulateAndDiagnose(const SimulationConfig& config, int64_t duration_ns,
                         const std::string& name, int flow, bool simulate,
                         SimulatedCapture& out) {
  const std::string path = absl::StrCat(
      ::testing::TempDir(), "/ccreplay_simdiag_", getpid(), "_", name, ".pcap");
  absl::StatusOr<std::unique_ptr<PcapExporter>> exporter =
      PcapExporter::Create(path, config);
  ASSERT_TRUE(exporter.ok()) << exporter.status();
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      Simulation::Create(config, exporter->get());
  ASSERT_TRUE(sim.ok()) << sim.status();
  (*sim)->RunUntil(duration_ns);
  ASSERT_TRUE((*exporter)->Finish().ok());
  out.sim = *std::move(sim);
  DiagnoseOptions options;
  options.input = path;
  options.flow = absl::StrCat(flow);
  options.simulate = simulate;
  absl::StatusOr<DiagnoseRun> run = DiagnoseInput(options);
  unlink(path.c_str());
  ASSERT_TRUE(run.ok()) << run.status();
  out.run = *std::move(run);
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

}  // namespace ccreplay
