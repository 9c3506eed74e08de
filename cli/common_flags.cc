#include "cli/common_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(bool, json, false, "Write machine-readable JSON to stdout.");
ABSL_FLAG(bool, csv, false, "Write CSV to stdout.");
ABSL_FLAG(std::string, flow, "",
          "The flow: its index in `ccreplay flows`, or ADDR:PORT-ADDR:PORT. "
          "Default: the flow with the most payload.");
ABSL_FLAG(std::string, o, "", "Output path.");
