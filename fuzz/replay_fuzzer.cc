// libFuzzer target for replay: any bytes as a TCP capture (or, when they
// do not start like one, a QUIC qlog), the largest flow's timeline
// replayed through every controller profile the registry lists, with the
// captured cwnd aligned and the divergence measured. It must never crash,
// hang or leak.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cc/registry.h"
#include "fuzz/fuzz_input.h"
#include "parsers/input_kind.h"
#include "replay/replay_session.h"

namespace {

ccreplay::ReplayOptions EveryController() {
  ccreplay::ReplayOptions options;
  for (const ccreplay::ControllerProfile& profile :
       ccreplay::ListControllerProfiles()) {
    options.specs.push_back(profile.spec);
  }
  options.max_points = 64;  // The series' size, not the replay's work.
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ccreplay::ReplayOptions* const options =
      new ccreplay::ReplayOptions(EveryController());
  ccreplay::FuzzFile file(data, size);
  if (!file.ok()) return 0;
  absl::StatusOr<ccreplay::InputClass> kind =
      ccreplay::ClassifyInput(file.path());
  if (!kind.ok()) return 0;
  const bool capture = ccreplay::IsCapture(kind->kind);
  if (capture) {
    (void)ccreplay::ReplayTcpCapture(file.path(), *options);
  } else {
    (void)ccreplay::ReplayQuicLog(file.path(), *options);
  }
  return 0;
}
