// The transfer through iperf3 (the default when it is installed): one
// one-shot server (-s -1) in the receiver namespace and one client in the
// sender namespace per flow, with the data connection's client port pinned
// (--cport) so the bundle knows it. Each flow also has iperf3's control
// connection to the same server port from an ephemeral client port.
#ifndef CCREPLAY_LAB_IPERF3_TRANSFER_H_
#define CCREPLAY_LAB_IPERF3_TRANSFER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lab/transfer_plan.h"

namespace ccreplay::lab {

// Runs the flows; returns the names (in bundle_dir) of the clients' -J
// reports, one per flow.
absl::StatusOr<std::vector<std::string>> RunIperf3Transfer(
    const TransferPlan& plan, absl::string_view bundle_dir);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_IPERF3_TRANSFER_H_
