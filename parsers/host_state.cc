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

const char* VantageName(Vantage vantage) {
  switch (vantage) {
    case Vantage::kClient:
      return "client";
    case Vantage::kServer:
      return "server";
    case Vantage::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace ccreplay
