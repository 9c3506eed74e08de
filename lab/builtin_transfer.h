// The lab's own bulk sender and receiver, for machines without iperf3 and
// for what iperf3 cannot do in one run: one plain TCP connection per flow,
// each with its own controller (TCP_CONGESTION) and MSS (TCP_MAXSEG), bulk
// or application-limited to a rate, and no control connection beside it.
#ifndef CCREPLAY_LAB_BUILTIN_TRANSFER_H_
#define CCREPLAY_LAB_BUILTIN_TRANSFER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "lab/transfer_plan.h"

namespace ccreplay::lab {

// Sends for plan.duration on every flow at once and waits until each
// receiver has read everything (FIN included). One result per flow.
absl::StatusOr<std::vector<FlowResult>> RunBuiltinTransfer(
    const TransferPlan& plan);

// Opens a socket in the sender namespace and sets TCP_CONGESTION, to refuse
// an unknown controller before anything runs (the error lists what the
// kernel has).
absl::Status CheckControllerAvailable(absl::string_view sender_netns,
                                      absl::string_view cc);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_BUILTIN_TRANSFER_H_
