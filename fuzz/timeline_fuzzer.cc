// libFuzzer target for sender reconstruction: any bytes as a pcap or
// pcapng capture, through the flow table into the per-ACK timeline of
// every flow (RTT samples, SACK scoreboard, retransmission classes, ECN
// feedback), then each flow's statistics. It must never crash, hang or
// leak.
#include <cstddef>
#include <cstdint>

#include "parsers/pcap_reader.h"
#include "replay/ack_timeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint64_t events = 0;
  ccreplay::AckTimelineBuilder builder(
      [&events](const ccreplay::TimelineEvent&) { ++events; });
  absl::StatusOr<ccreplay::CaptureInfo> info =
      ccreplay::ReadCaptureFromMemory("fuzz", data, size, builder);
  if (!info.ok()) return 0;
  const size_t flows = builder.flow_table().flows().size();
  for (size_t i = 0; i < flows; ++i)
    (void)builder.Stats(static_cast<uint32_t>(i));
  return 0;
}
