#include "parsers/capped_pcap_dump.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace ccreplay {

absl::StatusOr<std::unique_ptr<CappedPcapDump>> CappedPcapDump::Open(
    pcap_t* pcap, const std::string& path, uint64_t cap_bytes) {
  std::unique_ptr<CappedPcapDump> dump(
      new CappedPcapDump(pcap, path, cap_bytes));
  dump->dumper_ = pcap_dump_open(pcap, path.c_str());
  if (dump->dumper_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat(path, ": cannot write: ", pcap_geterr(pcap)));
  }
  return dump;
}

CappedPcapDump::~CappedPcapDump() { Close(); }

std::string CappedPcapDump::OlderPath(const std::string& path) {
  return path + ".older";
}

void CappedPcapDump::Write(const pcap_pkthdr& header, const u_char* data,
                           int64_t time_ns) {
  if (dumper_ == nullptr) return;
  if (cap_bytes_ > 0 && frames_in_newer_ > 0 &&
      static_cast<uint64_t>(pcap_dump_ftell64(dumper_)) + sizeof(header) +
              header.caplen >
          cap_bytes_ / 2) {
    absl::Status rotated = Rotate();
    if (!rotated.ok()) {
      error_ = std::string(rotated.message());
      return;
    }
  }
  if (frames_in_newer_++ == 0) newer_first_ns_ = time_ns;
  pcap_dump(reinterpret_cast<u_char*>(dumper_), &header, data);
}

absl::Status CappedPcapDump::Rotate() {
  pcap_dump_close(dumper_);
  dumper_ = nullptr;
  const std::string older = OlderPath(path_);
  if (std::rename(path_.c_str(), older.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat(
        older, ": cannot keep the capture: ", std::strerror(errno)));
  }
  if (older_exists_) {  // Replaced: its frames are gone.
    dropped_frames_ += frames_in_older_;
    kept_since_ns_ = newer_first_ns_;
  }
  older_exists_ = true;
  frames_in_older_ = frames_in_newer_;
  frames_in_newer_ = 0;
  dumper_ = pcap_dump_open(pcap_, path_.c_str());
  if (dumper_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat(path_, ": cannot write: ", pcap_geterr(pcap_)));
  }
  return absl::OkStatus();
}

absl::Status CappedPcapDump::JoinHalves() {
  // Both halves come from one handle: the same 24-byte file header (struct
  // pcap_file_header, pcap-savefile(5)), then records; the newer half's
  // records follow the older's.
  constexpr long kFileHeaderBytes = 24;
  const std::string older = OlderPath(path_);
  std::FILE* to = std::fopen(older.c_str(), "ab");
  std::FILE* from = std::fopen(path_.c_str(), "rb");
  bool ok = to != nullptr && from != nullptr &&
            std::fseek(from, kFileHeaderBytes, SEEK_SET) == 0;
  char buffer[1 << 16];
  size_t got = 0;
  while (ok && (got = std::fread(buffer, 1, sizeof(buffer), from)) > 0)
    ok = std::fwrite(buffer, 1, got, to) == got;
  if (from != nullptr) std::fclose(from);
  if (to != nullptr && std::fclose(to) != 0) ok = false;
  if (!ok || std::rename(older.c_str(), path_.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat(
        path_, ": cannot join the kept capture: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

void CappedPcapDump::Close() {
  if (dumper_ != nullptr) {
    pcap_dump_close(dumper_);  // Flushes.
    dumper_ = nullptr;
  }
  if (older_exists_) {
    older_exists_ = false;
    absl::Status joined = JoinHalves();
    if (!joined.ok()) error_ = std::string(joined.message());
  }
}

}  // namespace ccreplay
