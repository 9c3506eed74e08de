#include "reports/diagnose_session.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <memory>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cc/registry.h"
#include "parsers/bundle.h"
#include "parsers/host_state_reader.h"
#include "parsers/input_kind.h"
#include "replay/ack_timeline.h"
#include "replay/conformance/conformance_input.h"
#include "replay/quic_timeline.h"
#include "replay/replay_session.h"
#include "replay/sender_config_fit.h"
#include "replay/stack_profile.h"
#include "reports/ca_growth.h"
#include "reports/controller_choice.h"
#include "reports/replay_summary.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// The controller an ss log names for the flow's sender socket.
std::string HostStateControllerName(const std::string& path,
                                    const FlowSummary& flow) {
  absl::StatusOr<HostStateLog> log = ReadHostState(path);
  if (!log.ok()) return "";
  for (const HostTrace& trace : log->traces) {
    if (trace.local_endpoint == flow.sender &&
        trace.remote_endpoint == flow.receiver) {
      return trace.congestion_control;
    }
  }
  return "";
}

// The specs of `choice`, in its order, as ReplayOptions::specs.
ReplayOptions WithSpecs(const ControllerChoice& choice, ReplayOptions options) {
  for (const ReplayChoice& c : choice.controllers)
    options.specs.push_back(c.spec);
  return options;
}

// The line saying why `fit`'s spec was not used: its replay is worse
// than the given spec's on the median or the 95th percentile.
std::string KeptGivenLine(const SenderConfigFit& fit) {
  const auto pct = [](const std::optional<double>& v) {
    return v.has_value() ? absl::StrFormat("%.1f%%", *v) : std::string("n/a");
  };
  return absl::StrCat(
      "kept ", fit.given_spec, " as given: the fitted ", fit.replayed_spec,
      " replays worse (median ", pct(fit.median_abs_err_pct), ", p95 ",
      pct(fit.p95_abs_err_pct), " against ", pct(fit.given_median_abs_err_pct),
      ", ", pct(fit.given_p95_abs_err_pct), ")");
}

// Replays the flow through `chosen`, its claimed specs with the sender's
// configuration fitted (replay/sender_config_fit.h: limited=flight and the
// fitted pacing, HZ, GSO size) into `choice` and `fit`, each only where its
// replay is no worse than the given spec's on both the median and the
// 95th percentile. Counterfactuals keep their specs, limited=capture: they
// ask what another controller would have done, and the real flight is
// capped by the real controller's window, so it must not cap theirs. The
// method lines saying so go to `lines`.
absl::StatusOr<ReplayResult> FitAndReplay(
    const TcpCaptureScan& scan, const ReplayOptions& replay,
    const std::optional<proto::BundleSender>& bundle_sender,
    const ControllerChoice& chosen, ControllerChoice& choice,
    std::vector<std::string>& lines) {
  choice = chosen;
  std::vector<std::string> claimed;
  for (const ReplayChoice& c : choice.controllers)
    if (c.role == ReplayRole::kClaimed) claimed.push_back(c.spec);
  absl::StatusOr<SenderConfigReport> fit =
      FitTcpSender(scan, replay, claimed, bundle_sender);
  if (!fit.ok()) return fit.status();
  lines = DescribeSenderConfig(*fit);
  bool fitted = false;
  size_t i = 0;
  for (ReplayChoice& c : choice.controllers) {
    if (c.role != ReplayRole::kClaimed) continue;
    const SenderConfigFit& f = fit->fits[i++];
    if (!f.NoWorseThanGiven()) {
      lines.push_back(KeptGivenLine(f));
      continue;
    }
    fitted |= f.replayed_spec != f.given_spec;
    for (ReplayChoice& other : choice.controllers)
      if (other.base_spec == c.spec) other.base_spec = f.replayed_spec;
    c.spec = f.replayed_spec;
  }
  if (fitted) {
    lines.push_back(
        "claimed controllers replayed with limited=flight and the fitted "
        "values; counterfactuals with limited=capture, so that the real "
        "flight, capped by the real window, does not cap theirs");
  }
  return ReplayTcpFlow(scan, WithSpecs(choice, replay));
}

// The controllers to replay for `flow`: the stack's (an ss log's name for
// the sender socket wins over `stack_name`), or `specs` when given.
ControllerChoice ChooseFor(const FlowSummary& flow, std::string stack_name,
                           const std::string& host_state,
                           const std::vector<std::string>& specs) {
  if (!host_state.empty()) {
    const std::string named = HostStateControllerName(host_state, flow);
    if (!named.empty()) stack_name = named;
  }
  ControllerChoiceFacts facts;
  facts.stack_name = stack_name;
  facts.ecn = flow.ecn_mode;
  facts.ect0_packets = flow.ect0_packets;
  facts.ect1_packets = flow.ect1_packets;
  facts.packet_bytes = flow.max_payload_bytes;
  return ChooseControllers(facts, specs);
}

// Everything Diagnose() needs that outlives this function's locals.
struct Pieces {
  std::shared_ptr<FlowObserver> observer;
  // Made at the flow's first event, with its flow_index.
  std::optional<SbdSeriesBuilder> sbd;
  std::unique_ptr<TcpCaptureScan> scan;
  DiagnosisInput input;
  ReplayResult replay;
  ReplayEvidence evidence;
  ConformanceTraceBuilder conformance_trace;
  ConformanceResult conformance;
  DiagnoseRun run;
};

// The flow's timeline to the observer and the shared-bottleneck series of
// `p` (made by then).
TimelineSink ObserverTap(Pieces* p) {
  return [p](const TimelineEvent& e) {
    p->observer->Add(e);
    if (!p->sbd.has_value()) p->sbd.emplace(e.flow_index);
    p->sbd->Add(e);
  };
}

// The flow's observer, its time zero `start_ns` on the input's clock (Unix
// time at `epoch_ns`, when known), and the run's note of both.
void StartObserving(int64_t start_ns, FlowObserver::Counting counting,
                    std::optional<int64_t> epoch_ns, const std::string& clock,
                    Pieces* p) {
  p->observer = std::make_shared<FlowObserver>(start_ns, counting);
  p->run.start_ns = start_ns;
  p->run.clock_epoch_ns = epoch_ns;
  p->run.clock = clock;
}

// Feeds the replay's pass to the conformance trace of `p`.
void TapConformance(Pieces* p, ReplayOptions* replay) {
  p->conformance_trace = ConformanceTraceBuilder();
  ConformanceTraceBuilder* trace = &p->conformance_trace;
  replay->captured_tap = [trace](const TimelineEvent& e,
                                 const CapturedAtEvent& captured) {
    trace->OnEvent(e, captured);
  };
}

// Checks the trace against the rules of the first claimed controller's
// family once the replay is done: CUBIC's for a cubic spec or a stack's
// CUBIC profile (`ngtcp2:cubic`, `quicly:cubic`), DCTCP's for `dctcp`,
// else Reno's; a stack
// profile (`ngtcp2:`) also names the stack whose documented deviations
// apply, when `stack` does not.
void CheckClaimedConformance(ConformanceTransport transport,
                             const std::string& stack, Pieces* p) {
  ConformanceProfile profile;
  profile.transport = transport;
  profile.stack = stack;
  for (const ReplayChoice& c : p->evidence.choices) {
    if (c.role != ReplayRole::kClaimed) continue;
    const absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(c.spec);
    if (!spec.ok()) break;
    // Families the rules are written for: Reno's and CUBIC's (RFC 5681,
    // RFC 9002, RFC 9438) and DCTCP's (RFC 8257). BBR, TCP Prague and
    // quicly's Pico follow no RFC's window rules: not checked, rather than
    // judged by Reno's.
    static const absl::flat_hash_set<std::string> kRenoLike = {
        "reno", "rfc9002", "ngtcp2", "cubic", "dctcp"};
    const bool quicly_rfc =
        spec->family == "quicly" &&
        (spec->variant == "reno" || absl::StartsWith(spec->variant, "cubic"));
    if (!kRenoLike.contains(spec->family) && !quicly_rfc) {
      p->input.conformance_not_checked =
          absl::StrCat(c.spec, " follows no RFC's congestion-window rules");
      return;
    }
    if (spec->family == "cubic" || absl::StartsWith(spec->variant, "cubic")) {
      profile.family = ConformanceFamily::kCubic;
    }
    if (spec->family == "dctcp") profile.family = ConformanceFamily::kDctcp;
    if (profile.stack.empty() && spec->family == "ngtcp2") {
      profile.stack = "ngtcp2";
    }
    break;
  }
  const std::vector<ConformanceAck> acks = p->conformance_trace.Finish();
  // ss samples are snapshots many ACKs apart: per-ACK rules need a cwnd
  // logged per ACK (tcp_probe, qlog); `ccreplay check` still runs them.
  const CapturedSource source = p->replay.source;
  if (source != CapturedSource::kTcpProbe && source != CapturedSource::kQlog) {
    return;
  }
  p->conformance =
      CheckConformance(acks, profile, p->replay.first_captured_cwnd_bytes);
  p->input.conformance = &p->conformance;
}

// Two passes over the capture: its flow table (ScanTcpCapture) to choose
// the flow, its sender and the controllers; then the flow's timeline
// once, which the replay drives the controllers with and taps for the
// FlowObserver.
absl::Status DiagnoseTcp(const DiagnoseOptions& options, Pieces* p) {
  absl::StatusOr<TcpInput> tcp_input =
      ResolveTcpInput(options.input, options.host_state_path);
  if (!tcp_input.ok()) return tcp_input.status();
  const std::string& capture = tcp_input->capture;
  const std::string& host_state = tcp_input->host_state;
  absl::StatusOr<TcpCaptureScan> scan =
      ScanTcpCapture(capture, options.flow, options.capture);
  if (!scan.ok()) return scan.status();
  p->scan = std::make_unique<TcpCaptureScan>(*std::move(scan));
  const TcpCaptureScan& s = *p->scan;
  const Flow& flow = s.table.flows()[s.selected.index];
  StartObserving(flow.first_ns, FlowObserver::Counting::kSequence, 0,
                 "capture time (Unix)", p);
  p->run.warnings = tcp_input->warnings;
  absl::c_copy(s.info.warnings, std::back_inserter(p->run.warnings));
  p->run.truncated = s.info.truncated;
  DiagnosisInput& in = p->input;
  in.flow = &flow;
  in.summary = s.summary;
  if (s.info.snaplen_bytes > 0) in.snaplen_bytes = s.info.snaplen_bytes;
  in.snaplen_cut_packets = s.info.snaplen_cut_packets;

  const ControllerChoice chosen = ChooseFor(
      in.summary, ControllerOf(*tcp_input, flow), host_state, options.specs);
  in.controller_reason = chosen.reason;
  ReplayOptions replay;
  replay.host_state_path = host_state;
  replay.tap = ObserverTap(p);
  TapConformance(p, &replay);
  ControllerChoice choice;
  const std::optional<proto::BundleSender>& bundle = tcp_input->bundle_sender;
  absl::StatusOr<ReplayResult> replayed =
      FitAndReplay(s, replay, bundle, chosen, choice, in.sender_config);
  if (!replayed.ok() && !host_state.empty() &&
      absl::IsFailedPrecondition(replayed.status())) {
    // The log has no trace of this flow (found before the capture is read
    // again): compare with the flight size.
    p->run.warnings.push_back(
        absl::StrCat(replayed.status().message(),
                     "; comparing with the flight size instead"));
    replay.host_state_path.clear();
    TapConformance(p, &replay);
    replayed =
        FitAndReplay(s, replay, bundle, chosen, choice, in.sender_config);
  }
  if (!replayed.ok()) return replayed.status();
  p->replay = *std::move(replayed);
  p->run.truncated |= p->replay.truncated;  // A cut host-state log too.
  in.stats = p->replay.timeline;
  p->evidence.choices = choice.controllers;
  p->evidence.controller_named = choice.named;
  p->evidence.replay = &p->replay;
  p->evidence.offset_s = (flow.first_ns / 1000 - p->replay.start_us) * 1e-6;
  CheckClaimedConformance(ConformanceTransport::kTcp,
                          bundle.has_value() ? "linux" : "", p);
  return absl::OkStatus();
}

// A QUIC trace's row in the terms of a TCP flow's: every packet sent
// counts as a data packet.
FlowSummary QuicFlowSummary(const HostTrace& trace, size_t index,
                            const QuicTimelineStats& stats, double duration_s) {
  FlowSummary s;
  s.index = static_cast<uint32_t>(index);
  s.sender = absl::StrCat(trace.name.empty() ? "QUIC" : trace.name, " (",
                          TraceVantageName(trace.vantage), ")");
  s.receiver = "peer";
  s.packets_data_dir = trace.quic_events.packets_sent.size();
  s.payload_packets_data_dir = s.packets_data_dir;
  s.data_bytes = stats.bytes_acked;
  s.max_payload_bytes = stats.max_packet_bytes;
  s.duration_s = duration_s;
  s.goodput_bps = duration_s > 0 ? stats.bytes_acked * 8 / duration_s : 0;
  s.ecn_mode = stats.ecn_counts ? EcnMode::kAccEcn : EcnMode::kNone;
  return s;
}

absl::Status DiagnoseQuic(const DiagnoseOptions& options, const QuicInput& quic,
                          Pieces* p) {
  const std::string& qlog = quic.qlog;
  absl::StatusOr<HostStateLog> log = ReadHostState(qlog);
  if (!log.ok()) return log.status();
  // The trace `ccreplay replay` picks for the same --flow.
  absl::StatusOr<size_t> selected = SelectQuicTrace(*log, options.flow, qlog);
  if (!selected.ok()) return selected.status();
  const size_t index = *selected;
  const HostTrace& trace = log->traces[index];
  const QuicEventSpan span = SpanOf(trace.quic_events);
  const int64_t start_us = span.start_us;
  const int64_t end_us = std::max<int64_t>(span.end_us, 0);
  // The qlog's own reference time, else the bundle capture's.
  std::optional<int64_t> epoch_ns = quic.clock_epoch_ns;
  std::string clock = epoch_ns.has_value() ? quic.clock : trace.clock;
  if (trace.clock_epoch_us) {
    epoch_ns = *trace.clock_epoch_us * 1000;
    clock = trace.clock;
  }
  StartObserving(start_us * 1000, FlowObserver::Counting::kBytesAcked, epoch_ns,
                 clock, p);
  const QuicTimelineStats stats = BuildQuicTimeline(trace, ObserverTap(p));
  DiagnosisInput& in = p->input;
  in.quic = true;
  in.summary = QuicFlowSummary(trace, index, stats, (end_us - start_us) * 1e-6);
  const FlowSummary& s = in.summary;
  in.stats.acks = stats.acks;
  in.stats.vantage = Vantage::kSender;
  in.stats.warnings = stats.warnings;
  in.stats.rtt_min_ms = p->observer->min_rtt_us() / 1e3;
  in.quic_congestion_events = stats.congestion_events;

  ControllerChoiceFacts facts;
  facts.stack_name = trace.congestion_control;
  if (std::optional<StackProfile> profile = DetectStackProfile(trace)) {
    facts.stack_profile_spec = profile->spec;
    facts.stack_profile_reason = profile->reason;
  }
  facts.quic = true;
  facts.ecn = s.ecn_mode;
  facts.packet_bytes = stats.max_packet_bytes;
  const ControllerChoice choice = ChooseControllers(facts, options.specs);
  in.controller_reason = choice.reason;
  ReplayOptions replay;
  TapConformance(p, &replay);
  absl::StatusOr<ReplayResult> replayed =
      ReplayQuicTrace(*log, index, qlog, WithSpecs(choice, replay));
  if (!replayed.ok()) return replayed.status();
  p->replay = *std::move(replayed);
  p->evidence.choices = choice.controllers;
  p->evidence.controller_named = choice.named;
  p->evidence.replay = &p->replay;
  p->evidence.offset_s = (start_us - p->replay.start_us) * 1e-6;
  CheckClaimedConformance(ConformanceTransport::kQuic, "", p);
  return absl::OkStatus();
}

// The flow's delivery on the capture's clock: cumulative bytes at the end
// of each observation bin, its first data and its last delivery, and the
// bin's mean RTT sample.
void AddDelivery(const FlowObserver& observed, CompetitorFacts* f) {
  const double origin_s = observed.start_ns() * 1e-9;
  const double width_s = observed.bin_width_s();
  const std::vector<ObservationBin>& bins = observed.bins();
  uint64_t delivered = 0;
  bool sent = false;
  f->delivered.reserve(bins.size() + 1);
  for (size_t i = 0; i < bins.size(); ++i) {
    if (!sent && bins[i].highest_seq_sent > 0) {
      sent = true;
      f->start_s = origin_s + i * width_s;
      f->delivered.emplace_back(f->start_s, delivered);
    }
    if (bins[i].delivered_bytes == 0) continue;
    delivered += bins[i].delivered_bytes;
    f->end_s = origin_s + (i + 1) * width_s;
    f->delivered.emplace_back(f->end_s, delivered);
  }
  for (size_t i = 0; i < bins.size(); ++i) {
    if (!bins[i].has_rtt()) continue;
    f->rtt_ms.emplace_back(
        origin_s + (i + 1) * width_s,
        bins[i].rtt_sum_us / (1e3 * static_cast<double>(bins[i].rtt_samples)));
  }
  if (!sent) {  // A qlog's timeline has no sequence numbers: its first event.
    f->start_s = origin_s;
    f->delivered.insert(f->delivered.begin(), {origin_s, 0});
  }
}

// The replayed controller, whether the captured cwnd grows normalized,
// and its congestion-avoidance growth (reports/ca_growth.h): when the
// growth tells the replays apart, the one it is nearer decides, as
// mtu_normalization_gap does; else the claimed controller's normalize=.
void AddGrowth(const ReplayEvidence& e, CompetitorFacts* f) {
  const int best = BestFittingClaimed(e);
  if (best < 0 || e.replay == nullptr) return;
  f->controller = e.choices[best].spec;
  absl::StatusOr<ControllerSpec> spec = ControllerSpec::Parse(f->controller);
  uint32_t normalize = 0;
  if (spec.ok() &&
      absl::SimpleAtoi(spec->Value("normalize").value_or(""), &normalize)) {
    f->normalize_bytes = normalize;
  }
  const ReplaySamples samples(e);
  if (samples.size() == 0) return;
  const int on = FindSpec(e, ReplayRole::kNormalizationOn, f->controller);
  double growth = 0;
  f->normalization_claimed = true;
  if (on >= 0) {
    const CaGrowth g = MeasureCaGrowth(samples, best, on);
    growth = g.captured;
    if (g.Decisive()) {
      f->normalization_claimed = false;
      f->normalize_bytes = std::nullopt;
      if (!g.NearerUnnormalized()) f->normalize_bytes = kReferenceMtuBytes;
    }
  } else {
    growth = CaGrowthBytesPerRtt(samples, best,
                                 [&](size_t i) { return samples.captured(i); });
  }
  if (growth > 0) f->ca_growth_bytes_per_rtt = growth;
}

// The bottleneck's queue the flow crossed, when `input` is a lab bundle
// whose meta.json states it.
std::optional<BundleQueue> StatedQueueOf(const std::string& input,
                                         const std::string& sender) {
  std::error_code error;
  if (input.empty() || !std::filesystem::is_directory(input, error))
    return std::nullopt;
  absl::StatusOr<proto::BundleMeta> meta = ReadBundleMeta(input);
  if (!meta.ok()) return std::nullopt;
  return BundleFlowQueue(*meta, sender);
}

// Appends `w` to `list` unless it is there already.
void AddOnce(const std::string& w, std::vector<std::string>* list) {
  if (std::find(list->begin(), list->end(), w) == list->end())
    list->push_back(w);
}

// The flow as a competitor of others on its path (reports/unfairness.h).
CompetitorFacts CompetitorOf(const Pieces& p) {
  CompetitorFacts f;
  const FlowSummary& s = p.input.summary;
  f.flow_index = s.index;
  f.label = absl::StrCat("flow ", s.index, " (", s.sender, ")");
  f.packet_bytes = s.max_payload_bytes;
  if (p.observer->min_rtt_us() > 0) {
    f.min_rtt_ms = p.observer->min_rtt_us() / 1e3;
  }
  AddDelivery(*p.observer, &f);
  AddGrowth(p.evidence, &f);
  return f;
}

}  // namespace

absl::StatusOr<DiagnoseRun> DiagnoseInput(const DiagnoseOptions& options) {
  Pieces p;
  // The input's kind comes from its content (a qlog may be named .json).
  // An ngtcp2 bundle is diagnosed from its flow's server qlog.
  QuicInput quic_input{options.qlog_path, options.flow, {}, std::nullopt, {}};
  DiagnoseOptions quic_options = options;
  if (quic_input.qlog.empty()) {
    absl::StatusOr<std::optional<QuicInput>> quic =
        ResolveQuicInput(options.input, false, options.flow);
    if (!quic.ok()) return quic.status();
    if (quic->has_value()) {
      quic_input = **std::move(quic);
      quic_options.flow = quic_input.flow;
      p.run.warnings = quic_input.warnings;
    }
  }
  const std::string& qlog = quic_input.qlog;
  const absl::Status status = qlog.empty()
                                  ? DiagnoseTcp(options, &p)
                                  : DiagnoseQuic(quic_options, quic_input, &p);
  if (!status.ok()) return status;
  p.input.input_path = qlog.empty() ? options.input : qlog;
  if (!options.host_state_path.empty())
    p.input.host_state_path = options.host_state_path;
  p.input.observed = p.observer.get();
  p.input.replay = &p.evidence;
  p.input.simulate = options.simulate;
  // Every warning of the run (the input's, the replay's) in the report's
  // "How this was computed" too, not only on stderr: a reader of the page
  // must see a cut capture or a replay that cannot follow the kernel.
  for (const std::string& w : p.replay.warnings) AddOnce(w, &p.run.warnings);
  for (const std::string& w : p.run.warnings)
    AddOnce(w, &p.input.stats.warnings);
  p.run.diagnosis = Diagnose(p.input);
  p.run.observer = p.observer;
  if (p.sbd.has_value()) p.run.sbd = p.sbd->Take();
  p.run.packet_bytes = p.input.summary.max_payload_bytes;
  *p.run.diagnosis.result.mutable_replay() =
      SummarizeReplay(p.evidence, p.input.controller_reason,
                      p.run.diagnosis.result.estimates().bdp_bytes());
  p.run.competitor = CompetitorOf(p);
  p.run.competitor.queue = StatedQueueOf(options.input, p.input.summary.sender);
  return std::move(p.run);
}

}  // namespace ccreplay
