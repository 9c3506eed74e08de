// Choosing one flow of a capture, as every per-flow subcommand (timeline,
// replay, diagnose) does with --flow.
#ifndef CCREPLAY_REPLAY_FLOW_SELECTION_H_
#define CCREPLAY_REPLAY_FLOW_SELECTION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "parsers/flow_table.h"

namespace ccreplay {

struct SelectedFlow {
  uint32_t index = 0;
  int sender_side = 0;  // Flow::sender_side(): side[] index of the sender.
};

// `spec`: empty for the flow with the most unique payload (the first on a
// tie); a decimal index as `ccreplay flows` prints it; or
// "ADDR:PORT-ADDR:PORT" (IPv6 in brackets, either order; with port reuse,
// the matching flow with the most payload). FailedPrecondition (nothing to
// diagnose) when the table holds no flow, OutOfRange when `spec` names no
// flow of it, InvalidArgument when `spec` is neither form.
absl::StatusOr<SelectedFlow> SelectFlow(const FlowTable& table,
                                        absl::string_view spec);

// SelectFlow on the flow table of `capture`; when it holds no flow, the
// message also names the tunnelled packets that were not decoded (so a
// capture of ERSPAN or Aruba GRE says why it shows no TCP).
absl::StatusOr<SelectedFlow> SelectCaptureFlow(const FlowTable& table,
                                               const CaptureInfo& capture,
                                               absl::string_view spec);

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_FLOW_SELECTION_H_
