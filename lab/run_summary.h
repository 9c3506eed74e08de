// The few lines `ccreplay lab` prints when a run is done: where the bundle
// is and how good its ground truth is (capture drops, trace overruns,
// delay-line lateness).
#ifndef CCREPLAY_LAB_RUN_SUMMARY_H_
#define CCREPLAY_LAB_RUN_SUMMARY_H_

#include <string>

#include "lab/bundle_meta.h"

namespace ccreplay::lab {

std::string LabRunSummary(const LabRun& run);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_RUN_SUMMARY_H_
