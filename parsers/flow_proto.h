// A capture's flow as the proto messages of proto/trace.proto, built at
// output time from the flow table's plain structs. `convert` (in a
// FlowTrace), `flows --json` and `timeline --json` all use these, so they
// agree on every name and type.
#ifndef CCREPLAY_PARSERS_FLOW_PROTO_H_
#define CCREPLAY_PARSERS_FLOW_PROTO_H_

#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "proto/trace.pb.h"

namespace ccreplay {

proto::CaptureSummary CaptureSummaryProto(const CaptureInfo& capture);

// The flow's protocol, index and ends (its data sender first).
proto::FlowIdentity FlowIdentityProto(const Flow& flow);

// `summary` is SummarizeFlow(flow, ...).
proto::Handshake HandshakeProto(const Flow& flow, const FlowSummary& summary);
proto::FlowSummary FlowSummaryProto(const FlowSummary& summary);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_FLOW_PROTO_H_
