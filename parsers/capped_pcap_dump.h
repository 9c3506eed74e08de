// A pcap file written frame by frame (pcap_dump) that keeps at most a cap of
// bytes on disk: it is written in two halves; when the newer reaches half
// the cap it becomes the older and the older is deleted, so between half
// and all of the cap of the newest frames is kept. Close() joins the halves
// at the path. For `ccreplay watch -o`, whose capture runs for as long as
// its user wants.
#ifndef CCREPLAY_PARSERS_CAPPED_PCAP_DUMP_H_
#define CCREPLAY_PARSERS_CAPPED_PCAP_DUMP_H_

#include <pcap/pcap.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace ccreplay {

class CappedPcapDump {
 public:
  // `pcap` (kept, not owned) gives the file header: link type, snapshot
  // length, timestamp precision. `cap_bytes` 0: no cap.
  static absl::StatusOr<std::unique_ptr<CappedPcapDump>> Open(
      pcap_t* pcap, const std::string& path, uint64_t cap_bytes);
  ~CappedPcapDump();  // Close()s.
  CappedPcapDump(const CappedPcapDump&) = delete;
  CappedPcapDump& operator=(const CappedPcapDump&) = delete;

  // Writes one frame; `time_ns` is its capture time. After an error (see
  // error()) nothing more is written.
  void Write(const pcap_pkthdr& header, const u_char* data, int64_t time_ns);
  // Flushes, closes and joins the halves at the path.
  void Close();

  // When the cap deleted frames: how many, and the capture time of the
  // first frame the file still holds (ns since 1970); 0 and 0 otherwise.
  uint64_t dropped_frames() const { return dropped_frames_; }
  int64_t kept_since_ns() const { return kept_since_ns_; }
  // Why the file stopped growing early, or was not joined ("" if not).
  const std::string& error() const { return error_; }
  // The older half's path, for removing it after a crash or a signal.
  static std::string OlderPath(const std::string& path);

 private:
  CappedPcapDump(pcap_t* pcap, std::string path, uint64_t cap_bytes)
      : pcap_(pcap), path_(std::move(path)), cap_bytes_(cap_bytes) {}
  // The newer half becomes the older (deleting the older); a new newer
  // half starts.
  absl::Status Rotate();
  // Appends the newer half's frames to the older and moves it to the path.
  absl::Status JoinHalves();

  pcap_t* pcap_;
  std::string path_;
  uint64_t cap_bytes_;
  pcap_dumper_t* dumper_ = nullptr;
  bool older_exists_ = false;
  uint64_t frames_in_older_ = 0, frames_in_newer_ = 0;
  int64_t newer_first_ns_ = 0;
  uint64_t dropped_frames_ = 0;
  int64_t kept_since_ns_ = 0;
  std::string error_;
};

}  // namespace ccreplay

#endif  // CCREPLAY_PARSERS_CAPPED_PCAP_DUMP_H_
