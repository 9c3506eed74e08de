// The QUIC transfer (--transfer ngtcp2): Debian's ngtcp2 examples, an
// HTTP/3 download per flow. The server (gtlsserver, the data sender) runs in
// the sender namespace with the flow's controller and UDP payload size and
// writes its qlog into the bundle; the client (gtlsclient) downloads a
// generated body of download_bytes from the receiver namespace and exits
// when the stream closes. The key pair is a throwaway self-signed one made
// with openssl(1) in a scratch directory that is removed at exit.
#ifndef CCREPLAY_LAB_NGTCP2_TRANSFER_H_
#define CCREPLAY_LAB_NGTCP2_TRANSFER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lab/transfer_plan.h"

namespace ccreplay::lab {

// The programs of Debian's ngtcp2-server and ngtcp2-client packages
// (0.12.1), and the tool that makes the key pair.
inline constexpr char kNgtcp2Server[] = "gtlsserver";
inline constexpr char kNgtcp2Client[] = "gtlsclient";
inline constexpr char kOpenssl[] = "openssl";

struct Ngtcp2FlowResult {
  // The server's qlog, relative to the bundle ("server-qlog/flow0.sqlog").
  std::string server_qlog;
  int64_t download_bytes = 0;
};

// The size each flow downloads: what the bottleneck carries in the run's
// duration, shared by the flows, so a fair run lasts about that long.
int64_t Ngtcp2DownloadBytes(const TransferPlan& plan,
                            int64_t bottleneck_rate_bits_per_s);

// Runs the flows (servers on plan.flows[i].sender_port); `run_id` names
// the scratch directory for its owner (lab/lab_owner.h).
absl::StatusOr<std::vector<Ngtcp2FlowResult>> RunNgtcp2Transfer(
    const TransferPlan& plan, int64_t download_bytes, absl::string_view run_id,
    absl::string_view bundle_dir);

}  // namespace ccreplay::lab

#endif  // CCREPLAY_LAB_NGTCP2_TRANSFER_H_
