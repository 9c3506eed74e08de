// `ccreplay replay CAPTURE|BUNDLE_DIR [--ss LOG | --probe LOG] --cc LIST`
// and `ccreplay replay --qlog FILE --cc LIST`: drive reference controllers
// with a flow's captured ACK/ECN sequence and compare with the real cwnd.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "cc/registry.h"
#include "cli/capture_flags.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "parsers/input_kind.h"
#include "replay/replay_session.h"
#include "replay/sender_config_fit.h"
#include "reports/replay_report.h"

ABSL_FLAG(bool, full, false,
          "Series with one point per ACK instead of at most 4000.");

namespace ccreplay {
namespace {

int Fail(const absl::Status& status) { return ReportFailure("replay", status); }

// The --cc list, each spec checked to name a controller before any input is
// read: a bad spec is a usage error, not a bad input. Prints the error and
// returns nullopt when one is not. Empty without --cc (a qlog's stack
// profile is replayed then).
std::optional<std::vector<std::string>> ControllerSpecs() {
  if (absl::GetFlag(FLAGS_cc).empty()) return std::vector<std::string>{};
  absl::StatusOr<std::vector<std::string>> specs =
      ParseControllerList(absl::GetFlag(FLAGS_cc));
  absl::Status status = specs.status();
  for (size_t i = 0; status.ok() && i < specs->size(); ++i) {
    status = MakeController((*specs)[i]).status();
  }
  if (!status.ok()) {
    std::fprintf(stderr, "ccreplay replay: --cc: %s\n",
                 std::string(status.message()).c_str());
    return std::nullopt;
  }
  return *std::move(specs);
}

// A qlog is known by its content, whatever its name, and an ngtcp2 bundle
// by its server qlogs (ResolveQuicInput); anything else is a
// capture or a TCP bundle directory (ResolveTcpInput), whose Linux specs are
// replayed with the sender's configuration fitted into `sender_config`, the
// capture read as `capture` says.
absl::StatusOr<ReplayResult> ReplayInput(const std::string& input,
                                         bool qlog_flag, ReplayOptions options,
                                         const CaptureReadOptions& capture,
                                         SenderConfigReport& sender_config) {
  absl::StatusOr<std::optional<QuicInput>> quic =
      ResolveQuicInput(input, qlog_flag, options.flow);
  if (!quic.ok()) return quic.status();
  if (quic->has_value()) {
    options.flow = (*quic)->flow;
    absl::StatusOr<ReplayResult> result = ReplayQuicLog((*quic)->qlog, options);
    if (result.ok()) {
      result->warnings.insert(result->warnings.begin(),
                              (*quic)->warnings.begin(),
                              (*quic)->warnings.end());
    }
    return result;
  }
  if (options.specs.empty()) {
    return absl::InvalidArgumentError(
        "--cc is required for a capture or bundle (only a qlog names its "
        "stack's profile)");
  }
  absl::StatusOr<TcpInput> tcp =
      ResolveTcpInput(input, options.host_state_path);
  if (!tcp.ok()) return tcp.status();
  options.host_state_path = tcp->host_state;
  absl::StatusOr<TcpCaptureScan> scan =
      ScanTcpCapture(tcp->capture, options.flow, capture);
  if (!scan.ok()) return scan.status();
  absl::StatusOr<SenderConfigReport> fit =
      FitTcpSender(*scan, options, options.specs, tcp->bundle_sender);
  if (!fit.ok()) return fit.status();
  sender_config = *std::move(fit);
  options.specs = sender_config.ReplayedSpecs();
  absl::StatusOr<ReplayResult> result = ReplayTcpFlow(*scan, options);
  if (result.ok()) {
    result->warnings.insert(result->warnings.begin(), tcp->warnings.begin(),
                            tcp->warnings.end());
  }
  return result;
}

}  // namespace

int RunReplay(const Args& args) {
  const std::string ss = absl::GetFlag(FLAGS_ss);
  const std::string probe = absl::GetFlag(FLAGS_probe);
  const std::string qlog = absl::GetFlag(FLAGS_qlog);
  const int sources = !ss.empty() + !probe.empty() + !qlog.empty();
  if (args.size() > 1 || (args.empty() && qlog.empty()) || sources > 1 ||
      (absl::GetFlag(FLAGS_csv) && absl::GetFlag(FLAGS_json))) {
    std::fprintf(stderr,
                 "usage: ccreplay replay CAPTURE|BUNDLE_DIR [--ss LOG | "
                 "--probe LOG | --qlog FILE] [--flow N] [--cc LIST] "
                 "[--csv|--json] [--full]  (see --help)\n");
    return kExitUsage;
  }
  std::optional<std::vector<std::string>> specs = ControllerSpecs();
  if (!specs.has_value()) return kExitUsage;
  ReplayOptions options;
  options.specs = *specs;
  options.flow = absl::GetFlag(FLAGS_flow);
  options.full_series = absl::GetFlag(FLAGS_full);
  options.host_state_path = !ss.empty() ? ss : probe;
  ProgressMeter meter = MeterFromFlags("replay");
  CaptureReadOptions capture;
  const int flags = CaptureOptionsFromFlags(
      "replay", qlog.empty() ? args[0] : "", meter, &capture);
  if (flags != kExitOk) return flags;
  SenderConfigReport sender_config;
  absl::StatusOr<ReplayResult> result =
      ReplayInput(qlog.empty() ? args[0] : qlog, !qlog.empty(), options,
                  capture, sender_config);
  meter.Finish();
  if (!result.ok()) return Fail(result.status());

  const std::string text =
      absl::GetFlag(FLAGS_json)  ? ReplayReportJson(*result, &sender_config)
      : absl::GetFlag(FLAGS_csv) ? ReplayReportCsv(*result)
                                 : ReplayReportText(*result, &sender_config);
  const std::string out_path = absl::GetFlag(FLAGS_o);
  FILE* out = out_path.empty() ? stdout : std::fopen(out_path.c_str(), "w");
  if (out == nullptr) {
    return Fail(absl::NotFoundError("cannot write " + out_path));
  }
  std::fwrite(text.data(), 1, text.size(), out);
  if (out != stdout) std::fclose(out);
  for (const std::string& warning : result->warnings) {
    std::fprintf(stderr, "ccreplay replay: warning: %s\n", warning.c_str());
  }
  return result->truncated ? kExitPartial : kExitOk;
}

}  // namespace ccreplay
