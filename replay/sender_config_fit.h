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
#include "parsers/host_state.h"
#include "proto/bundle.pb.h"
#include "replay/replay_session.h"
#include "replay/vantage.h"

namespace ccreplay {

// The capture's slow-start departures of new data. Each gap between two
// new-data segments is scaled by the pacing gap of a socket whose cwnd is
// what it has in flight: ratio = gap * 2 * flight_packets / srtt, about 1
// when paced and near 0 for a back-to-back burst. srtt is the sender's
// RFC 6298 estimate from the data's own RTT samples (the timeline's), as
// tcp_update_pacing_rate() uses it; before the first sample, the
// handshake's. At 0 ms of base RTT the handshake takes tens of
// microseconds while data waits behind the bottleneck's queue for
// milliseconds: scaled by the handshake, every gap looked paced.
//
// A gap tells only where a back-to-back pair would show as one: the
// sender's host needs time for each segment, and on a slow one (an
// emulated CPU: 13-110 us per segment under QEMU's TCG) an unpaced burst
// is spaced like a paced one whenever a tenth of the paced gap is shorter
// than that. The host's time per segment scales with its answer to an ACK
// in slow start (a pure ACK captured, then the sender's next data segment;
// a pause over srtt / 2 is the application's), which pacing hardly slows:
// a paced sender in slow start is mostly waiting for the ACK with its
// pacing budget in hand. Only gaps whose tenth of the
// paced gap is at least kPairPerAnswer of the median answer are counted
// ("resolved"). And only at the sender: after the capture point a
// bottleneck or a middlebox re-spaces the departures.
struct DepartureGaps {
  uint64_t gaps = 0;  // Gaps measured (slow start, before any retransmit).
  uint64_t resolved_gaps = 0;  // Of those, the ones that can tell.
  // The sender's median answer to an ACK in slow start, as captured;
  // nullopt with none.
  std::optional<int64_t> median_answer_ns;
  // Where the timeline places the capture; the gaps tell only at the
  // sender.
  Vantage vantage = Vantage::kUnknown;
  bool at_sender() const { return vantage == Vantage::kSender; }
  // Fraction of resolved gaps with ratio below kBackToBackRatio; nullopt
  // with fewer than kMinGaps resolved gaps, no RTT to scale by, or a
  // capture not at the sender.
  std::optional<double> back_to_back_fraction;
  // back_to_back_fraction < kPacedBelow; nullopt (no verdict) when the
  // fraction lies within one binomial standard error,
  // sqrt(f * (1 - f) / resolved_gaps), of kPacedBelow.
  std::optional<bool> paced;
};
// Why the gaps give no verdict ("" when they give one), for the reasons
// the fit and the report print.
std::string GapsSilence(const DepartureGaps& g);
inline constexpr double kBackToBackRatio = 0.1;
// On four runs of the issue-14 matrices (bench/fidelity.sh, flow 0 of
// each bundle: 2 x 72 Reno/CUBIC on Linux 6.18, 2 x 36 DCTCP on 6.1 under
// TCG; docs/controllers.md), over resolved gaps only, paced flows had 0
// to 0.222 of them back to back, unpaced ones 0.211 to 0.843; the flows
// near 0.2, at 0 ms, lie within a standard error of it: no verdict.
inline constexpr double kPacedBelow = 0.2;
// A back-to-back pair's spacing as a fraction of the host's median answer
// to an ACK. Measured: ACK-clocked pairs 1-2 us apart against median
// answers (over the whole flow) of 5-24 us on Linux 6.18 here, 12-21 us
// apart against 77-177 us under QEMU's TCG. On four runs of the issue-14
// matrices (216 flows, docs/controllers.md) fractions from 0.14 to 0.25
// gave no wrong verdict, 0.12 and 0.3 one each; the least answer instead
// (one coincidence away from 0) two.
inline constexpr double kPairPerAnswer = 1.0 / 6;
inline constexpr uint64_t kMinGaps = 20;

// The sizes of the sender's new-data segments as captured. At the sender,
// a segment above the MSS is a TSO/GSO super-segment: the stack built it
// because the device's gso_max_size allowed more than one MSS
// (tcp_tso_autosize() asks for at least sysctl_tcp_min_tso_segs = 2
// segments whenever they are there to send, tcp_output.c, Linux 6.18), so
// a sender-side capture whose segments never exceed the MSS shows a
// gso_max_size under two of them: the MTU.
struct SegmentSizes {
  bool sender_side = false;    // The timeline's vantage is the sender.
  uint64_t data_segments = 0;  // New data after the first ACK.
  uint64_t super_segments = 0;
  uint32_t largest_bytes = 0;  // Payload.
  uint32_t mss_bytes = 0;      // The sender's, from the timeline.
  // IP + TCP header of a full segment (options included): MSS + this is
  // the MTU.
  uint32_t header_bytes = 0;
};
// Segments enough to call their sizes evidence: a bulk flow sends
// thousands; a few hundred without a super-segment is no accident of a
// window that never held two segments to send.
inline constexpr uint64_t kMinSizedSegments = 200;

// The sender's HZ as its ss log shows it. tcp_get_info() reports rto and
// ato as jiffies_to_usecs() of jiffies and lastsnd / lastrcv / lastack as
// jiffies_to_msecs() of jiffy differences (net/ipv4/tcp.c, 6.18), and
// inet_diag the timer's expiry as jiffies_delta_to_msecs()
// (inet_sk_diag_fill(), net/ipv4/inet_diag.c): with HZ dividing 1000
// every one of these millisecond values is a multiple of 1000 / HZ (4 ms
// at HZ 250, 10 at HZ 100, 1 at HZ 1000). A capture holds no such field:
// Linux TCP timestamps count milliseconds of the microsecond clock, not
// jiffies (tcp_clock_ts(), include/net/tcp.h).
struct JiffyTicks {
  uint64_t values = 0;   // Distinct non-zero millisecond values.
  uint64_t step_ms = 0;  // Their greatest common divisor; 0: not integral.
  // 1000 / step_ms when that is HZ 100, 250 or 1000 (a step of 20 or 40
  // fits both 100 and 250) and there are at least kMinJiffyValues values;
  // under HZ 1000 all of n values fall on a 4 ms grid by chance with
  // probability about 4^-n.
  std::optional<uint32_t> hz;
};
inline constexpr uint64_t kMinJiffyValues = 10;
// From an ss trace's series (rto_ms, ato_ms, lastsnd_ms, lastrcv_ms,
// lastack_ms, timer.expire_ms).
JiffyTicks JiffyTicksOf(const CapturedSeries& series);

// What the capture itself shows of the sender's configuration, and the
// jiffies of its ss log when the replay was given one.
struct CaptureEvidence {
  DepartureGaps gaps;
  SegmentSizes sizes;
  std::optional<JiffyTicks> jiffies;
};

// The scanned flow's sender, read from the capture again.
absl::StatusOr<CaptureEvidence> MeasureCaptureEvidence(
    const TcpCaptureScan& scan);

// A replay decides an option only when the best candidate with another
// value of it is this much worse on the p95 per-ACK error (percentage
// points): below it the candidates replay the kernel equally well and the
// difference is one or two ACKs of a 3 s flow, no evidence of the value.
inline constexpr double kDecisiveMarginPct = 0.5;
// ...and the candidate with the other value must part from the stack
// (DivergenceSummary::parting_runs) at least this many times as often:
// a value wrong for the flow parts at its every jiffy-clock step, while
// one jiffy-boundary coincidence parts the right one once.
inline constexpr double kDecisivePartingRatio = 2.0;
// Nor does a replay whose best candidate does not track the kernel (issue
// 14's bounds, per-ACK median error <= 1 %, p95 <= 5 %): its errors come
// from what the model misses, and which value comes out best is an
// accident of that (cubic:linux at 0 ms of base RTT fitted hz=1000 by
// 1.75 pp with a p95 of 10 %).
inline constexpr double kTracksMedianPct = 1.0;
inline constexpr double kTracksP95Pct = 5.0;

// What one setting was fitted to, and from what.
struct FittedSetting {
  std::string option;  // "paced", "hz", "gso", "limited".
  // As typed in a spec: "1", "250", "flight".
  // Empty when not determinable and the model does not take the option.
  std::string value;
  // "given" (the spec sets it), "recorded" (the bundle's meta.json),
  // "replay" (lowest p95 error, then median, by at least
  // kDecisiveMarginPct), "gaps" (departure gaps), "capture" (segment
  // sizes), "ss" (HZ from the ss log's jiffy ticks, JiffyTicks),
  // "default" (the model's fixed choice: limited=flight), or
  // kNotDeterminable: nothing in the flow tells it; `value`, if any, is
  // what the replay used.
  std::string source;
  // When the fit compared candidates: the best p95 error of a candidate
  // with another value of this option minus the fitted one's, percentage
  // points: how sure.
  std::optional<double> margin_pct;
  // Why, for a person: the evidence, or why there is none.
  std::string reason;
  bool determined() const { return source != kNotDeterminable; }
  static constexpr const char* kNotDeterminable = "not_determinable";
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
    const CaptureEvidence& evidence);

// The whole fit of one TCP flow: the gaps, then each spec fitted, with a
// bundle's meta.json sender facts as recorded values (nullopt: a capture).
struct SenderConfigReport {
  CaptureEvidence evidence;
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

// One setting for people: "hz=250 (replay: next best +0.80 pp; ...)" or
// "hz not determinable (replayed with 250; ...)".
std::string DescribeSetting(const FittedSetting& s);

// One line for people: "cubic:linux -> ...: paced=1 (replay, next best
// +31.2 pp), hz not determinable (...), limited=flight (default)".
std::string DescribeFit(const SenderConfigFit& fit);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_SENDER_CONFIG_FIT_H_
