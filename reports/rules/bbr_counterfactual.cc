#include "reports/rules/bbr_counterfactual.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "cc/registry.h"

namespace ccreplay {

std::optional<BbrCounterfactual> RunBbrCounterfactual(
    const FittedPath& path, const std::string& base_spec,
    const std::vector<std::pair<std::string, std::string>>& changes,
    uint32_t packet_bytes) {
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(base_spec);
  if (!spec.ok()) return std::nullopt;
  for (const auto& [option, value] : changes) {
    spec = spec->With(option, value);
    if (!spec.ok()) return std::nullopt;
  }
  BbrCounterfactual c;
  c.base_spec = base_spec;
  c.spec = spec->ToString();
  c.path = path.Describe();
  absl::StatusOr<double> base =
      SimulatedUtilization(path, c.base_spec, packet_bytes);
  absl::StatusOr<double> changed =
      SimulatedUtilization(path, c.spec, packet_bytes);
  if (!base.ok() || !changed.ok()) return std::nullopt;
  c.base_utilization = *base;
  c.utilization = *changed;
  return c;
}

std::string DescribeBbrCounterfactual(const BbrCounterfactual& c,
                                      const std::string& what) {
  return absl::StrFormat(
      "closed-loop counterfactual on the fitted path (%s): utilization "
      "%.1f%% with %s, %.1f%% with %s (%s)",
      c.path, 100 * c.base_utilization, c.base_spec, 100 * c.utilization,
      c.spec, what);
}

}  // namespace ccreplay
