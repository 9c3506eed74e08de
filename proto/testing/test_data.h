// Where tests find their input files; every test uses these, none builds a
// path by hand. This project's own files are under testdata/
// (TestDataPath). Files made by other projects are not in the repository:
// tests read them from ../shared/testdata (SharedTestData) or from where a
// Debian package installs them (GopacketTestData), and a test that needs
// one skips, saying which file is missing and why, when it is absent:
//
//   CCREPLAY_PATH_OR_SKIP(path, SharedTestData("tcp/zeek-tcprs_fast019.pcap"));
//   ReadCapture(path, ...);
//
// The directories come from compile definitions that ccreplay_test() in
// the top CMakeLists.txt sets (the ccreplay_test_data target); header-only,
// so any test folder may include it.
#ifndef CCREPLAY_PROTO_TESTING_TEST_DATA_H_
#define CCREPLAY_PROTO_TESTING_TEST_DATA_H_

#include <unistd.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace ccreplay {

// A file of this project's testdata/ (always present).
inline std::string TestDataPath(absl::string_view relative) {
  return absl::StrCat(CCREPLAY_TESTDATA_DIR, "/", relative);
}

namespace test_data_internal {

// `dir`/`relative` when it is readable; otherwise NotFound naming the file
// and `why` it is not here.
inline absl::StatusOr<std::string> Readable(absl::string_view dir,
                                            absl::string_view relative,
                                            absl::string_view why) {
  std::string path = absl::StrCat(dir, "/", relative);
  if (access(path.c_str(), R_OK) == 0) return path;
  return absl::NotFoundError(absl::StrCat(path, " is absent: ", why));
}

}  // namespace test_data_internal

// A third-party file of ../shared/testdata (see testdata/SOURCES.md).
inline absl::StatusOr<std::string> SharedTestData(absl::string_view relative) {
  return test_data_internal::Readable(
      CCREPLAY_SHARED_TESTDATA_DIR, relative,
      "third-party test data is not in the repository; tests read it from "
      "../shared/testdata (testdata/SOURCES.md)");
}

// A file of gopacket's source tree as Debian's
// golang-github-gopacket-gopacket-dev installs it (scripts/bootstrap.sh).
inline absl::StatusOr<std::string> GopacketTestData(
    absl::string_view relative) {
  return test_data_internal::Readable(
      CCREPLAY_GOPACKET_DIR, relative,
      "install the Debian package golang-github-gopacket-gopacket-dev "
      "(scripts/bootstrap.sh does)");
}

// For tables that mix origins: "shared:REL" is SharedTestData(REL),
// "gopacket:REL" GopacketTestData(REL), anything else TestDataPath.
inline absl::StatusOr<std::string> FindTestData(absl::string_view name) {
  if (absl::ConsumePrefix(&name, "shared:")) return SharedTestData(name);
  if (absl::ConsumePrefix(&name, "gopacket:")) return GopacketTestData(name);
  return TestDataPath(name);
}

}  // namespace ccreplay

// Declares `const std::string var` = the path `located` (a StatusOr from the
// functions above) holds, or skips the running test with its reason. Use in
// a TEST body or a void helper whose caller checks IsSkipped().
#define CCREPLAY_PATH_OR_SKIP(var, located)                       \
  const ::absl::StatusOr<std::string> var##_located_ = (located); \
  if (!var##_located_.ok()) {                                     \
    GTEST_SKIP() << var##_located_.status().message();            \
  }                                                               \
  const std::string& var = *var##_located_

#endif  // CCREPLAY_PROTO_TESTING_TEST_DATA_H_
