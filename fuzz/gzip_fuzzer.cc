// libFuzzer target for the input path every reader shares (InputFile):
// any bytes, gzip or not, read three ways — in blocks, in lines, through
// the stdio view libpcap takes — and, when they start like a capture,
// through libpcap from that view into the flow table. It must never crash,
// hang or leak; a bad gzip stream is an error, not a fault.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "fuzz/fuzz_input.h"
#include "parsers/flow_table.h"
#include "parsers/input_file.h"
#include "parsers/input_kind.h"
#include "parsers/pcap_reader.h"

namespace {

void ReadAllThreeWays(const std::string& path) {
  char block[4096];
  if (auto in = ccreplay::InputFile::Open(path); in.ok()) {
    for (;;) {
      absl::StatusOr<size_t> n = (*in)->Read(block, sizeof(block));
      if (!n.ok() || *n == 0) break;
    }
  }
  if (auto in = ccreplay::InputFile::Open(path); in.ok()) {
    std::string line;
    while ((*in)->ReadLine(&line)) {
    }
  }
  if (auto in = ccreplay::InputFile::Open(path); in.ok()) {
    if (FILE* stdio = (*in)->OpenStdio(); stdio != nullptr) {
      while (std::fread(block, 1, sizeof(block), stdio) == sizeof(block)) {
      }
      (void)std::ftell(stdio);
      std::fclose(stdio);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ccreplay::FuzzFile file(data, size);
  if (!file.ok()) return 0;
  ReadAllThreeWays(file.path());
  absl::StatusOr<ccreplay::InputClass> kind =
      ccreplay::ClassifyInput(file.path());
  if (kind.ok() && ccreplay::IsCapture(kind->kind)) {
    ccreplay::FlowTable table;
    (void)ccreplay::ReadCapture(file.path(), table);
  }
  return 0;
}
