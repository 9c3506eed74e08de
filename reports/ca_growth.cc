#include "reports/ca_growth.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace ccreplay {

double CaGrowthBytesPerRtt(
    const ReplaySamples& samples, int phase_of,
    const std::function<std::optional<double>(size_t)>& cwnd) {
  double sxy = 0, sxx = 0;
  size_t i = 0;
  while (i < samples.size()) {
    if (samples.at(phase_of, i).phase != Phase::kCongestionAvoidance) {
      ++i;
      continue;
    }
    std::vector<std::pair<double, double>> epoch;  // (B, C^2)
    for (; i < samples.size() &&
           samples.at(phase_of, i).phase == Phase::kCongestionAvoidance;
         ++i) {
      const std::optional<double> c = cwnd(i);
      if (c.has_value() && *c > 0) {
        epoch.emplace_back(
            static_cast<double>(samples.at(phase_of, i).delivered_bytes),
            *c * *c);
      }
    }
    if (epoch.size() < 2) continue;
    double mean_b = 0, mean_y = 0;
    for (const auto& [b, y] : epoch) {
      mean_b += b;
      mean_y += y;
    }
    mean_b /= epoch.size();
    mean_y /= epoch.size();
    for (const auto& [b, y] : epoch) {
      sxy += (b - mean_b) * (y - mean_y);
      sxx += (b - mean_b) * (b - mean_b);
    }
  }
  return sxx > 0 ? sxy / sxx / 2 : 0;
}

bool CaGrowth::NearerUnnormalized() const {
  return std::fabs(std::log(captured / off)) <
         std::fabs(std::log(captured / on));
}

bool CaGrowth::Decisive() const {
  if (!(captured > 0 && off > 0 && on > 0)) return false;
  const double to_off = std::fabs(std::log(captured / off));
  const double to_on = std::fabs(std::log(captured / on));
  const double tolerance = std::log1p(kDecisiveTolerance);
  return std::min(to_off, to_on) < tolerance &&
         std::max(to_off, to_on) > tolerance;
}

CaGrowth MeasureCaGrowth(const ReplaySamples& samples, int off, int on) {
  const auto replayed = [&](int c) {
    return CaGrowthBytesPerRtt(samples, off, [&](size_t i) {
      return samples.captured(i).has_value()
                 ? std::optional<double>(samples.at(c, i).cwnd_bytes)
                 : std::nullopt;
    });
  };
  CaGrowth g;
  g.captured = CaGrowthBytesPerRtt(
      samples, off, [&](size_t i) { return samples.captured(i); });
  g.off = replayed(off);
  g.on = replayed(on);
  return g;
}

}  // namespace ccreplay
