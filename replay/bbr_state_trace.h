// bbr:linux's state after every ACK of a replay: what the BBR findings
// (reports/rules/bbr_*) read. Recorded by the replay session for each
// replayed controller that is a LinuxBbr (cc/linux_bbr.h), and for no
// other, so a non-BBR flow pays nothing. One record per ACK: a 10-s flow
// at 100 Mbit/s is ~40k ACKs, ~4 MB.
#ifndef CCREPLAY_REPLAY_BBR_STATE_TRACE_H_
#define CCREPLAY_REPLAY_BBR_STATE_TRACE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "cc/linux_bbr.h"

namespace ccreplay {

struct BbrStateRecord {
  // Since ReplayResult::start_us (the series' clock).
  int64_t time_us = 0;
  BbrMode mode = BbrMode::kStartup;
  // bbr_bw() as ss prints it (lt_bw while long-term mode is on), and the
  // max filter's own estimate, bit/s.
  double bw_bps = 0;
  double max_bw_bps = 0;
  std::optional<uint32_t> min_rtt_us;  // nullopt before any RTT sample
  // Gains in 1/256 (BBR_UNIT), as tcp_bbr.c keeps them.
  uint32_t pacing_gain = 0;
  uint32_t cwnd_gain = 0;
  uint64_t cwnd_bytes = 0;
  uint32_t extra_acked_packets = 0;
  uint32_t round_count = 0;
  bool full_bw_reached = false;
  // Long-term (policer) mode: lt_use_bw, lt_bw (bit/s, 0 when none) and
  // the loss ratio of the last lossy sampling interval.
  bool lt_use_bw = false;
  double lt_bw_bps = 0;
  double lt_loss_ratio = 0;
  // This ACK's rate sample (tcp_rate.c): delivered / interval in bit/s,
  // nullopt when the sample is not valid; and is_app_limited.
  std::optional<double> delivery_rate_bps;
  bool app_limited = false;
  // rs->prior_in_flight: packets in flight when this ACK came (a flight
  // that had filled the previous record's cwnd means the sender waited on
  // cwnd since that ACK).
  uint32_t prior_in_flight_packets = 0;
  // Packets delivered and marked lost so far (tp->delivered, tp->lost).
  uint64_t delivered_packets = 0;
  uint64_t lost_packets = 0;
};

struct BbrStateTrace {
  uint32_t mss_bytes = 0;  // the model's segment size at the last record
  std::vector<BbrStateRecord> records;
};

// The record of `bbr` after an ACK at `time_us` (series clock).
BbrStateRecord BbrStateOf(const LinuxBbr& bbr, int64_t time_us);

// The controller as a LinuxBbr, null when it is not one (the replay then
// keeps no trace for it).
const LinuxBbr* AsLinuxBbr(const CongestionController& controller);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_BBR_STATE_TRACE_H_
