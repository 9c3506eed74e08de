// Builds the normalized proto trace (proto/trace.proto) of a capture's TCP
// flows: what `ccreplay convert` writes. Unlike the rest of parsers/ this
// keeps every packet event in memory (that is what a trace is), so convert
// one flow (`only_flow`) of a very large capture.
#ifndef CCREPLAY_PARSERS_TRACE_BUILDER_H_
#define CCREPLAY_PARSERS_TRACE_BUILDER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "parsers/sequence_tracker.h"
#include "proto/trace.pb.h"

namespace ccreplay {

class TraceBuilder : public SegmentConsumer {
 public:
  // Records the packets of flow `only_flow` (its index), or of every flow.
  explicit TraceBuilder(std::optional<uint32_t> only_flow = std::nullopt)
      : only_flow_(only_flow) {}

  void OnSegment(const TcpSegment& segment) override;
  // Counted in the flow table only: a copy is no event of the flow.
  void OnDuplicateFrame(const TcpSegment& segment) override {
    table_.OnDuplicateFrame(segment);
  }
  // The reader's state, in the flow table's records.
  ConnectionSanity* HeldSanity(const TcpSegment& segment, int* side) override {
    return table_.HeldSanity(segment, side);
  }
  void Restart() override;

  // The trace; call once, after the capture was read.
  proto::Trace Finish(const CaptureInfo& capture);

  const FlowTable& flow_table() const { return table_; }

 private:
  // A packet before the data direction is known: which side sent it.
  struct Pending {
    int side;
    proto::PacketEvent event;
  };
  struct FlowState {
    SequenceTracker space[2];  // Sequence space of each side.
    std::vector<Pending> packets;
  };

  std::optional<uint32_t> only_flow_;
  FlowTable table_;
  std::vector<FlowState> state_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_TRACE_BUILDER_H_
