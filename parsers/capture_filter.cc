#include "parsers/capture_filter.h"

#include "absl/strings/str_cat.h"
#include "parsers/packet_decoder.h"

namespace ccreplay {
namespace {

// The snapshot length the programs are compiled for: libpcap's largest
// (MAXIMUM_SNAPLEN in pcap-int.h, 1.10), so that no frame of any capture
// is longer. pcap_compile uses it only to bound what `ret` returns.
constexpr int kFilterSnaplenBytes = 262144;

// Compiles `expression` for `link_type` into `program`; InvalidArgument
// with libpcap's message when it does not compile.
absl::Status Compile(const std::string& expression, int link_type,
                     bpf_program* program) {
  pcap_t* dead = pcap_open_dead(link_type, kFilterSnaplenBytes);
  if (dead == nullptr) return absl::InternalError("pcap_open_dead failed");
  // No netmask is known offline: `ip broadcast` is then refused by
  // libpcap, as tcpdump -r refuses it.
  const int rc = pcap_compile(dead, program, expression.c_str(),
                              /*optimize=*/1, PCAP_NETMASK_UNKNOWN);
  absl::Status status = absl::OkStatus();
  if (rc != 0) {
    status = absl::InvalidArgumentError(
        absl::StrCat("--filter '", expression, "': ", pcap_geterr(dead)));
  }
  pcap_close(dead);
  return status;
}

}  // namespace

absl::Status CheckCaptureFilter(const std::string& expression) {
  bpf_program program = {};
  absl::Status status = Compile(expression, DLT_EN10MB, &program);
  if (status.ok()) pcap_freecode(&program);
  return status;
}

struct FrameFilter::Program {
  ~Program() { pcap_freecode(&code); }
  bpf_program code = {};
};

FrameFilter::FrameFilter(std::string expression)
    : expression_(std::move(expression)) {}

FrameFilter::~FrameFilter() = default;

absl::Status FrameFilter::Prepare(int link_type) {
  if (expression_.empty() || programs_.contains(link_type))
    return absl::OkStatus();
  auto program = std::make_unique<Program>();
  // libpcap's code generator takes DLT_* values: the pcapng walker reports
  // raw IP as its LINKTYPE_RAW (101), which libpcap maps to DLT_RAW when it
  // reads a file itself (pcap-common.c, linktype_to_dlt).
  const int dlt = link_type == kLinkRaw ? DLT_RAW : link_type;
  absl::Status compiled = Compile(expression_, dlt, &program->code);
  if (!compiled.ok()) {
    return absl::OutOfRangeError(absl::StrCat(
        compiled.message(), " (for link type ", LinkTypeName(link_type), ")"));
  }
  programs_.emplace(link_type, std::move(program));
  return absl::OkStatus();
}

bool FrameFilter::Matches(int link_type, const uint8_t* data, uint32_t captured,
                          uint32_t wire) const {
  if (expression_.empty()) return true;
  auto found = programs_.find(link_type);
  if (found == programs_.end()) return false;
  // The program reads only the lengths of the header, not its time.
  pcap_pkthdr header = {};
  header.caplen = captured;
  header.len = wire;
  return pcap_offline_filter(&found->second->code, &header, data) != 0;
}

}  // namespace ccreplay
