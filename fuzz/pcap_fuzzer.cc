// libFuzzer target for the capture path: any bytes, as a pcap or pcapng
// file, through libpcap or the pcapng walker, the frame decoder and the
// flow table. It must never crash, hang or leak.
#include <cstddef>
#include <cstdint>

#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::FlowTable table;
  absl::StatusOr<ccreplay::CaptureInfo> info =
      ccreplay::ReadCaptureFromMemory("fuzz", data, size, table);
  if (info.ok()) {
    for (const ccreplay::Flow& flow : table.flows()) {
      (void)ccreplay::SummarizeFlow(flow, info->first_packet_time_ns);
    }
  }
  return 0;
}
