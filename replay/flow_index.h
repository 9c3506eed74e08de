// The index of every flow in a capture, in one streaming pass: the ACK
// timeline of all flows (AckTimelineBuilder, as replay/live_flows.h drives
// it) folded, flow by flow, into a few counters and one row per flow. A
// flow's counters are made at its first packet and folded into its row
// when it ends (FIN both ways or RST, or no packet for the idle timeout);
// a closed flow's timeline state and the table's traffic counts are freed
// then too (AckTimelineBuilder::ReleaseFlow), so working memory follows
// the flows open at once. What stays per flow is its row and the flow
// table's 248-byte record, which the row reads (docs/performance.md).
#ifndef CCREPLAY_REPLAY_FLOW_INDEX_H_
#define CCREPLAY_REPLAY_FLOW_INDEX_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "parsers/connection_expiry.h"
#include "parsers/flow_table.h"
#include "parsers/pcap_reader.h"
#include "parsers/tcp_segment.h"
#include "replay/ack_timeline.h"

namespace ccreplay {

// What held the sender over a stretch: the four SendLimit values (same
// order) and loss recovery (a stretch with a retransmission), as
// reports/limiter_runs.h judges them.
inline constexpr size_t kIndexLimiters = 5;
inline constexpr size_t kIndexRecovery = 4;
// "unknown", "cwnd", "rwnd", "app", "recovery".
const char* IndexLimiterName(size_t limiter);

// A flow ends at a RST, or once both sides sent a FIN and the first is
// acknowledged (the last ACK, after it, is counted still); after a
// simultaneous close whose ACKs the capture missed, kClosedLingerNs after
// its second FIN; or after kFlowIdleTimeoutNs without a packet
// (parsers/connection_expiry.h, shared with the capture reader).
// How often, in capture time, the open flows are checked for an end.
inline constexpr int64_t kSweepIntervalNs = 250'000'000;

// A rate is measured over this many smoothed RTTs, and at least
// kMinRateWindowS: over shorter windows ACK compression and bursts read as
// rate (reports/path_estimates.cc measures the path's rate so too).
inline constexpr double kRateWindowRtts = 4;
inline constexpr double kMinRateWindowS = 0.05;

// RTT samples in a log-scale histogram: bucket i holds [kRttBucketBaseUs *
// 2^(i/8), ... * 2^((i+1)/8)), so the median it gives is within 4.5 % of
// the true one, in 512 bytes whatever the number of samples.
inline constexpr double kRttBucketBaseUs = 10;
inline constexpr int kRttBucketsPerOctave = 8;
inline constexpr size_t kRttBuckets = 128;  // Up to 10 us * 2^16 = 655 s.

class RttHistogram {
 public:
  void Add(int64_t rtt_us);
  uint64_t count() const { return count_; }
  // The median's bucket's geometric centre; nullopt without a sample.
  std::optional<double> MedianUs() const;

 private:
  std::array<uint32_t, kRttBuckets> buckets_ = {};
  uint64_t count_ = 0;
};

// What a row takes of SummarizeFlow that the flow table's record does not
// keep to the output: the sender's traffic (SideTraffic, freed when the
// flow closes) and the duration at the flow's end (stray packets after a
// close move the record's last_ns). The endpoints, packet counts and
// start are read from the record when the row is made (IndexedFlow).
struct IndexedFlowSummary {
  uint64_t data_bytes = 0;
  uint64_t retransmitted_segments = 0;
  double duration_s = 0;
  double goodput_bps = 0;
};
// How a flow's row ended: its FIN both ways or RST, the idle timeout, or
// the capture's end.
enum class FlowEnd : uint8_t { kOpen, kIdle, kClosed };
const char* FlowEndName(FlowEnd end);  // "open", "idle", "closed".

// One flow of the index: the flow table's counts, the timeline's RTT and
// limiter times, the highest delivery rate. 168 bytes (three to a deque
// block, flow_index_test checks): a million are held until the output,
// beside the flow table's records.
struct FlowIndexEntry {
  IndexedFlowSummary summary;  // At the flow's end.
  uint64_t data_packets = 0;
  double data_duration_s = 0;
  // The RTTs, nullopt without a sample; held as kNoRtt, not as optionals
  // (16 bytes each).
  static constexpr double kNoRtt = -1;  // An RTT sample is positive.
  double stored_min_rtt_ms = kNoRtt;
  double stored_median_rtt_ms = kNoRtt;
  std::optional<double> min_rtt_ms() const {
    if (stored_min_rtt_ms == kNoRtt) return std::nullopt;
    return stored_min_rtt_ms;
  }
  std::optional<double> median_rtt_ms() const {
    if (stored_median_rtt_ms == kNoRtt) return std::nullopt;
    return stored_median_rtt_ms;
  }
  // Seconds under each limiter (IndexLimiterName) and its longest stretch.
  std::array<double, kIndexLimiters> limiter_s = {};
  std::array<double, kIndexLimiters> longest_s = {};
  uint64_t acks = 0;
  // The highest rate of cumulatively acknowledged data over a rate window
  // (kRateWindowRtts, kMinRateWindowS): the path carried that much, so it
  // is a lower bound of its rate. 0: no window was complete.
  double max_acked_rate_bps = 0;
  // Small fields last: no padding between.
  uint32_t mss_bytes = 0;
  EcnMode ecn_mode = EcnMode::kNone;  // At the flow's end.
  FlowEnd ended = FlowEnd::kOpen;
  uint8_t sender_side = 0;  // Flow::sender_side() when it was folded.
  bool filled = false;      // Folded at least once (a flow that resumed
                            // after the idle timeout is folded twice).
};

// A row's figures: the flow's entry and its flow table record.
class IndexedFlow {
 public:
  // `start_s`: the record's first packet from the capture's (FlowIndex).
  IndexedFlow(const FlowIndexEntry& entry, const Flow& flow, double start_s)
      : entry_(&entry), flow_(&flow), start_s_(start_s) {}

  const FlowIndexEntry& entry() const { return *entry_; }
  const IndexedFlowSummary& summary() const { return entry_->summary; }
  uint32_t index() const { return flow_->index; }
  std::string sender() const;
  std::string receiver() const;
  uint64_t packets_data_dir() const;
  uint64_t packets_ack_dir() const;
  double start_s() const { return start_s_; }

 private:
  const FlowIndexEntry* entry_;
  const Flow* flow_;
  double start_s_;
};

// What stays of a pass: the entries and the flow table's records they
// read, by flow index; nothing of the pass's working state.
class FlowIndex {
 public:
  FlowIndex() = default;
  FlowIndex(std::deque<FlowIndexEntry> entries,
            std::unique_ptr<std::deque<Flow>> flows, int64_t pass_start_ns,
            double shift_s)
      : entries_(std::move(entries)),
        flows_(std::move(flows)),
        pass_start_ns_(pass_start_ns),
        shift_s_(shift_s) {}

  size_t size() const { return entries_.size(); }
  // Frees the first flow's entry and record: flow(0) is the next one's.
  void PopFront() {
    entries_.pop_front();
    flows_->pop_front();
  }
  IndexedFlow flow(size_t i) const {
    return Row(entries_[i], (*flows_)[i], pass_start_ns_, shift_s_);
  }
  // The row of `entry` and its record; start_s as the capture's reader
  // counts it (SummarizeFlow's arithmetic, then the shift to the reader's
  // first packet, for identical figures).
  static IndexedFlow Row(const FlowIndexEntry& entry, const Flow& flow,
                         int64_t pass_start_ns, double shift_s) {
    return IndexedFlow(
        entry, flow,
        static_cast<double>(flow.first_ns - pass_start_ns) * 1e-9 + shift_s);
  }

 private:
  std::deque<FlowIndexEntry> entries_;
  std::unique_ptr<std::deque<Flow>> flows_;
  int64_t pass_start_ns_ = 0;
  double shift_s_ = 0;
};

class FlowIndexBuilder : public SegmentConsumer {
 public:
  explicit FlowIndexBuilder(int64_t idle_timeout_ns = kFlowIdleTimeoutNs);
  ~FlowIndexBuilder() override;

  void OnSegment(const TcpSegment& segment) override;
  void OnDuplicateFrame(const TcpSegment& segment) override {
    builder_.OnDuplicateFrame(segment);
  }
  // The reader's state, in the flow table's records.
  ConnectionSanity* HeldSanity(const TcpSegment& segment, int* side) override {
    return builder_.HeldSanity(segment, side);
  }
  void Restart() override;
  // After the last segment: the flows still open get their rows ("open").
  // `capture_start_ns`: the capture's first packet (CaptureInfo).
  void Finish(int64_t capture_start_ns);

  // In flow order, after Finish(). A deque: it grows without copying the
  // rows already held (a vector would hold twice them while it grows).
  const std::deque<FlowIndexEntry>& entries() const { return entries_; }
  // Flow `i`'s row, after Finish().
  IndexedFlow flow(size_t i) const {
    return FlowIndex::Row(entries_[i], flow_table().flows()[i],
                          capture_start_ns_, shift_s_);
  }
  // Moves the rows and the flow table's records out, for a caller that
  // frees the pass before using them.
  FlowIndex TakeIndex();
  size_t max_open_flows() const { return max_open_; }
  const FlowTable& flow_table() const { return builder_.flow_table(); }

 private:
  struct OpenFlow;
  void OnEvent(const TimelineEvent& event);
  // The flow's entry in open_, added if absent; its OpenFlow may be null
  // (see the definition).
  std::unique_ptr<OpenFlow>& Open(uint32_t flow_index);
  // Whether `s`, from `side`, ends the connection (see kClosedLingerNs).
  // Makes the flow's OpenFlow at its first FIN.
  static bool EndsConnection(std::unique_ptr<OpenFlow>& flow, int side,
                             const TcpSegment& s);
  // A packet of a flow already closed and released: its packet counts
  // (kept in the table's record) go to the row; the state it made is freed.
  void CountStray(uint32_t flow_index);
  // Folds the open flow into its row and frees it.
  void Close(uint32_t flow_index, FlowEnd ended);
  // Folds `open` (null: a flow with neither FIN nor timeline event) into
  // the flow's row; releases the flow when it is closed.
  void Fold(uint32_t flow_index, const OpenFlow* open, FlowEnd ended);
  // Closes the flows idle for the timeout before `now_ns`.
  void CloseIdle(int64_t now_ns);

  AckTimelineBuilder builder_;
  int64_t idle_timeout_ns_;
  int64_t capture_start_ns_ = -1;  // The pass's first segment.
  // From it to the capture's first packet, set by Finish().
  double shift_s_ = 0;
  int64_t next_sweep_ns_ = 0;
  absl::flat_hash_map<uint32_t, std::unique_ptr<OpenFlow>> open_;
  std::deque<FlowIndexEntry> entries_;  // By flow index; filled at Close.
  size_t max_open_ = 0;
};

}  // namespace ccreplay

#endif  // CCREPLAY_REPLAY_FLOW_INDEX_H_
