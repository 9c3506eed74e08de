#include "parsers/host_state_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "parsers/host_state_builder.h"

namespace ccreplay {
namespace {

// A window in segments as an integer; 0 for a value no window can have
// (the text parsers read segments as integers, so none reaches here).
int64_t WholeSegments(double segments) {
  return static_cast<int64_t>(
      ExactUnsigned(std::round(segments), kMaxByteCount).value_or(0));
}

}  // namespace

HostTraceSummary SummarizeHostTrace(const HostTrace& trace) {
  HostTraceSummary summary;
  summary.source = HostStateSourceName(trace.source);
  if (!trace.quic) {
    summary.protocol = "tcp";
    summary.sender =
        trace.local_sends_data ? trace.local_endpoint : trace.remote_endpoint;
    summary.receiver =
        trace.local_sends_data ? trace.remote_endpoint : trace.local_endpoint;
    summary.samples = trace.samples;
    const Series& cwnd = trace.series.cwnd_segments;
    if (!cwnd.empty()) {
      auto [min, max] =
          std::minmax_element(cwnd.begin(), cwnd.end(),
                              [](const SeriesPoint& a, const SeriesPoint& b) {
                                return a.value < b.value;
                              });
      summary.cwnd_min_segments = WholeSegments(min->value);
      summary.cwnd_max_segments = WholeSegments(max->value);
      summary.cwnd_last_segments = WholeSegments(cwnd.back().value);
    }
    return summary;
  }
  summary.protocol = "quic";
  summary.vantage = TraceVantageName(trace.vantage);
  const QuicSenderEvents& events = trace.quic_events;
  summary.packets_sent = events.packets_sent.size();
  summary.packets_received = events.packets_received;
  summary.packets_lost = events.packets_lost.size();
  summary.cwnd_updates = trace.cwnd_updates;
  // The parsers keep only exact byte counts; anything else is left out.
  for (const SeriesPoint& point : trace.series.cwnd_bytes) {
    std::optional<uint64_t> bytes = ExactUnsigned(point.value, kMaxByteCount);
    if (!bytes.has_value()) continue;
    summary.cwnd_max_bytes =
        std::max(summary.cwnd_max_bytes.value_or(0), *bytes);
  }
  std::map<PacketNumberSpace, uint64_t> ce_by_space;
  for (const QuicAckReceived& ack : events.acks_received) {
    if (!ack.ce_packets.has_value()) continue;
    uint64_t& largest = ce_by_space[ack.space];
    largest = std::max(largest, *ack.ce_packets);
  }
  if (!ce_by_space.empty()) {
    uint64_t total = 0;
    for (const auto& [space, ce] : ce_by_space) total += ce;
    summary.ce_fed_back_packets = total;
  }
  return summary;
}

}  // namespace ccreplay
