// Issue 17 item 3: the bundles of `ccreplay lab --transfer ngtcp2` in
// testdata/lab (testdata/SOURCES.md), read as QUIC inputs: replayed through
// ngtcp2's own profile against the server qlog's congestion_window, and the
// qlog's cwnd checked against the stack's own bytes in flight and against
// the sender capture.
#include <pcap/pcap.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parsers/bundle.h"
#include "parsers/host_state_reader.h"
#include "parsers/input_file.h"
#include "proto/testing/test_data.h"
#include "replay/replay_session.h"

namespace ccreplay {
namespace {

const DivergenceSummary* Of(const ReplayResult& r, const std::string& spec) {
  for (const ReplayedController& c : r.controllers) {
    if (c.spec == spec) return &c.divergence;
  }
  return nullptr;
}

struct BundleCase {
  const char* dir;
  const char* profile;
  // `zcat server-qlog/flow0.sqlog.gz | grep -c recovery:metrics_updated`.
  uint32_t samples;
};

// The issue's bounds: median <= 1 %, p95 <= 5 %. Measured (ccreplay
// replay DIR --json): reno 1280 0.025 % / 0.075 %, cubic 1280 0.025 % /
// 1.075 %, cubic 1452 without loss 0.025 % / 0.025 %.
constexpr BundleCase kWithinBounds[] = {
    {"lab/ngtcp2_reno_1280_20mbit_20ms_pfifo20", "ngtcp2:reno,mss=1280", 15166},
    {"lab/ngtcp2_cubic_1280_20mbit_20ms_pfifo20", "ngtcp2:cubic,mss=1280",
     14764},
    {"lab/ngtcp2_cubic_1452_20mbit_40ms_pfifo2000", "ngtcp2:cubic", 13269},
};

// The 40 ms runs with loss: reno 1452 0.075 % / 0.575 %, cubic 1452
// 0.075 % / 0.325 %. They missed p95 (reno 0.875 % / 8.075 %, cubic
// 1.275 % / 11.475 %, all in slow start) while the delivery-rate sampler
// counted only the application space: no packet recorded a delivered
// above 0 until 122 ms, so ngtcp2's growth cap (2.89 x max(initial window,
// rate x min_rtt)) stayed at 2.89 x 14520 and held the model at 42108
// bytes from 134 ms while ngtcp2 grew on. ngtcp2 samples all three spaces
// with one conn->rst; the test of that:
// QuicTimelineTest.HandshakePacketsCountInTheDeliveryRate.
constexpr BundleCase kFortyMsWithLoss[] = {
    {"lab/ngtcp2_reno_1452_20mbit_40ms_pfifo20", "ngtcp2:reno", 13384},
    {"lab/ngtcp2_cubic_1452_20mbit_40ms_pfifo20", "ngtcp2:cubic", 13359},
};

void ExpectReplayWithinIssueBounds(const BundleCase& c) {
  SCOPED_TRACE(c.dir);
  // The bundle directory itself is the input, as `ccreplay replay DIR`.
  absl::StatusOr<std::optional<QuicInput>> input =
      ResolveQuicInput(TestDataPath(c.dir), false, "");
  ASSERT_TRUE(input.ok()) << input.status();
  ASSERT_TRUE(input->has_value());
  EXPECT_THAT((*input)->qlog,
              ::testing::EndsWith("server-qlog/flow0.sqlog.gz"));
  absl::StatusOr<ReplayResult> r =
      ReplayQuicLog((*input)->qlog, ReplayOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->source, CapturedSource::kQlog);
  const DivergenceSummary* d = Of(*r, c.profile);
  ASSERT_NE(d, nullptr) << r->controller_profile;
  EXPECT_EQ(d->samples, c.samples);
  EXPECT_LE(*d->median_abs_err_pct, 1.0);
  EXPECT_LE(*d->p95_abs_err_pct, 5.0);
}

TEST(Ngtcp2LabBundleTest, ReplayThroughTheStackProfileWithinOnePercent) {
  for (const BundleCase& c : kWithinBounds) ExpectReplayWithinIssueBounds(c);
}

TEST(Ngtcp2LabBundleTest, FortyMsRunsWithLossWithinOnePercent) {
  for (const BundleCase& c : kFortyMsWithLoss) ExpectReplayWithinIssueBounds(c);
}

// The server's UDP payloads in the sender capture (Ethernet, IPv4, UDP from
// `server_port`): time in µs and bytes.
struct Datagram {
  int64_t time_us;
  int64_t bytes;
};
std::vector<Datagram> ServerDatagrams(const std::string& pcap_path,
                                      int server_port) {
  std::vector<Datagram> out;
  absl::StatusOr<std::unique_ptr<InputFile>> file = InputFile::Open(pcap_path);
  if (!file.ok()) {
    ADD_FAILURE() << file.status();
    return out;
  }
  char error[PCAP_ERRBUF_SIZE];
  pcap_t* pcap = pcap_fopen_offline((*file)->OpenStdio(), error);
  if (pcap == nullptr) {
    ADD_FAILURE() << error;
    return out;
  }
  pcap_pkthdr* header;
  const u_char* data;
  while (pcap_next_ex(pcap, &header, &data) == 1) {
    if (header->caplen < 42 || data[12] != 0x08 || data[13] != 0x00) continue;
    const size_t ip_bytes = (data[14] & 0x0f) * 4;
    const u_char* udp = data + 14 + ip_bytes;
    if (data[23] != 17 || 14 + ip_bytes + 8 > header->caplen) continue;
    if (((udp[0] << 8) | udp[1]) != server_port) continue;
    // Datagrams of at most 64 bytes are the server's ACK-only packets,
    // which are not in flight (RFC 9002 section 2): in the five bundles'
    // qlogs 535 of the 547 packet_sent with raw.length <= 64 carry only
    // ack/padding/connection_close frames.
    if (((udp[4] << 8) | udp[5]) - 8 <= 64) continue;
    out.push_back({header->ts.tv_sec * 1'000'000LL + header->ts.tv_usec,
                   ((udp[4] << 8) | udp[5]) - 8});
  }
  pcap_close(pcap);
  return out;
}

// Part (2) of the test below: for each datagram, the bytes sent in the
// span D before it (itself included) against the largest cwnd logged from
// 2 ms before the span to 2 ms after it, plus one datagram (a send is
// allowed while the flight is below cwnd, so it may end above it by less
// than one datagram). Returns the largest ratio of bytes to cwnd.
double ExpectWindowsFitCwnd(const std::vector<Datagram>& sent,
                            const Series& cwnd, double delay_us,
                            int64_t max_datagram_bytes) {
  constexpr int64_t kAlignUs = 2000;
  if (sent.empty() || cwnd.empty()) {
    ADD_FAILURE() << "no datagrams or no cwnd";
    return 0;
  }
  const int64_t origin_us = sent.front().time_us;
  int64_t span_bytes = 0;
  size_t first = 0, lo = 0;
  double worst = 0;
  for (const Datagram& d : sent) {
    span_bytes += d.bytes;
    while (d.time_us - sent[first].time_us >= delay_us)
      span_bytes -= sent[first++].bytes;
    const int64_t end_us = d.time_us - origin_us + kAlignUs;
    const int64_t start_us = sent[first].time_us - origin_us - kAlignUs;
    while (lo + 1 < cwnd.size() && cwnd[lo + 1].time_us <= start_us) ++lo;
    double largest = 0;
    for (size_t k = lo; k < cwnd.size() && cwnd[k].time_us <= end_us; ++k)
      largest = std::max(largest, cwnd[k].value);
    EXPECT_LE(span_bytes, largest + max_datagram_bytes)
        << "datagram at +" << d.time_us - origin_us << " us";
    if (largest > 0) worst = std::max(worst, span_bytes / largest);
  }
  return worst;
}

// Bytes in flight never above cwnd, two ways. (1) The stack's own view: no
// send while the logged bytes_in_flight was at or above the
// congestion_window.
// (2) The capture: datagrams the server sent within one propagation delay
// D of each other are all in flight together (none can be acknowledged or
// declared lost sooner than one RTT >= D after it was sent, RFC 9002
// section 6.1), so their UDP payload bytes must fit in the largest logged
// cwnd of that span. The capture and the qlog are aligned on the first
// datagram (qlog time 0 is the connection's start), +- 2 ms for the qlog's
// whole milliseconds and the capture's place before the bottleneck.
TEST(Ngtcp2LabBundleTest, BytesInFlightNeverAboveCwnd) {
  for (const BundleCase* cases : {kWithinBounds, kFortyMsWithLoss}) {
    const size_t n = cases == kWithinBounds ? std::size(kWithinBounds)
                                            : std::size(kFortyMsWithLoss);
    for (size_t i = 0; i < n; ++i) {
      SCOPED_TRACE(cases[i].dir);
      absl::StatusOr<Bundle> bundle = ReadBundle(TestDataPath(cases[i].dir));
      ASSERT_TRUE(bundle.ok()) << bundle.status();
      absl::StatusOr<std::string> qlog = BundleServerQlog(*bundle, "0");
      ASSERT_TRUE(qlog.ok()) << qlog.status();
      absl::StatusOr<HostStateLog> log = ReadHostState(*qlog);
      ASSERT_TRUE(log.ok()) << log.status();
      const CapturedSeries& s = log->traces.at(0).series;
      ASSERT_EQ(s.cwnd_bytes.size(), cases[i].samples);
      ASSERT_EQ(s.bytes_in_flight.size(), s.cwnd_bytes.size());
      // ngtcp2 logs metrics after every send and every ACK; a sample whose
      // bytes_in_flight grew follows a send, which the stack may make only
      // while the flight before it is below cwnd (after a reduction the
      // flight may stay above the new cwnd until ACKs drain it).
      int sends = 0;
      for (size_t k = 1; k < s.cwnd_bytes.size(); ++k) {
        if (s.bytes_in_flight[k].value <= s.bytes_in_flight[k - 1].value)
          continue;
        ++sends;
        ASSERT_LT(s.bytes_in_flight[k - 1].value, s.cwnd_bytes[k].value)
            << "send at qlog " << s.cwnd_bytes[k].time_us << " us";
      }
      EXPECT_GT(sends, 8000);
      const std::string& sender = bundle->meta.flows(0).sender();
      const int port = std::stoi(sender.substr(sender.rfind(':') + 1));
      const std::vector<Datagram> sent =
          ServerDatagrams(bundle->sender_capture, port);
      // The full capture has two datagrams fewer than the qlog's
      // packet_sent (SOURCES.md, tshark); the ACK-only ones are left out.
      EXPECT_GT(sent.size(),
                log->traces.at(0).quic_events.packets_sent.size() * 9 / 10);
      const double worst = ExpectWindowsFitCwnd(
          sent, s.cwnd_bytes, bundle->meta.delay().delay_ms() * 1000,
          bundle->meta.flows(0).max_udp_payload_bytes());
      // Measured 1.027 .. 1.052: the check binds.
      EXPECT_GT(worst, 0.95);
    }
  }
}

}  // namespace
}  // namespace ccreplay
