// A capture's flow as the proto messages of proto/trace.proto, built at
// output time from the flow table's plain structs. `convert` (in a
// FlowTrace), `flows --json` and `timeline --json` all use these, so they
// agree on every name and type.
#ifndef CCREPLAY_PARSERS_FLOW_PROTO_H_
#define CCREPLAY_PARSERS_FLOW_PROTO_H_

#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "proto/json_printer.h"
#include "proto/trace.pb.h"

namespace ccreplay {

proto::CaptureSummary CaptureSummaryProto(const CaptureInfo& capture);

// The flow's protocol, index and ends (its data sender first).
proto::FlowIdentity FlowIdentityProto(const Flow& flow);

// `summary` is SummarizeFlow(flow, ...).
proto::Handshake HandshakeProto(const Flow& flow, const FlowSummary& summary);
proto::FlowSummary FlowSummaryProto(const FlowSummary& summary);

// The three messages above written straight as JSON, field for field as
// those functions set them (`flows --json` writes a million rows; making
// the messages to print them was most of its time). Each fills the object
// `out` opened and leaves it to be End()ed; flow_proto_test compares them
// with PrintJson of the messages.
void WriteFlowIdentityJson(const Flow& flow, JsonObjectWriter& out);
void WriteHandshakeJson(const Flow& flow, const FlowSummary& summary,
                        JsonObjectWriter& out);
void WriteFlowSummaryJson(const FlowSummary& summary, JsonObjectWriter& out);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_FLOW_PROTO_H_
