// The eBPF step CE marker (step_marker.bpf.c) as an object file that
// `tc filter add ... bpf da obj FILE sec tc` loads, with this run's rate and
// threshold written into its .rodata section.
#ifndef CCREPLAY_LAB_STEP_MARKER_H_
#define CCREPLAY_LAB_STEP_MARKER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace ccreplay::lab {

// The tc section of the program in the object.
inline constexpr char kStepMarkerSection[] = "tc";

struct StepMarkerObject {
  std::string elf;  // the object file's bytes
  // "build-time" (compiled by CMake with clang -target bpf and embedded in
  // the binary) or "run-time" (compiled now by the clang on PATH).
  std::string compiled_at;
};

// The object, compiled at build time if that was possible, else now; a
// missing clang at run time is an error that names it. work_dir holds the
// source and object of a run-time compile.
absl::StatusOr<StepMarkerObject> LoadStepMarkerObject(
    absl::string_view work_dir);

// Overwrites the 8-byte .rodata variable `symbol` of an ELF64 BPF object.
// Errors name the offset and what is wrong (not ELF64, no such symbol,
// symbol not in .rodata, out of bounds).
absl::Status PatchRodataU64(std::string& elf, absl::string_view symbol,
                            uint64_t value);
// Reads it back (tests, and a check after patching).
absl::StatusOr<uint64_t> ReadRodataU64(const std::string& elf,
                                       absl::string_view symbol);

// Patches the rate and threshold globals into the object.
absl::Status ConfigureStepMarker(std::string& elf, int64_t rate_bits_per_s,
                                 int64_t threshold_bytes);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_STEP_MARKER_H_
