#include "parsers/capped_pcap_dump.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "parsers/pcap_reader.h"

namespace ccreplay {
namespace {

constexpr int64_t kStartNs = 1'700'000'000'000'000'000;
constexpr int64_t kGapNs = 1'000'000;  // A frame every millisecond.
constexpr size_t kFrameBytes = 100;    // IPv4 + TCP headers + 60 bytes.
// Each record: a 16-byte header (pcap-savefile(5)) and the frame.
constexpr size_t kRecordBytes = 16 + kFrameBytes;

// Counts the TCP segments a reader hands over, and their times.
struct Segments : SegmentConsumer {
  std::vector<int64_t> times_ns;
  void OnSegment(const TcpSegment& s) override {
    times_ns.push_back(s.time_ns);
  }
  void Restart() override { times_ns.clear(); }
};

class CappedPcapDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/ccreplay-capped-dump-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/live.pcap";
    pcap_ = pcap_open_dead_with_tstamp_precision(DLT_RAW, 256,
                                                 PCAP_TSTAMP_PRECISION_NANO);
  }
  void TearDown() override {
    pcap_close(pcap_);
    unlink(path_.c_str());
    unlink(CappedPcapDump::OlderPath(path_).c_str());
    rmdir(dir_.c_str());
  }
  // Writes `frames` IPv4/TCP frames, the i-th at kStartNs + i * kGapNs.
  void WriteFrames(CappedPcapDump& dump, int frames) {
    u_char frame[kFrameBytes] = {0x45, 0,  0,  kFrameBytes, 0, 0,  0x40,
                                 0,    64, 6,  0,           0, 10, 0,
                                 0,    1,  10, 0,           0, 2};
    frame[20] = 0x9c, frame[21] = 0x40;  // Port 40000 > 80.
    frame[23] = 80;
    frame[32] = 0x50;  // Data offset 5.
    frame[33] = 0x10;  // ACK.
    for (int i = 0; i < frames; ++i) {
      const int64_t t = kStartNs + i * kGapNs;
      pcap_pkthdr header = {};
      header.ts.tv_sec = t / 1'000'000'000;
      header.ts.tv_usec = t % 1'000'000'000;  // Nanoseconds.
      header.caplen = header.len = kFrameBytes;
      dump.Write(header, frame, t);
    }
  }
  off_t FileBytes(const std::string& path) {
    struct stat st = {};
    return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
  }

  std::string dir_, path_;
  pcap_t* pcap_ = nullptr;
};

TEST_F(CappedPcapDumpTest, KeepsTheNewestFramesUnderTheCap) {
  constexpr uint64_t kCapBytes = 200'000;
  constexpr int kFrames = 10'000;  // 1.16 MB uncapped.
  absl::StatusOr<std::unique_ptr<CappedPcapDump>> dump =
      CappedPcapDump::Open(pcap_, path_, kCapBytes);
  ASSERT_TRUE(dump.ok()) << dump.status();
  WriteFrames(**dump, kFrames);
  // Both halves on disk: within the cap.
  (*dump)->Close();
  EXPECT_EQ((*dump)->error(), "");
  EXPECT_EQ(FileBytes(CappedPcapDump::OlderPath(path_)), -1);
  const off_t bytes = FileBytes(path_);
  EXPECT_LE(bytes, static_cast<off_t>(kCapBytes));
  EXPECT_GT(bytes, static_cast<off_t>(kCapBytes / 2));
  Segments segments;
  absl::StatusOr<CaptureInfo> info = ReadCapture(path_, segments);
  ASSERT_TRUE(info.ok()) << info.status();
  // A half holds floor((100000 - 24) / 116) = 861 records; 10000 frames
  // = 11 full halves (9471) and 529 more: the 11th half and the 529 are
  // kept, the 8610 before them dropped.
  const size_t kept = segments.times_ns.size();
  EXPECT_EQ(kept, 861u + 529u);
  EXPECT_EQ((*dump)->dropped_frames(), kFrames - kept);
  EXPECT_EQ(bytes, static_cast<off_t>(24 + kept * kRecordBytes));
  // Exactly the newest ones, in order, starting where it says.
  EXPECT_EQ(segments.times_ns.front(), (*dump)->kept_since_ns());
  EXPECT_EQ(segments.times_ns.front(),
            kStartNs + static_cast<int64_t>(kFrames - kept) * kGapNs);
  EXPECT_EQ(segments.times_ns.back(), kStartNs + (kFrames - 1) * kGapNs);
  for (size_t i = 1; i < kept; ++i)
    ASSERT_EQ(segments.times_ns[i] - segments.times_ns[i - 1], kGapNs);
}

TEST_F(CappedPcapDumpTest, UnderTheCapOrWithoutOneEveryFrameIsKept) {
  for (uint64_t cap : {uint64_t{0}, uint64_t{10'000'000}}) {
    absl::StatusOr<std::unique_ptr<CappedPcapDump>> dump =
        CappedPcapDump::Open(pcap_, path_, cap);
    ASSERT_TRUE(dump.ok()) << dump.status();
    WriteFrames(**dump, 5'000);
    (*dump)->Close();
    EXPECT_EQ((*dump)->dropped_frames(), 0u);
    EXPECT_EQ((*dump)->kept_since_ns(), 0);
    EXPECT_EQ(FileBytes(path_), static_cast<off_t>(24 + 5'000 * kRecordBytes));
    Segments segments;
    ASSERT_TRUE(ReadCapture(path_, segments).ok());
    EXPECT_EQ(segments.times_ns.size(), 5'000u) << "cap " << cap;
  }
}

}  // namespace
}  // namespace ccreplay
