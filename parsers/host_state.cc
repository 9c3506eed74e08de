#include "parsers/host_state.h"

#include <algorithm>

namespace ccreplay {

QuicEventSpan SpanOf(const QuicSenderEvents& events) {
  QuicEventSpan span{INT64_MAX, INT64_MIN};
  for (const QuicPacketSent& p : events.packets_sent) {
    span.start_us = std::min(span.start_us, p.time_us);
    span.end_us = std::max(span.end_us, p.time_us);
  }
  for (const QuicAckReceived& a : events.acks_received) {
    span.start_us = std::min(span.start_us, a.time_us);
    span.end_us = std::max(span.end_us, a.time_us);
  }
  return span;
}

const char* HostStateSourceName(HostStateSource source) {
  switch (source) {
    case HostStateSource::kSs:
      return "ss";
    case HostStateSource::kTcpProbe:
      return "tcp_probe";
    case HostStateSource::kQlog:
      return "qlog";
    case HostStateSource::kQuicly:
      return "quicly";
  }
  return "unknown";
}

const char* TraceVantageName(TraceVantage vantage) {
  switch (vantage) {
    case TraceVantage::kClient:
      return "client";
    case TraceVantage::kServer:
      return "server";
    case TraceVantage::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace ccreplay
