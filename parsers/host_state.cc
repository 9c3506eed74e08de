#include "parsers/host_state.h"

namespace ccreplay {

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
