// The TCP transfers of a lab run, with every endpoint fixed before the run
// starts (both ports are chosen by the lab), so the bundle says which
// connection is which flow.
#ifndef CCREPLAY_LAB_TRANSFER_PLAN_H_
#define CCREPLAY_LAB_TRANSFER_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "lab/lab_config.h"

namespace ccreplay::lab {

struct PlannedFlow {
  FlowSpec spec;
  int sender_port = 0;
  int receiver_port = 0;
  // The receiver's address for the flow's path (LabTopology).
  std::string receiver_address;
};

struct TransferPlan {
  std::string sender_netns, receiver_netns;
  std::string sender_address;
  absl::Duration duration;
  std::vector<PlannedFlow> flows;
  // kOn: the built-in sender sets SO_MAX_PACING_RATE (LabConfig::paced).
  PacingMode paced = PacingMode::kAuto;
};

struct FlowResult {
  int64_t bytes_sent = 0;      // builtin only (iperf3 keeps its own JSON)
  int64_t bytes_received = 0;  // builtin only
};

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_TRANSFER_PLAN_H_
