#include "replay/stack_profile.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cc/ngtcp2_sender.h"

namespace ccreplay {
namespace {

// Reductions at most this fraction of the prior cwnd are Reno's halving;
// above, CUBIC's 0.7 (with the 2 * mss floor neither is exact).
constexpr double kRenoCubicBoundary = 0.6;
// ngtcp2's profiles' default max_tx_udp_payload_size (cc/registry.cc).
constexpr uint32_t kNgtcp2DefaultMssBytes = 1452;

// The logged cwnd after over before its first decrease; nullopt when it
// never decreases.
std::optional<double> FirstReductionRatio(const Series& cwnd) {
  for (size_t i = 1; i < cwnd.size(); ++i) {
    if (cwnd[i].value < cwnd[i - 1].value && cwnd[i - 1].value > 0) {
      return cwnd[i].value / cwnd[i - 1].value;
    }
  }
  return std::nullopt;
}

// max_tx_udp_payload_size from the initial window: 10 * mss when that is
// below 14720 bytes; nullopt when the window does not tell.
std::optional<uint32_t> MssFromInitialWindow(const Series& cwnd) {
  if (cwnd.empty()) return std::nullopt;
  const double iw = cwnd.front().value;
  const uint64_t mss = static_cast<uint64_t>(std::llround(iw / 10));
  if (iw <= 0 || mss == 0 || mss * 10 != iw ||
      Ngtcp2Sender::InitialWindowBytes(mss) != mss * 10) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(mss);
}

StackProfile Ngtcp2Profile(const HostTrace& trace) {
  const Series& cwnd = trace.series.cwnd_bytes;
  const std::optional<double> ratio = FirstReductionRatio(cwnd);
  const bool reno = ratio.has_value() && *ratio <= kRenoCubicBoundary;
  StackProfile profile;
  profile.spec = reno ? "ngtcp2:reno" : "ngtcp2:cubic";
  std::string mss_note;
  const std::optional<uint32_t> mss = MssFromInitialWindow(cwnd);
  if (mss.has_value()) {
    mss_note = absl::StrCat("; mss ", *mss, " from its initial window ",
                            *mss * 10, " bytes");
    if (*mss != kNgtcp2DefaultMssBytes)
      absl::StrAppend(&profile.spec, ",mss=", *mss);
  }
  const std::string family =
      ratio.has_value()
          ? absl::StrFormat("%s from its first cwnd reduction (x %.2f)",
                            reno ? "Reno" : "CUBIC", *ratio)
          : "CUBIC, ngtcp2's default (its cwnd never decreases)";
  profile.reason = absl::StrCat(
      "controller profile: ", profile.spec, ", from qlog trace name \"",
      trace.name, "\" (vantage_point name or title); ", family, mss_note);
  return profile;
}

}  // namespace

bool IsNgtcp2Trace(const HostTrace& trace) {
  return trace.quic &&
         absl::StrContains(absl::AsciiStrToLower(trace.name), "ngtcp2");
}

std::optional<StackProfile> DetectStackProfile(const HostTrace& trace) {
  if (IsNgtcp2Trace(trace)) return Ngtcp2Profile(trace);
  return std::nullopt;
}

}  // namespace ccreplay
