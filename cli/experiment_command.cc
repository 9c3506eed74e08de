// `ccreplay experiment NAME`: the two reference experiments of the
// simulator (replay/sim/mtu_experiment.h, replay/sim/prague_experiment.h).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/exit_codes.h"
#include "replay/sim/mtu_experiment.h"
#include "replay/sim/path_profile.h"
#include "replay/sim/prague_experiment.h"
#include "reports/json_writer.h"

ABSL_DECLARE_FLAG(std::string, profile);  // cli/simulate_command.cc

ABSL_FLAG(std::vector<std::string>, controllers,
          std::vector<std::string>({"reno", "cubic"}),
          "experiment mtu-normalization: the controllers compared.");
ABSL_FLAG(int, start_offsets, 10,
          "experiment mtu-normalization: start offsets per flow order (runs "
          "per profile and setting = 2 x this).");
ABSL_FLAG(double, max_sim_s, 3600,
          "experiment mtu-normalization: cap on simulated seconds per run.");
ABSL_FLAG(int, transition_rounds, -1,
          "experiment prague-rtt-scaling: override every version's "
          "transition (rounds before RTT scaling starts); -1 keeps each "
          "version's own.");
ABSL_FLAG(int, threads, 0, "experiment: worker threads (0: one per core).");

namespace ccreplay {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int ReportError(const absl::Status& status) {
  std::fprintf(stderr, "ccreplay experiment: %s\n",
               std::string(status.message()).c_str());
  return status.code() == absl::StatusCode::kInvalidArgument ||
                 status.code() == absl::StatusCode::kNotFound
             ? kExitUsage
             : ExitCodeForStatus(status);
}

std::string MtuJson(const MtuExperimentResult& result) {
  JsonWriter json;
  json.BeginObject().Key("rows").BeginArray();
  for (const MtuControllerResult& row : result.rows) {
    json.BeginObject()
        .Field("controller", row.controller)
        .Field("ratio_without", row.ratio_without)
        .Field("gsd_without", row.gsd_without)
        .Field("ratio_with", row.ratio_with)
        .Field("gsd_with", row.gsd_with)
        .Key("profiles")
        .BeginArray();
    for (const MtuProfileResult& p : row.profiles) {
      json.BeginObject()
          .Field("name", p.name)
          .Field("ratio_without", p.ratio_without)
          .Field("ratio_with", p.ratio_with)
          .EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  return json.str() + "\n";
}

std::string MtuTable(const MtuExperimentResult& result) {
  std::string out;
  for (const MtuControllerResult& row : result.rows) {
    absl::StrAppendFormat(
        &out,
        "%s: T1280/T1462 without normalization %.4f (GSD %.4f), with %.4f "
        "(GSD %.4f)\n  %-15s %9s %9s %8s %7s %12s\n",
        row.controller, row.ratio_without, row.gsd_without, row.ratio_with,
        row.gsd_with, "profile", "without", "with", "periods", "capped",
        "simulated s");
    for (const MtuProfileResult& p : row.profiles) {
      absl::StrAppendFormat(
          &out, "  %-15s %9.4f %9.4f %8d %7d %12.0f\n", p.name, p.ratio_without,
          p.ratio_with, p.min_measured_periods, p.capped_runs, p.simulated_s);
    }
  }
  return out;
}

std::string PragueJson(const PragueExperimentResult& result) {
  JsonWriter json;
  json.BeginObject().Key("rows").BeginArray();
  for (const PragueRow& row : result.rows) {
    json.BeginObject()
        .Field("profile", row.profile)
        .Field("rtt_scaling", row.rtt_scaling)
        .Field("ack_every", row.ack_every)
        .Field("utilization", row.utilization)
        .Field("utilization_second_half", row.utilization_second_half)
        .Field("min_cwnd_after_ss_segments", row.min_cwnd_after_ss_segments)
        .EndObject();
  }
  json.EndArray().EndObject();
  return json.str() + "\n";
}

std::string PragueTable(const PragueExperimentResult& result) {
  std::string out = absl::StrFormat(
      "%-28s %-11s %9s %11s %11s %14s\n", "profile", "rtt_scaling", "ack_every",
      "utilization", "second half", "min cwnd (seg)");
  for (const PragueRow& row : result.rows) {
    absl::StrAppendFormat(
        &out, "%-28s %-11s %9d %11.4f %11.4f %14d\n", row.profile,
        row.rtt_scaling ? "on" : "off", row.ack_every, row.utilization,
        row.utilization_second_half, row.min_cwnd_after_ss_segments);
  }
  return out;
}

int RunMtu() {
  MtuExperimentOptions options;
  options.controllers = absl::GetFlag(FLAGS_controllers);
  options.start_offsets = absl::GetFlag(FLAGS_start_offsets);
  options.max_simulated_s = absl::GetFlag(FLAGS_max_sim_s);
  options.threads = absl::GetFlag(FLAGS_threads);
  if (!absl::GetFlag(FLAGS_profile).empty()) {
    options.profiles.clear();
    for (absl::string_view name :
         absl::StrSplit(absl::GetFlag(FLAGS_profile), ',')) {
      absl::StatusOr<PathProfile> profile = FindPathProfile(name);
      if (!profile.ok()) return ReportError(profile.status());
      options.profiles.push_back(*profile);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<MtuExperimentResult> result = RunMtuExperiment(options);
  if (!result.ok()) return ReportError(result.status());
  const double wall_s = SecondsSince(start);
  std::fprintf(
      stderr,
      "ccreplay experiment: %d runs, %llu packets in %.1f s of wall "
      "time (%.2f M packets/s)\n",
      result->runs, static_cast<unsigned long long>(result->packets_simulated),
      wall_s, static_cast<double>(result->packets_simulated) / wall_s / 1e6);
  const std::string out =
      absl::GetFlag(FLAGS_json) ? MtuJson(*result) : MtuTable(*result);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

int RunPrague() {
  PragueExperimentOptions options;
  options.threads = absl::GetFlag(FLAGS_threads);
  options.transition_rounds = absl::GetFlag(FLAGS_transition_rounds);
  if (absl::GetFlag(FLAGS_duration) > 0) {
    options.duration_ns =
        static_cast<int64_t>(absl::GetFlag(FLAGS_duration) * 1e9);
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<PragueExperimentResult> result = RunPragueExperiment(options);
  if (!result.ok()) return ReportError(result.status());
  const double wall_s = SecondsSince(start);
  std::fprintf(stderr,
               "ccreplay experiment: %zu runs, %llu packets in %.1f s of wall "
               "time (%.2f M packets/s)\n",
               result->rows.size(),
               static_cast<unsigned long long>(result->packets_simulated),
               wall_s,
               static_cast<double>(result->packets_simulated) / wall_s / 1e6);
  const std::string out =
      absl::GetFlag(FLAGS_json) ? PragueJson(*result) : PragueTable(*result);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

int RunExperiment(const Args& args) {
  if (args.size() == 1 && args[0] == "mtu-normalization") return RunMtu();
  if (args.size() == 1 && args[0] == "prague-rtt-scaling") return RunPrague();
  std::fprintf(stderr,
               "usage: ccreplay experiment mtu-normalization|"
               "prague-rtt-scaling [--json]  (see --help)\n");
  return kExitUsage;
}

}  // namespace ccreplay
