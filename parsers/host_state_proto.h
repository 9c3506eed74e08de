// The host-state structs (parsers/host_state.h) as the proto trace: what
// `ccreplay convert` writes for ss logs, tcp_probe traces, qlogs and quicly
// logs.
#ifndef CCREPLAY_PARSERS_HOST_STATE_PROTO_H_
#define CCREPLAY_PARSERS_HOST_STATE_PROTO_H_

#include "parsers/host_state.h"
#include "proto/trace.pb.h"

namespace ccreplay {

proto::Trace HostStateToProto(const HostStateLog& log);

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_HOST_STATE_PROTO_H_
