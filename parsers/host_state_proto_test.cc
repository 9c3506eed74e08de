#include "parsers/host_state_proto.h"

#include <string>

#include "gtest/gtest.h"
#include "parsers/host_state_reader.h"
#include "proto/testing/test_data.h"

namespace ccreplay {
namespace {

TEST(HostStateProtoTest, NgtcpQlogKeepsEveryEvent) {
  // ngtcp2's server qlog: `zcat server-0.sqlog.gz | grep -c
  // '"name":"recovery:packet_lost"'` = 135; packets sent 15010 and ACK
  // frames as `flows` reports them; congestion_window values max 481218.
  absl::StatusOr<HostStateLog> log = ReadHostState(
      TestDataPath("quic/ngtcp2_reno_30mbit_pfifo100_40ms/server-0.sqlog.gz"));
  ASSERT_TRUE(log.ok()) << log.status();
  proto::Trace trace = HostStateToProto(*log);
  ASSERT_EQ(trace.host_traces_size(), 1);
  const proto::HostTrace& h = trace.host_traces(0);
  EXPECT_EQ(h.source(), "qlog");
  EXPECT_EQ(h.protocol(), proto::PROTOCOL_QUIC);
  EXPECT_EQ(h.vantage(), "server");
  EXPECT_EQ(h.packets_lost_size(), 135);
  EXPECT_EQ(h.packets_sent_size(), 15010);
  EXPECT_EQ(static_cast<size_t>(h.acks_received_size()),
            log->traces[0].quic_events.acks_received.size());
  double cwnd_max = 0;
  for (const proto::NamedSeries& s : h.series()) {
    if (s.name() != "cwnd_bytes") continue;
    for (const proto::SeriesPoint& p : s.points())
      cwnd_max = std::max(cwnd_max, p.value());
  }
  EXPECT_EQ(cwnd_max, 481218);
}

TEST(HostStateProtoTest, SsLogSeriesByConnection) {
  absl::StatusOr<HostStateLog> log =
      ReadHostState(TestDataPath("lab/reno_ecn1_stepK60k_50mbit/ss.log"));
  ASSERT_TRUE(log.ok()) << log.status();
  proto::Trace trace = HostStateToProto(*log);
  ASSERT_EQ(trace.host_traces_size(), 2);
  const proto::HostTrace& data = trace.host_traces(1);
  EXPECT_EQ(data.local_endpoint(), "10.99.1.1:42408");
  EXPECT_TRUE(data.local_sends_data());
  EXPECT_EQ(data.congestion_control(), "reno");
  // 230 samples carry the data socket (`grep -c 'ESTAB.*:42408' ss.log`);
  // its last cwnd is 32 segments of mss 1448 = 46336 bytes.
  for (const proto::NamedSeries& s : data.series()) {
    if (s.name() == "cwnd_segments") {
      EXPECT_EQ(s.points_size(), 230);
      EXPECT_EQ(s.points(229).value(), 32);
    }
    if (s.name() == "cwnd_bytes") {
      EXPECT_EQ(s.points(229).value(), 32 * 1448);
    }
  }
}

}  // namespace
}  // namespace ccreplay
