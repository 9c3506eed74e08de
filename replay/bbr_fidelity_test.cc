// bbr:linux against Linux 6.18's own BBR on the lab bundle
// bbr_20mbit_20ms_pfifo50 (testdata/SOURCES.md): the model's bandwidth
// estimate, min RTT and mode at each `ss` sample of the data socket, compared
// with ss's bbr:(bw,mrtt,pacing_gain,cwnd_gain); and its cwnd at each ACK
// against tcp_probe. Issue 20's targets: bw within 5 % and min RTT within
// 2 % at >= 90 % of samples, mode equal at >= 95 %, cwnd median error
// <= 2 % and p95 <= 10 %. The bounds below are what the model reaches, plus
// a little.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cc/linux_bbr.h"
#include "gtest/gtest.h"
#include "parsers/ss_log.h"
#include "replay/replay_engine.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

const std::string kBundle =
    std::string(CCREPLAY_TESTDATA_DIR) + "/lab/bbr_20mbit_20ms_pfifo50";
constexpr char kSender[] = "10.78.176.1:32410";  // meta.json flows[0].sender
// The kernel drew PROBE_BW's first phase at random; the ss log shows the
// 1.25 phase right after DRAIN, phase 0.
constexpr char kSpec[] = "bbr:linux,phase=0";

// The model's state after one ACK.
struct ModelPoint {
  int64_t time_us = 0;
  double bw_bps = 0;
  std::optional<uint32_t> min_rtt_us;
  BbrMode mode = BbrMode::kStartup;
};

// ss's bbr:(...) values at one sample.
struct KernelPoint {
  int64_t time_us = 0;
  double bw_bps = 0;
  double min_rtt_us = 0;
  double pacing_gain = 0;
  double cwnd_gain = 0;
};

// tcp_bbr.c's gains per mode, as ss prints them (/256): STARTUP 739,
// DRAIN 88 (cwnd 739), PROBE_RTT 256/256, PROBE_BW cwnd gain 512.
BbrMode ModeOf(const KernelPoint& k) {
  if (k.pacing_gain > 2.8) return BbrMode::kStartup;
  if (k.pacing_gain < 0.5) return BbrMode::kDrain;
  if (k.cwnd_gain < 1.5) return BbrMode::kProbeRtt;
  return BbrMode::kProbeBw;
}

std::vector<KernelPoint> KernelPoints() {
  absl::StatusOr<HostStateLog> log = ParseSsLog(kBundle + "/ss.log.gz");
  EXPECT_TRUE(log.ok()) << log.status();
  std::vector<KernelPoint> points;
  if (!log.ok()) return points;
  for (const HostTrace& t : log->traces) {
    if (t.local_endpoint != kSender) continue;
    const CapturedSeries& s = t.series;
    // Samples with gains: the ss block before the first RTT has none.
    for (size_t i = 0; i < s.bbr_pacing_gain.size(); ++i) {
      const int64_t time_us = s.bbr_pacing_gain[i].time_us;
      auto at = [&](const Series& series) {
        auto it = std::find_if(
            series.begin(), series.end(),
            [&](const SeriesPoint& p) { return p.time_us == time_us; });
        return it == series.end() ? 0.0 : it->value;
      };
      points.push_back({time_us, at(s.bbr_bw_bps), at(s.bbr_min_rtt_us),
                        s.bbr_pacing_gain[i].value, at(s.bbr_cwnd_gain)});
    }
  }
  return points;
}

struct Replayed {
  std::vector<ModelPoint> model;
  DivergenceSummary cwnd;
  // The same replay starting PROBE_BW in phase 2 instead (a wrong guess of
  // the kernel's random draw).
  DivergenceSummary cwnd_phase2;
};

Replayed ReplayBundle() {
  LinuxBbrOptions bbr_options;
  bbr_options.start_phase = 0;
  std::vector<std::unique_ptr<CongestionController>> controllers;
  controllers.push_back(std::make_unique<LinuxBbr>(bbr_options));
  ReplayEngine engine({kSpec}, std::move(controllers),
                      ReplayFlowFacts{EcnMode::kNone, 1448});
  const auto& bbr = static_cast<const LinuxBbr&>(engine.controller(0));
  Replayed out;
  ReplayOptions options;
  options.specs = {kSpec, "bbr:linux,phase=2"};
  options.host_state_path = kBundle + "/tcp_probe.txt.gz";
  options.tap = [&](const TimelineEvent& event) {
    engine.OnEvent(event);
    if (event.type != TimelineEvent::Type::kAck) return;
    out.model.push_back(
        {event.time_ns / 1000, bbr.bw_bps(), bbr.min_rtt_us(), bbr.mode()});
  };
  absl::StatusOr<ReplayResult> r =
      ReplayTcpCapture(kBundle + "/sender.pcap.gz", options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return out;
  EXPECT_EQ(r->sender, kSender);
  EXPECT_EQ(r->source, CapturedSource::kTcpProbe);
  EXPECT_EQ(r->controllers.size(), 2u);
  if (r->controllers.size() < 2) return out;
  out.cwnd = r->controllers[0].divergence;
  out.cwnd_phase2 = r->controllers[1].divergence;
  return out;
}

// The model's state at `time_us`: after the last ACK at or before it.
const ModelPoint* StateAt(const std::vector<ModelPoint>& model,
                          int64_t time_us) {
  auto it = std::upper_bound(
      model.begin(), model.end(), time_us,
      [](int64_t t, const ModelPoint& p) { return t < p.time_us; });
  return it == model.begin() ? nullptr : &*(it - 1);
}

double RelativeError(double model, double kernel) {
  return std::abs(model - kernel) / kernel;
}

TEST(BbrFidelityTest, ModelFollowsTheKernelsBbr) {
  const std::vector<KernelPoint> kernel = KernelPoints();
  // `zcat ss.log.gz`: 285 bbr:(...) blocks with gains under the data socket.
  ASSERT_EQ(kernel.size(), 285u);
  const Replayed replayed = ReplayBundle();
  ASSERT_FALSE(replayed.model.empty());

  int compared = 0, bw_within = 0, bw_close = 0, rtt_within = 0, mode_equal = 0;
  for (const KernelPoint& k : kernel) {
    const ModelPoint* m = StateAt(replayed.model, k.time_us);
    if (m == nullptr || k.bw_bps <= 0 || !m->min_rtt_us.has_value()) continue;
    ++compared;
    if (RelativeError(m->bw_bps, k.bw_bps) <= 0.05) ++bw_within;
    if (RelativeError(m->bw_bps, k.bw_bps) <= 0.01) ++bw_close;
    if (RelativeError(*m->min_rtt_us, k.min_rtt_us) <= 0.001) ++rtt_within;
    if (m->mode == ModeOf(k)) ++mode_equal;
  }
  // Measured (282 samples): bw within 5 % at 278 (98.6 %), within 1 % at
  // 276 (97.9 %; the misses are STARTUP's first 100 ms, where one ACK's
  // timing moves a doubling bw); min RTT within 0.1 % at all (the capture's
  // RTT is 13 us below the kernel's: 20043 vs 20056 us); mode equal at all.
  // cwnd against tcp_probe: median 0.03 %, p95 1.70 %.
  EXPECT_EQ(compared, 282);
  EXPECT_GE(bw_within, 278);
  EXPECT_GE(bw_close, 276);
  EXPECT_EQ(rtt_within, compared);
  EXPECT_EQ(mode_equal, compared);
  // `zcat tcp_probe.txt.gz | grep -c 'tcp_probe:.*src=10.78.176.1:32410 '`
  EXPECT_EQ(replayed.cwnd.samples, 2874u);
  ASSERT_TRUE(replayed.cwnd.median_abs_err_pct.has_value());
  EXPECT_LE(*replayed.cwnd.median_abs_err_pct, 0.1);
  EXPECT_LE(*replayed.cwnd.p95_abs_err_pct, 1.8);
  // Measured with phase=2: p95 2.58 %: the 1.25 phase's extra 2 packets
  // (bbr_quantization_budget()) come at the wrong times.
  ASSERT_TRUE(replayed.cwnd_phase2.p95_abs_err_pct.has_value());
  EXPECT_GT(*replayed.cwnd_phase2.p95_abs_err_pct, 2.4);
}

}  // namespace
}  // namespace ccreplay
