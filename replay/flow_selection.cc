#include "replay/flow_selection.h"

#include <deque>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ccreplay {
namespace {

uint64_t Payload(const Flow& flow) {
  return flow.side[flow.sender_side()].unique_payload_bytes();
}

}  // namespace

absl::StatusOr<SelectedFlow> SelectFlow(const FlowTable& table,
                                        absl::string_view spec) {
  const std::deque<Flow>& flows = table.flows();
  if (flows.empty())
    return absl::FailedPreconditionError("the capture holds no TCP flow");
  const Flow* best = nullptr;
  uint32_t index = 0;
  if (spec.empty()) {
    for (const Flow& f : flows) {
      if (best == nullptr || Payload(f) > Payload(*best)) best = &f;
    }
  } else if (absl::SimpleAtoi(spec, &index)) {
    if (index >= flows.size()) {
      return absl::OutOfRangeError(
          absl::StrCat("no flow ", index, ": the capture has ", flows.size(),
                       " (0 to ", flows.size() - 1, ")"));
    }
    best = &flows[index];
  } else {
    std::vector<std::string> ends = absl::StrSplit(spec, '-');
    if (ends.size() != 2 || ends[0].empty() || ends[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--flow '", spec, "': expected an index or ADDR:PORT-ADDR:PORT"));
    }
    for (const Flow& f : flows) {
      const std::string a = EndpointString(f.address[0], f.port[0]);
      const std::string b = EndpointString(f.address[1], f.port[1]);
      const bool match =
          (a == ends[0] && b == ends[1]) || (a == ends[1] && b == ends[0]);
      if (match && (best == nullptr || Payload(f) > Payload(*best))) best = &f;
    }
    if (best == nullptr) {
      return absl::OutOfRangeError(
          absl::StrCat("no flow between ", ends[0], " and ", ends[1]));
    }
  }
  return SelectedFlow{best->index, best->sender_side()};
}

absl::StatusOr<SelectedFlow> SelectCaptureFlow(const FlowTable& table,
                                               const CaptureInfo& capture,
                                               absl::string_view spec) {
  absl::StatusOr<SelectedFlow> selected = SelectFlow(table, spec);
  const std::string tunnels = UndecodedTunnelSummary(capture);
  if (!table.flows().empty() || tunnels.empty()) return selected;
  return absl::FailedPreconditionError(
      absl::StrCat(selected.status().message(), " (", tunnels, ")"));
}

}  // namespace ccreplay
