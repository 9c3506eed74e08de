// What a transport stack itself reported about a connection: the series an
// `ss` log, a `tcp:tcp_probe` trace, a qlog or a quicly event log captured,
// and, for QUIC, the sender's own event stream (packets sent, ACK frames
// received, losses) from which replay/ builds an ACK timeline.
//
// These are plain structs streamed from the host-state parsers
// (ss_log.h, tcp_probe.h, qlog.h, quicly_log.h) to replay/ and reports/.
// Every field carries its unit in its name. Times are microseconds on the
// trace's own clock; `HostTrace::clock` says which clock that is.
#ifndef CCREPLAY_PARSERS_HOST_STATE_H_
#define CCREPLAY_PARSERS_HOST_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ccreplay {

// One value of a captured series at one time.
struct SeriesPoint {
  int64_t time_us = 0;
  double value = 0;
  // Place of the event that carried the value in its trace's log, as
  // QuicPacketSent::log_order (qlog only; 0: not recorded).
  uint64_t log_order = 0;
};
using Series = std::vector<SeriesPoint>;

// A congestion state as the stack named it: "open"/"disorder"/"cwr"/
// "recovery"/"loss" for Linux (enum tcp_ca_state, include/net/tcp.h), free
// text such as "congestion_avoidance" or "recovery" for qlog
// (draft-ietf-quic-qlog-quic-events §recovery:congestion_state_updated).
struct CongestionStateChange {
  int64_t time_us = 0;
  std::string state;
  // Why, when the source says ("ecn", "packet_loss", ...); else empty.
  std::string trigger;
};

// The series the stack exposed. A series is empty when the source never
// reported that quantity. Values are as reported (no interpolation): `ss`
// gives one point per sample, tcp_probe one per received segment, qlog one
// per event that carries the field.
struct CapturedSeries {
  Series cwnd_bytes;
  // TCP stacks count cwnd in segments (ss `cwnd:`, tcp_probe `snd_cwnd`);
  // for QUIC this is empty.
  Series cwnd_segments;
  Series ssthresh_bytes;
  Series ssthresh_segments;
  Series srtt_us;
  Series rttvar_us;
  Series min_rtt_us;
  Series latest_rtt_us;
  Series bytes_in_flight;
  Series pacing_rate_bps;
  // Linux tcpi_delivered / tcpi_delivered_ce (ss `delivered:`,
  // `delivered_ce:`), in segments.
  Series delivered_segments;
  Series delivered_ce_segments;
  // Linux BBR's model as ss prints it, `bbr:(bw:…,mrtt:…,pacing_gain:…,
  // cwnd_gain:…)` (iproute2 misc/ss.c from tcp_bbr_info, filled by
  // bbr_get_info() in net/ipv4/tcp_bbr.c, 6.18): the max-filtered bandwidth
  // estimate, the windowed min RTT, and the gains in force. Empty unless the
  // socket ran bbr; ss omits the gains before the first RTT sample.
  Series bbr_bw_bps;
  Series bbr_min_rtt_us;
  Series bbr_pacing_gain;
  Series bbr_cwnd_gain;
  std::vector<CongestionStateChange> congestion_states;
  // Every other numeric field, keyed by a name that ends in its unit where
  // the source states one (`rto_ms`, `bytes_acked`,
  // `skmem.tb`, `snd_wnd`, `pto_count`, ...).
  std::map<std::string, Series> other;
};

// QUIC packet number spaces (RFC 9000 §12.3). 0-RTT shares the application
// space.
enum class PacketNumberSpace { kInitial, kHandshake, kApplication };

struct QuicPacketSent {
  int64_t time_us = 0;
  PacketNumberSpace space = PacketNumberSpace::kApplication;
  uint64_t packet_number = 0;
  // Size of the QUIC packet (qlog raw.length or header.packet_size; quicly
  // `len`); 0 when the log does not say.
  uint32_t size_bytes = 0;
  // False for packets that carry only ACK/PADDING/CONNECTION_CLOSE frames
  // (RFC 9002 §2 "ack-eliciting"); such packets do not count in flight.
  bool ack_eliciting = true;
  // Place in the log among all of the trace's events (HostTrace::samples
  // when the event was read: from 1; 0: not recorded; the ACK frames of one
  // packet share it). Orders events with equal times: a log with whole
  // milliseconds has sends, ACKs, losses and metrics in the same
  // millisecond.
  uint64_t log_order = 0;
};

// An inclusive range of acknowledged packet numbers.
struct AckRange {
  uint64_t first = 0;
  uint64_t last = 0;
};

// One ACK frame the logging endpoint received (RFC 9000 §19.3).
struct QuicAckReceived {
  int64_t time_us = 0;
  PacketNumberSpace space = PacketNumberSpace::kApplication;
  // Ascending, as found in the log.
  std::vector<AckRange> acked_ranges;
  // The peer's reported ACK delay, already in µs (qlog `ack_delay` is in
  // ms); absent when the log does not decode it.
  std::optional<double> ack_delay_us;
  // Cumulative ECN counts of the ACK_ECN frame (RFC 9000 §19.3.2); absent in
  // an ACK frame without ECN counts.
  std::optional<uint64_t> ect0_packets;
  std::optional<uint64_t> ect1_packets;
  std::optional<uint64_t> ce_packets;
  uint64_t log_order = 0;  // As QuicPacketSent::log_order.
};

struct QuicPacketLost {
  int64_t time_us = 0;
  PacketNumberSpace space = PacketNumberSpace::kApplication;
  uint64_t packet_number = 0;
  // qlog `trigger` ("reordering_threshold", "time_threshold",
  // "pto_expired"), empty when absent.
  std::string trigger;
  uint64_t log_order = 0;  // As QuicPacketSent::log_order.
};

// The logging endpoint's own sender view, in log order.
struct QuicSenderEvents {
  std::vector<QuicPacketSent> packets_sent;
  std::vector<QuicAckReceived> acks_received;
  std::vector<QuicPacketLost> packets_lost;
  uint64_t packets_received = 0;
};

// The largest event time a QUIC log reader keeps, either way, in µs: 2^53
// (285 years), beyond any clock a log keeps (relative, or Unix time), and
// small enough that the difference of any two fits an int64. An event
// beyond it is skipped with a warning.
inline constexpr double kMaxQuicEventTimeUs = 9007199254740992.0;

// The first and last time of a trace's packets sent and ACKs received, in
// µs; {INT64_MAX, INT64_MIN} when it has neither.
struct QuicEventSpan {
  int64_t start_us;
  int64_t end_us;
};
QuicEventSpan SpanOf(const QuicSenderEvents& events);

enum class HostStateSource { kSs, kTcpProbe, kQlog, kQuicly };
enum class TraceVantage { kUnknown, kClient, kServer };

// One connection (ss, tcp_probe) or one trace (qlog, quicly).
struct HostTrace {
  HostStateSource source = HostStateSource::kSs;
  bool quic = false;
  // TCP: the local socket's address and peer, "ADDR:PORT" with IPv6 in
  // brackets (as ss prints them). Empty for QUIC traces.
  std::string local_endpoint;
  std::string remote_endpoint;
  // TCP: true when the local side is the one sending data (its bytes_acked
  // grows, or, for tcp_probe, snd_una advances).
  bool local_sends_data = false;
  // The congestion controller the stack named (ss prints it), else empty.
  std::string congestion_control;
  // Flags seen in any sample (ss `ts`, `sack`, `ecn`, `ecnseen`, ...).
  std::set<std::string> flags;
  // QUIC: vantage point of the trace, and its title / ODCID / group id /
  // quicly conn id, whichever the log offers.
  TraceVantage vantage = TraceVantage::kUnknown;
  std::string name;
  // What time_us counts from, for people ("unix epoch", "ftrace clock
  // mono", "qlog reference_time", ...).
  std::string clock;
  // The Unix time of time_us == 0 in µs, when the log states it.
  std::optional<int64_t> clock_epoch_us;
  // Samples (ss), probe lines (tcp_probe) or events (qlog, quicly) that
  // belong to this trace.
  uint64_t samples = 0;
  // Events that carried a congestion window value.
  uint64_t cwnd_updates = 0;
  // qlog / quicly: events per name, lower case ("transport:packet_sent",
  // "cc_ack_received").
  std::map<std::string, uint64_t> event_counts;
  CapturedSeries series;
  QuicSenderEvents quic_events;
};

// Everything one host-state file held.
struct HostStateLog {
  std::string path;
  // In order of first appearance.
  std::vector<HostTrace> traces;
  // Non-fatal problems (skipped lines, unknown events), each naming the
  // line or byte offset.
  std::vector<std::string> warnings;
  // Set when the input broke off (a compressed stream cut short or
  // corrupt): the traces hold what was read before `truncated_at_offset`
  // (decompressed bytes) and a warning says so.
  bool truncated = false;
  uint64_t truncated_at_offset = 0;
};

const char* HostStateSourceName(HostStateSource source);
const char* TraceVantageName(TraceVantage vantage);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_HOST_STATE_H_
