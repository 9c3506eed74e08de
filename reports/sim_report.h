// Renderers for the closed-loop simulator (replay/sim/): `ccreplay
// simulate` as JSON, CSV or a table, the warnings a run deserves, and the two
// reference experiments as JSON (fields as README documents them) or tables.
#ifndef CCREPLAY_REPORTS_SIM_REPORT_H_
#define CCREPLAY_REPORTS_SIM_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "replay/sim/mtu_experiment.h"
#include "replay/sim/prague_experiment.h"
#include "replay/sim/simulation.h"

namespace ccreplay {

// `duration_ns` is the simulated time the run covered (throughput and
// utilization are averaged over it).
std::string SimulationJson(const Simulation& sim, int64_t duration_ns);
std::string SimulationCsv(const Simulation& sim);
std::string SimulationTable(const Simulation& sim, int64_t duration_ns);

// One line per condition that makes a run's figures suspect, for stderr:
// a flow that had congestion episodes but never left slow start (P-2020
// Prague on a path without CE marks and without a receive window: see
// docs/experiments.md, "Prague v0.5 on a drop-tail path without CE marks").
std::vector<std::string> SimulationWarnings(const Simulation& sim);

std::string MtuExperimentJson(const MtuExperimentResult& result);
std::string MtuExperimentTable(const MtuExperimentResult& result);
std::string PragueExperimentJson(const PragueExperimentResult& result);
std::string PragueExperimentTable(const PragueExperimentResult& result);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_SIM_REPORT_H_
