#include "lab/step_marker.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace ccreplay::lab {
namespace {

size_t CountOccurrences(const std::string& haystack, uint64_t value) {
  std::string needle(sizeof(value), '\0');
  std::memcpy(needle.data(), &value, sizeof(value));
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(StepMarker, PatchesRateAndThresholdIntoRodata) {
  char work_dir[] = "/tmp/ccreplay-step-marker-test-XXXXXX";
  ASSERT_NE(mkdtemp(work_dir), nullptr);
  absl::StatusOr<StepMarkerObject> object = LoadStepMarkerObject(work_dir);
  if (!object.ok()) GTEST_SKIP() << "no marker object: " << object.status();
  EXPECT_TRUE(object->compiled_at == "build-time" ||
              object->compiled_at == "run-time");
  // The source initialises both globals to 1 (llvm-objdump -s -j .rodata
  // step_marker.bpf.o shows 0100000000000000 0100000000000000).
  EXPECT_EQ(*ReadRodataU64(object->elf, "step_marker_rate_bits_per_s"), 1u);
  EXPECT_EQ(*ReadRodataU64(object->elf, "step_marker_threshold_bytes"), 1u);
  const uint64_t rate = 50'000'000, threshold = 60'000;
  ASSERT_EQ(CountOccurrences(object->elf, rate), 0u);
  ASSERT_EQ(CountOccurrences(object->elf, threshold), 0u);
  ASSERT_TRUE(ConfigureStepMarker(object->elf, rate, threshold).ok());
  EXPECT_EQ(*ReadRodataU64(object->elf, "step_marker_rate_bits_per_s"), rate);
  EXPECT_EQ(*ReadRodataU64(object->elf, "step_marker_threshold_bytes"),
            threshold);
  // Independent of the ELF walk: each value now appears exactly once.
  EXPECT_EQ(CountOccurrences(object->elf, rate), 1u);
  EXPECT_EQ(CountOccurrences(object->elf, threshold), 1u);
  std::string rm = std::string("rm -rf ") + work_dir;
  ASSERT_EQ(std::system(rm.c_str()), 0);
}

TEST(StepMarker, RefusesWhatIsNotTheMarker) {
  std::string not_elf = "this is text, not an object file";
  absl::Status status =
      PatchRodataU64(not_elf, "step_marker_rate_bits_per_s", 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("offset 0"), absl::string_view::npos)
      << status;
  std::string truncated =
      "\x7f"
      "ELF";
  EXPECT_FALSE(PatchRodataU64(truncated, "x", 1).ok());

  char work_dir[] = "/tmp/ccreplay-step-marker-test-XXXXXX";
  ASSERT_NE(mkdtemp(work_dir), nullptr);
  absl::StatusOr<StepMarkerObject> object = LoadStepMarkerObject(work_dir);
  rmdir(work_dir);
  if (!object.ok()) GTEST_SKIP() << "no marker object: " << object.status();
  EXPECT_FALSE(PatchRodataU64(object->elf, "no_such_symbol", 1).ok());
  // A symbol that exists but is a map, not a .rodata variable.
  absl::Status in_maps = PatchRodataU64(object->elf, "step_marker_state", 1);
  EXPECT_FALSE(in_maps.ok());
  // Cut inside the section headers: an error, not a crash.
  std::string cut = object->elf.substr(0, object->elf.size() - 100);
  EXPECT_FALSE(ReadRodataU64(cut, "step_marker_rate_bits_per_s").ok());
}

}  // namespace
}  // namespace ccreplay::lab
