#include "parsers/tcp_segment.h"

#include <arpa/inet.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ccreplay {

std::string IpAddress::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family == 4) {
    // The dotted quad inet_ntop writes, without its sprintf: a flow
    // listing makes millions of these.
    return absl::StrCat(bytes[0], ".", bytes[1], ".", bytes[2], ".", bytes[3]);
  }
  if (family == 6) {
    inet_ntop(AF_INET6, bytes, text, sizeof(text));  // RFC 5952 form.
  } else {
    return "?";
  }
  return text;
}

std::string EndpointString(const IpAddress& address, uint16_t port) {
  if (address.family == 6)
    return absl::StrCat("[", address.ToString(), "]:", port);
  return absl::StrCat(address.ToString(), ":", port);
}

const char* EncapsulationName(Encapsulation encapsulation) {
  switch (encapsulation) {
    case Encapsulation::kGre:
      return "GRE";
    case Encapsulation::kErspan:
      return "ERSPAN";
    case Encapsulation::kVxlan:
      return "VXLAN";
    case Encapsulation::kGeneve:
      return "GENEVE";
    case Encapsulation::kGtpU:
      return "GTP-U";
    case Encapsulation::kNone:
      break;
  }
  return "";
}

namespace {

// Names for the payload types a tunnel may announce that ccreplay does not
// decode (IEEE EtherType registry; ERSPAN per draft-foschiano-erspan-03).
std::string PayloadTypeName(uint16_t type) {
  switch (type) {
    case 0x880B:
      return " (PPP)";
    case 0x88BE:
      return " (ERSPAN type I/II)";
    case 0x22EB:
      return " (ERSPAN type III)";
    case 0x0806:
      return " (ARP)";
    default:
      return "";
  }
}

}  // namespace

std::string UndecodedTunnel::Describe() const {
  const char* name = EncapsulationName(encapsulation);
  switch (problem) {
    case TunnelProblem::kPayloadType:
      return absl::StrFormat("%s protocol 0x%04x%s", name, value,
                             PayloadTypeName(value));
    case TunnelProblem::kVersion:
      return absl::StrFormat("%s version %d", name, value);
    case TunnelProblem::kFlags:
      return absl::StrFormat("%s with invalid flags 0x%02x", name, value);
    case TunnelProblem::kRouting:
      return absl::StrCat(name, " with source routing (RFC 1701)");
    case TunnelProblem::kNested:
      return absl::StrCat(name, " inside another tunnel");
    case TunnelProblem::kNotIp:
      return absl::StrFormat(
          "%s carrying neither IPv4 nor IPv6 (first byte "
          "0x%02x)",
          name, value);
  }
  return name;
}

}  // namespace ccreplay
