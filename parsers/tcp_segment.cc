#include "parsers/tcp_segment.h"

#include <arpa/inet.h>

#include "absl/strings/str_cat.h"

namespace ccreplay {

std::string IpAddress::ToString() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (family == 4) {
    inet_ntop(AF_INET, bytes, text, sizeof(text));
  } else if (family == 6) {
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

}  // namespace ccreplay
