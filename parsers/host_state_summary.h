// The one-line-per-trace view of a host-state log that `ccreplay flows`
// prints for ss / tcp_probe / qlog / quicly inputs.
#ifndef CCREPLAY_PARSERS_HOST_STATE_SUMMARY_H_
#define CCREPLAY_PARSERS_HOST_STATE_SUMMARY_H_

#include <cstdint>
#include <optional>
#include <string>

#include "parsers/host_state.h"

namespace ccreplay {

struct HostTraceSummary {
  // "tcp" or "quic".
  std::string protocol;
  // "ss", "tcp_probe", "qlog" or "quicly".
  std::string source;

  // TCP: sender is the side that sends data ("ADDR:PORT"); samples are ss
  // samples or tcp_probe lines; cwnd in segments (0 when never reported).
  std::string sender;
  std::string receiver;
  uint64_t samples = 0;
  int64_t cwnd_min_segments = 0;
  int64_t cwnd_max_segments = 0;
  int64_t cwnd_last_segments = 0;

  // QUIC: "server", "client" or "unknown".
  std::string vantage;
  uint64_t packets_sent = 0;
  uint64_t packets_received = 0;
  uint64_t packets_lost = 0;
  // Events that carried a congestion window value.
  uint64_t cwnd_updates = 0;
  // Absent when the log never gave a congestion window.
  std::optional<uint64_t> cwnd_max_bytes;
  // CE marks the peer fed back: per packet number space the largest CE
  // count of any ACK frame, summed (RFC 9000 §13.4.2: the counts are
  // cumulative). Absent when no ACK frame carried ECN counts.
  std::optional<uint64_t> ce_fed_back_packets;
};

HostTraceSummary SummarizeHostTrace(const HostTrace& trace);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_HOST_STATE_SUMMARY_H_
