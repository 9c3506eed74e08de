// The closed-loop counterfactual of a BBR finding: the path fitted from the
// capture (reports/fitted_simulation.h), with what the finding says held
// the flow back added to it where the fit leaves it out (a rate step, ACK
// holds), simulated once with the replayed bbr:linux spec and once with
// one of tcp_bbr.c's constants changed (cc/linux_bbr.h LinuxBbrOptions:
// probe_rtt_ms=, full_bw_cnt=, extra_acked_win=, extra_acked_max_ms=), the
// way the Prague findings compare rtt_scaling=none.
#ifndef CCREPLAY_REPORTS_RULES_BBR_COUNTERFACTUAL_H_
#define CCREPLAY_REPORTS_RULES_BBR_COUNTERFACTUAL_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/fitted_simulation.h"
#include "reports/rules/rule_context.h"

namespace ccreplay {

struct BbrCounterfactual {
  std::string base_spec;  // the replayed spec, e.g. "bbr:linux"
  std::string spec;       // it with the changed constants
  double base_utilization = 0;
  double utilization = 0;
  std::string path;  // FittedPath::Describe()
};

// `base_spec` with `changes` (option, value) on `path`; nullopt when either
// spec does not parse or a run fails.
std::optional<BbrCounterfactual> RunBbrCounterfactual(
    const FittedPath& path, const std::string& base_spec,
    const std::vector<std::pair<std::string, std::string>>& changes,
    uint32_t packet_bytes);

// "closed-loop counterfactual on the fitted path (...): utilization 95% with
// bbr:linux, 97% with bbr:linux,probe_rtt_ms=0 (what)".
std::string DescribeBbrCounterfactual(const BbrCounterfactual& c,
                                      const std::string& what);

}  // namespace ccreplay

#endif  // CCREPLAY_REPORTS_RULES_BBR_COUNTERFACTUAL_H_
