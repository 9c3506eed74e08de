#include "replay/bbr_state_trace.h"

namespace ccreplay {

BbrStateRecord BbrStateOf(const LinuxBbr& bbr, int64_t time_us) {
  BbrStateRecord r;
  r.time_us = time_us;
  r.mode = bbr.mode();
  r.bw_bps = bbr.bw_bps();
  r.max_bw_bps = bbr.max_bw_bps();
  r.min_rtt_us = bbr.min_rtt_us();
  r.pacing_gain = bbr.pacing_gain();
  r.cwnd_gain = bbr.cwnd_gain();
  r.cwnd_bytes = bbr.cwnd_bytes();
  r.extra_acked_packets = bbr.extra_acked();
  r.round_count = bbr.round_count();
  r.full_bw_reached = bbr.full_bw_reached();
  r.lt_use_bw = bbr.lt_use_bw();
  r.lt_bw_bps = bbr.lt_bw_bps();
  r.lt_loss_ratio = bbr.lt_loss_ratio();
  const BbrRateSample& rs = bbr.last_rate_sample();
  if (rs.delivered >= 0 && rs.interval_us > 0) {
    // tcp_rate.c: delivered packets over the interval, in the model's MSS.
    r.delivery_rate_bps = 8.0 * static_cast<double>(rs.delivered) *
                          bbr.mss_bytes() * 1e6 /
                          static_cast<double>(rs.interval_us);
  }
  r.app_limited = rs.app_limited;
  r.prior_in_flight_packets = rs.prior_in_flight;
  r.delivered_packets = bbr.delivered_packets();
  r.lost_packets = bbr.lost_packets();
  return r;
}

const LinuxBbr* AsLinuxBbr(const CongestionController& controller) {
  return dynamic_cast<const LinuxBbr*>(&controller);
}

}  // namespace ccreplay
