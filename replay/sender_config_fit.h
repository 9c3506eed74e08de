// The sender's hidden configuration, fitted: whether the socket was paced,
// the jiffy (CONFIG_HZ), the device's GSO size, and what decides
// cwnd-limitation. A capture does not say; the Linux models need them
// (cubic:linux's HyStart depends on pacing and GSO size, its clock on HZ).
//
// Three sources, strongest first: options the spec sets itself (the user
// typed them), values a lab bundle's meta.json recorded, and the fit. The
// fit replays every candidate in one pass and keeps the one with the
// lowest 95th-percentile per-ACK error against the captured cwnd
// (tcp_probe or ss), ties broken by the median: a fit must not buy a
// better median with a worse tail; without a captured cwnd, pacing comes from
// the capture's inter-departure gaps in slow start: a paced socket sends about
// srtt / (2 * cwnd) apart (tcp_update_pacing_rate(), tcp_output.c,
// Linux 6.18: sk_pacing_rate = 2 * cwnd * mss / srtt in slow start), an
// unpaced one in back-to-back bursts as ACKs release them.
#ifndef CCREPLAY_REPLAY_SENDER_CONFIG_FIT_H_
#define CCREPLAY_REPLAY_SENDER_CONFIG_FIT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/bundle.pb.h"
#include "replay/replay_session.h"

namespace ccreplay {

// The capture's slow-start departures of new data. Each gap between two
// new-data segments is scaled by the pacing gap of a socket whose cwnd is
// what it has in flight: ratio = gap * 2 * flight_packets / srtt, about 1
// when paced and near 0 for a back-to-back burst.
struct DepartureGaps {
  uint64_t gaps = 0;  // Gaps measured (slow start, before any retransmit).
  // Fraction of gaps with ratio below kBackToBackRatio; nullopt with
  // fewer than kMinGaps gaps or no handshake RTT to scale by.
  std::optional<double> back_to_back_fraction;
  std::optional<bool> paced;  // back_to_back_fraction < kPacedBelow.
};
inline constexpr double kBackToBackRatio = 0.1;
inline constexpr double kPacedBelow = 0.25;
inline constexpr uint64_t kMinGaps = 20;

// The gap statistic of the scanned flow's sender (reads the capture again).
absl::StatusOr<DepartureGaps> MeasureDepartureGaps(const TcpCaptureScan& scan);

// What one setting was fitted to, and from what.
struct FittedSetting {
  std::string option;  // "paced", "hz", "gso", "limited".
  std::string value;   // As typed in a spec: "1", "250", "flight".
  // "given" (the spec sets it), "recorded" (the bundle's meta.json),
  // "replay" (lowest p95 error, then median), "gaps" (departure gaps),
  // "default" (the model's fixed choice: limited=flight, or nothing could
  // tell).
  std::string source;
  // For "replay": the best p95 error of a candidate with another value
  // of this option minus the fitted one's, percentage points: how sure.
  std::optional<double> margin_pct;
};

// One claimed spec, fitted.
struct SenderConfigFit {
  std::string given_spec;     // As the caller gave it.
  std::string replayed_spec;  // With the fitted settings added.
  std::vector<FittedSetting> settings;
  // The replayed spec's per-ACK errors in the fit, and the given spec's
  // replayed as typed (the same pass); nullopt without a captured cwnd.
  std::optional<double> median_abs_err_pct;
  std::optional<double> p95_abs_err_pct;
  std::optional<double> given_median_abs_err_pct;
  std::optional<double> given_p95_abs_err_pct;
  // Whether the fitted spec's replay is no worse than the given spec's on
  // both the median and the 95th percentile (true when nothing compared).
  bool NoWorseThanGiven() const;
};

// The sender facts a bundle's meta.json recorded (parsers/bundle.h).
struct RecordedSenderConfig {
  std::optional<uint32_t> gso_max_size_bytes;
  std::optional<uint32_t> config_hz;
  // meta.sender.paced, else false when the controller was set before
  // connect(): tcp_set_congestion_control() on a closed socket does not
  // call the default controller's init() (tcp_reinit_congestion_control(),
  // tcp_cong.c, 6.18), so no SK_PACING_NEEDED from a bbr default.
  std::optional<bool> paced;
  std::string paced_reason;  // Which of the two said so.
};
RecordedSenderConfig RecordedFromBundle(const proto::BundleSender& sender);

// Whether `spec` is a Linux TCP model the fit applies to (reno:linux,
// cubic:linux, dctcp: the profiles that take limited=).
bool FitsSenderConfig(const std::string& spec);

// Fits each spec of `specs` that FitsSenderConfig(); the others pass
// through with no settings. `base` gives the host state; its specs and tap
// are not used. One replay pass covers every candidate of every spec.
absl::StatusOr<std::vector<SenderConfigFit>> FitSenderConfig(
    const TcpCaptureScan& scan, const ReplayOptions& base,
    const std::vector<std::string>& specs, const RecordedSenderConfig& recorded,
    const DepartureGaps& gaps);

// The whole fit of one TCP flow: the gaps, then each spec fitted, with a
// bundle's meta.json sender facts as recorded values (nullopt: a capture).
struct SenderConfigReport {
  DepartureGaps gaps;
  std::vector<SenderConfigFit> fits;  // One per spec, in order.
  std::string recorded_note;          // Why a recorded pacing was believed.
  // The replayed specs, in order: what the replay runs.
  std::vector<std::string> ReplayedSpecs() const;
};
// When no spec FitsSenderConfig(), the capture is not read again and the
// report has the specs unchanged.
absl::StatusOr<SenderConfigReport> FitTcpSender(
    const TcpCaptureScan& scan, const ReplayOptions& base,
    const std::vector<std::string>& specs,
    const std::optional<proto::BundleSender>& bundle_sender);

// Lines for "How this was computed": the gaps, the recorded facts, and a
// DescribeFit() line per fitted spec.
std::vector<std::string> DescribeSenderConfig(const SenderConfigReport& r);

// One line for people: "cubic:linux: paced=1 (replay, +31.2 pp over 0),
// hz=250 (recorded), limited=flight (default)".
std::string DescribeFit(const SenderConfigFit& fit);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SENDER_CONFIG_FIT_H_
