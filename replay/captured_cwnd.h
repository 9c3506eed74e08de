// The real sender's cwnd as a host-state log captured it, and its
// alignment with the ACK timeline.
//
// Sources, and what a point means:
// - `ss` samples: the socket's cwnd at the sample time (a snapshot between
//   ACKs); cwnd in segments, times on the Unix clock.
// - `tcp_probe` lines: one per segment the socket received, written at the
//   top of tcp_rcv_established() BEFORE the segment is processed, so the
//   line of ACK k shows the cwnd left by ACK k-1 (input-formats.md section 3;
//   Linux include/trace/events/tcp.h, net/ipv4/tcp_input.c). Times on the
//   ftrace clock, mapped to Unix time by the lab's clockpair offset.
// - qlog `congestion_window`: logged after the event that changed it, on
//   the qlog's own clock (the same clock the QUIC timeline uses).
// - With none of these, the flight size before each ACK (from the capture):
//   a lower bound of cwnd while the sender is cwnd-limited.
#ifndef CCREPLAY_REPLAY_CAPTURED_CWND_H_
#define CCREPLAY_REPLAY_CAPTURED_CWND_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "parsers/host_state.h"

namespace ccreplay {

enum class CapturedSource { kSs, kTcpProbe, kQlog, kFlightSize };
const char* CapturedSourceName(CapturedSource source);  // "ss", ...

// ss -i's send-time accounting at a trace's last sample that has it
// (Linux tcp_get_info_chrono_stats(): tcpi_busy_time, tcpi_rwnd_limited,
// tcpi_sndbuf_limited, cumulative ms); nullopt when not logged.
struct SendTimeAccounting {
  std::optional<double> busy_ms;
  std::optional<double> rwnd_limited_ms;
  std::optional<double> sndbuf_limited_ms;
};

struct CapturedCwnd {
  CapturedSource source = CapturedSource::kFlightSize;
  // Ascending by time_us, on the timeline's clock (Unix µs for captures).
  // Empty for kFlightSize, whose values come with each ACK.
  std::vector<SeriesPoint> points;
  // Values in segments of the sender's MSS (ss, tcp_probe), else bytes.
  bool in_segments = false;
  // The trace the points came from, for people ("ss 10.0.0.1:5 10.0.0.2:6").
  std::string description;
  // tcp_probe of a `ccreplay lab` trace, whose clock is CLOCK_MONOTONIC:
  // Unix time minus that clock at the trace's first clockpair, µs; nullopt
  // for any other source. Where the sender's jiffies ticked.
  std::optional<int64_t> kernel_mono_offset_us;
  SendTimeAccounting send_time;
  // tcp_probe: each point's snd_una as the wire carries it (32 bits), one
  // per point; empty when the trace does not log it (or another source).
  std::vector<uint32_t> snd_una_wire;
  // qlog and tcp_probe: the `ssthresh` the sender logged, as `points`
  // (tcp_probe: in segments, set lines only); empty otherwise.
  std::vector<SeriesPoint> ssthresh_points;
  // The log leaves ssthresh out while it is unset (infinite): ngtcp2 writes
  // it in recovery:metrics_updated only when it is not UINT64_MAX
  // (ngtcp2_qlog_metrics_updated(), lib/ngtcp2_qlog.c, 0.12.1), and writes
  // congestion_window in every one; tcp_probe's parser leaves out a
  // line's TCP_INFINITE_SSTHRESH.
  bool ssthresh_omitted_while_unset = false;
  // ss: each sample's log_order is its tcpi_delivered (segments acked or
  // SACKed, the SYN's included), not its bytes_acked (OrderSsSamples()).
  bool ordered_by_delivered = false;
};

// The ssthresh the sender had when it logged cwnd point `cwnd` (qlog,
// tcp_probe: in the log's unit): the value logged in the same event or,
// for a log that writes it only when it changes, the last one before;
// kNoSsthreshBytes while unset; nullopt when the log has not shown it.
std::optional<uint64_t> SsthreshAtCwndPoint(const CapturedCwnd& captured,
                                            const SeriesPoint& cwnd);

// The cwnd series of the trace in `log` that belongs to the TCP flow from
// `sender` to `receiver` ("ADDR:PORT", as FlowSummary prints them): the
// trace whose local endpoint is the sender and remote the receiver. Points
// are moved to Unix time with the trace's clock_epoch_us. FailedPrecondition
// (nothing to diagnose) naming the log when no trace matches or the match
// has no cwnd.
absl::StatusOr<CapturedCwnd> CapturedCwndForTcpFlow(
    const HostStateLog& log, const std::string& sender,
    const std::string& receiver);

// The congestion_window series of a QUIC trace, on the qlog's clock.
absl::StatusOr<CapturedCwnd> CapturedCwndForQuicTrace(const HostTrace& trace);

// Hands out the captured points that fall before each ACK, in one pass.
class CwndAligner {
 public:
  // `captured` must outlive the aligner.
  explicit CwndAligner(const CapturedCwnd& captured);

  // Points due before an ACK at `ack_time_us`, logged at `ack_log_order`
  // (0: not recorded): all not yet handed out that were logged before it
  // when both it and the point carry a log_order, else those with time <
  // ack_time_us. A log with whole-millisecond times (ngtcp2's qlog) holds
  // several ACKs per millisecond, each followed by the cwnd it left: by
  // log order, each ACK is matched with the cwnd logged right after it.
  // An ss sample's order is the cumulative ACK it had seen (its
  // bytes_acked), the ACK's its cumulative ACK: the sample is due before
  // the first ACK beyond it. What the points show depends on
  // shows_state_before_ack().
  absl::Span<const SeriesPoint> DueBefore(int64_t ack_time_us,
                                          uint64_t ack_log_order = 0);
  // tcp_probe lines that log snd_una: each line shows the state after the
  // ACK that left its snd_una, the n-th line with one snd_una after the
  // n-th ACK with that cumulative ACK (the line is written before its own
  // ACK is processed). From the capture's ISN (the first ACK's `ack_wire`
  // minus its relative `ack`) they are keyed by (cumulative ACK, n) and
  // handed out before the first ACK with a higher key, wherever the trace
  // clock puts them against the capture's ACK times (issue 14: an
  // emulated VM's capture read as `middle`, its ACK times moved 1.2 ms by
  // the vantage estimate; a 10 ms row's per-ACK error was 1.12 % by time,
  // 0.03 % by key). `ack` is a cumulative ACK of the capture (relative): keyed
  // only if some line logged it as snd_una, so that a capture whose
  // numbers are not the socket's (a middlebox that rewrites them, another
  // connection) stays aligned by time. False when not keyed.
  bool KeyBySndUna(uint32_t isn, int64_t ack);
  // The points due before the `repeat`-th ACK (0 for the first) whose
  // cumulative ACK is `ack` (relative), once keyed by snd_una.
  absl::Span<const SeriesPoint> DueBeforeAck(int64_t ack, uint32_t repeat);
  bool keyed_by_snd_una() const { return !keys_.empty(); }
  // The points after the last ACK.
  absl::Span<const SeriesPoint> Rest();

  // A log of every ACK (tcp_probe): compared at each, not only where the
  // sender was cwnd-limited.
  bool per_ack_truth() const {
    return captured_.source == CapturedSource::kTcpProbe;
  }
  // False (ss, qlog, tcp_probe keyed by snd_una): a due point shows the
  // state after the last ACK replayed so far. True (tcp_probe by time): a
  // point due before ACK k+1 was written when ACK k arrived, before it was
  // processed, and shows the state before ACK k. Assumes the probe fires
  // after the capture saw the ACK and before the next ACK was captured.
  bool shows_state_before_ack() const {
    return per_ack_truth() && !keyed_by_snd_una();
  }

 private:
  struct Key {
    int64_t ack = 0;
    uint32_t repeat = 0;
  };
  const CapturedCwnd& captured_;
  size_t next_ = 0;
  std::vector<Key> keys_;  // Parallel to the points, once keyed.
  // The keys KeyBySndUna() computed for `candidate_isn_` while no line
  // logged the ACKs it was given.
  std::vector<Key> candidate_;
  uint32_t candidate_isn_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_CAPTURED_CWND_H_
