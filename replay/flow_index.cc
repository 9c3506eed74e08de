#include "replay/flow_index.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ccreplay {

const char* FlowEndName(FlowEnd end) {
  switch (end) {
    case FlowEnd::kIdle:
      return "idle";
    case FlowEnd::kClosed:
      return "closed";
    case FlowEnd::kOpen:
      break;
  }
  return "open";
}

const char* IndexLimiterName(size_t limiter) {
  if (limiter == kIndexRecovery) return "recovery";
  return SendLimitName(static_cast<SendLimit>(limiter));
}

void RttHistogram::Add(int64_t rtt_us) {
  const double octaves =
      std::log2(std::max<double>(rtt_us, kRttBucketBaseUs) / kRttBucketBaseUs);
  const size_t i = std::min(
      kRttBuckets - 1, static_cast<size_t>(octaves * kRttBucketsPerOctave));
  ++buckets_[i];
  ++count_;
}

std::optional<double> RttHistogram::MedianUs() const {
  if (count_ == 0) return std::nullopt;
  uint64_t below = 0;
  for (size_t i = 0; i < kRttBuckets; ++i) {
    below += buckets_[i];
    if (2 * below >= count_) {
      return kRttBucketBaseUs *
             std::exp2((i + 0.5) / static_cast<double>(kRttBucketsPerOctave));
    }
  }
  return std::nullopt;  // Not reached: the buckets sum to count_.
}

namespace {

// What one side's data showed, from the events about it.
struct SenderCounters {
  // The stretch being judged, about one smoothed RTT from its first event
  // (reports/limiter_runs.cc judges about one RTT at a time too: within
  // an RTT a window-limited sender alternates between sending and waiting).
  int64_t window_start_ns = -1;
  int64_t window_end_ns = 0;
  int64_t last_event_ns = 0;
  std::array<uint32_t, 4> window_limit_acks = {0, 0, 0, 0};  // By SendLimit.
  bool window_retransmitted = false;
  size_t run_limiter = kIndexLimiters;  // None yet.
  int64_t run_start_ns = 0;
  std::array<double, kIndexLimiters> limiter_s = {};
  std::array<double, kIndexLimiters> longest_s = {};
  int64_t min_rtt_us = 0;
  std::unique_ptr<RttHistogram> rtts;  // Made at the first sample.
  uint32_t mss_bytes = 0;
  uint64_t acks = 0;
  int64_t delivered_mark = 0;  // Delivered so far (a sequence number).
  // The rate window being measured; -1: none yet.
  int64_t rate_window_start_ns = -1;
  int64_t rate_window_ns = 0;
  uint64_t rate_window_bytes = 0;
  double max_acked_rate_bps = 0;

  // The limiter of the window: recovery when it held a retransmission,
  // else the SendLimit most of its ACKs reported (unknown on a tie), as
  // reports/limiter_runs.cc BinLimiter decides a bin.
  size_t WindowLimiter() const {
    if (window_retransmitted) return kIndexRecovery;
    size_t best = static_cast<size_t>(SendLimit::kUnknown);
    for (SendLimit l : {SendLimit::kCwnd, SendLimit::kRwnd, SendLimit::kApp}) {
      const size_t i = static_cast<size_t>(l);
      if (window_limit_acks[i] > window_limit_acks[best]) best = i;
    }
    return best;
  }

  // Judges the window as [window_start_ns, end_ns) and adds it to the runs.
  void JudgeWindow(int64_t end_ns) {
    const size_t l = WindowLimiter();
    const double span_s = (end_ns - window_start_ns) * 1e-9;
    limiter_s[l] += span_s;
    if (l != run_limiter) {
      run_limiter = l;
      run_start_ns = window_start_ns;
    }
    longest_s[l] = std::max(longest_s[l], (end_ns - run_start_ns) * 1e-9);
  }

  // Tumbling windows (the diagnosis slides them; the highest of these is
  // at most half a window's rate below its maximum).
  void TakeAckedBytes(const TimelineEvent& e) {
    // Delivered: the cumulative ACK plus the SACKed data above it, as
    // reports/flow_observation.cc counts it (bytes_acked + bytes_sacked
    // would count SACKed data twice, once more when the ACK covers it).
    const int64_t delivered = e.ack + static_cast<int64_t>(e.sacked_bytes);
    if (delivered_mark == 0) delivered_mark = e.ack - e.bytes_acked;
    const uint64_t newly =
        delivered > delivered_mark
            ? static_cast<uint64_t>(delivered - delivered_mark)
            : 0;
    delivered_mark = std::max(delivered_mark, delivered);
    // What an ACK delivered came since the previous one: the window open
    // before it holds it, and the first ACK's opens none.
    if (rate_window_start_ns >= 0) {
      rate_window_bytes += newly;
      const int64_t span_ns = e.time_ns - rate_window_start_ns;
      if (span_ns < rate_window_ns) return;
      max_acked_rate_bps =
          std::max(max_acked_rate_bps, rate_window_bytes * 8e9 / span_ns);
    }
    rate_window_start_ns = e.time_ns;
    rate_window_ns = std::max<int64_t>(kMinRateWindowS * 1e9,
                                       kRateWindowRtts * e.srtt_us * 1e3);
    rate_window_bytes = 0;
  }

  void OnEvent(const TimelineEvent& e) {
    if (window_start_ns >= 0 && e.time_ns >= window_end_ns) {
      JudgeWindow(e.time_ns);
      window_start_ns = -1;
    }
    if (window_start_ns < 0) {
      window_start_ns = e.time_ns;
      window_end_ns = e.time_ns + e.srtt_us * 1000;
      window_limit_acks = {0, 0, 0, 0};
      window_retransmitted = false;
    }
    last_event_ns = std::max(last_event_ns, e.time_ns);
    if (e.type == TimelineEvent::Type::kRetransmission) {
      window_retransmitted = true;
      return;
    }
    ++acks;
    ++window_limit_acks[static_cast<size_t>(e.limit)];
    if (e.mss_bytes > 0) mss_bytes = e.mss_bytes;
    if (e.rtt_sample_us > 0) {
      if (rtts == nullptr) rtts = std::make_unique<RttHistogram>();
      rtts->Add(e.rtt_sample_us);
      if (min_rtt_us == 0 || e.rtt_sample_us < min_rtt_us)
        min_rtt_us = e.rtt_sample_us;
    }
    TakeAckedBytes(e);
  }
};

}  // namespace

// An open flow: how it is ending, and each side's counters, folded into
// its FlowIndexEntry (the data sender's) when it ends. Made at its first
// FIN or timeline event: a flow with neither (a lone SYN) is a key in
// open_ with no OpenFlow (48 bytes each, a million of them, were most of
// the open flows' memory on a capture of SYNs).
struct FlowIndexBuilder::OpenFlow {
  int64_t closed_ns = 0;  // Its second FIN; 0: not yet.
  bool fin[2] = {false, false};
  uint32_t fin_end[2] = {0, 0};  // The sequence number after each FIN.
  // Made at the flow's first timeline event: a flow with a FIN but no
  // event costs the bytes above, not two counters' 400.
  std::unique_ptr<std::array<SenderCounters, 2>> side;
};

namespace {

// What the flow's entry takes of SummarizeFlow at the flow's end, and the
// sender it was taken for.
void TakeSummary(const Flow& flow, int64_t capture_start_ns,
                 FlowIndexEntry& e) {
  const FlowSummary f = SummarizeFlow(flow, capture_start_ns);
  e.summary.data_bytes = f.data_bytes;
  e.summary.retransmitted_segments = f.retransmitted_segments;
  e.summary.duration_s = f.duration_s;
  e.summary.goodput_bps = f.goodput_bps;
  e.ecn_mode = f.ecn_mode;
  e.sender_side = static_cast<uint8_t>(flow.sender_side());
}

}  // namespace

std::string IndexedFlow::sender() const {
  const int side = entry_->sender_side;
  return EndpointString(flow_->address[side], flow_->port[side]);
}

std::string IndexedFlow::receiver() const {
  const int side = 1 - entry_->sender_side;
  return EndpointString(flow_->address[side], flow_->port[side]);
}

// A closed flow's packets after its close (CountStray) count too: the
// record counts every packet of the flow.
uint64_t IndexedFlow::packets_data_dir() const {
  return flow_->side[entry_->sender_side].packets();
}

uint64_t IndexedFlow::packets_ack_dir() const {
  return flow_->side[1 - entry_->sender_side].packets();
}

FlowIndexBuilder::FlowIndexBuilder(int64_t idle_timeout_ns)
    : builder_([this](const TimelineEvent& e) { OnEvent(e); }),
      idle_timeout_ns_(idle_timeout_ns) {}

FlowIndexBuilder::~FlowIndexBuilder() = default;

void FlowIndexBuilder::Restart() {
  builder_.Restart();
  open_.clear();
  entries_.clear();
  capture_start_ns_ = -1;
  max_open_ = 0;
}

std::unique_ptr<FlowIndexBuilder::OpenFlow>& FlowIndexBuilder::Open(
    uint32_t flow_index) {
  auto [it, made] = open_.try_emplace(flow_index);
  if (made) max_open_ = std::max(max_open_, open_.size());
  return it->second;
}

void FlowIndexBuilder::OnSegment(const TcpSegment& s) {
  if (capture_start_ns_ < 0) {
    capture_start_ns_ = s.time_ns;
    next_sweep_ns_ = s.time_ns + kSweepIntervalNs;
  }
  if (s.time_ns >= next_sweep_ns_) {
    CloseIdle(s.time_ns);
    next_sweep_ns_ = s.time_ns + kSweepIntervalNs;
  }
  builder_.OnSegment(s);
  const FlowTable& table = builder_.flow_table();
  const uint32_t index = table.last_flow_index();
  if (index < entries_.size() && entries_[index].ended == FlowEnd::kClosed) {
    CountStray(index);
    return;
  }
  if (EndsConnection(Open(index), table.last_side(), s))
    Close(index, FlowEnd::kClosed);
}

bool FlowIndexBuilder::EndsConnection(std::unique_ptr<OpenFlow>& open, int side,
                                      const TcpSegment& s) {
  if (s.flags & kTcpRst) return true;
  if ((s.flags & kTcpFin) && open == nullptr)
    open = std::make_unique<OpenFlow>();
  if (open == nullptr) return false;  // No FIN yet.
  OpenFlow& flow = *open;
  if ((s.flags & kTcpFin) && !flow.fin[side]) {
    flow.fin[side] = true;
    flow.fin_end[side] = s.seq + s.payload_bytes + 1;
  }
  const int peer = 1 - side;
  if (!(flow.fin[0] && flow.fin[1])) return false;
  if (flow.closed_ns == 0) flow.closed_ns = s.time_ns;
  // The peer's FIN acknowledged (sequence numbers compared modulo 2^32).
  return (s.flags & kTcpAck) &&
         static_cast<int32_t>(s.ack - flow.fin_end[peer]) >= 0;
}

void FlowIndexBuilder::CountStray(uint32_t flow_index) {
  builder_.ReleaseFlow(flow_index);
}

void FlowIndexBuilder::OnEvent(const TimelineEvent& e) {
  // A flow already folded gets no events but a held ACK's (AckHold)
  // released after its end: those are left out.
  auto it = open_.find(e.flow_index);
  if (it == open_.end()) return;
  if (it->second == nullptr) it->second = std::make_unique<OpenFlow>();
  auto& side = it->second->side;
  if (side == nullptr) side = std::make_unique<std::array<SenderCounters, 2>>();
  (*side)[e.sender_side & 1].OnEvent(e);
}

void FlowIndexBuilder::CloseIdle(int64_t now_ns) {
  const std::deque<Flow>& flows = builder_.flow_table().flows();
  std::vector<std::pair<uint32_t, FlowEnd>> ended;
  for (const auto& [index, flow] : open_) {
    // The flow's newest packet is the table's last_ns: every packet of
    // an open flow reaches OnSegment.
    const int64_t closed_ns = flow != nullptr ? flow->closed_ns : 0;
    if (closed_ns != 0 && now_ns - closed_ns >= kClosedLingerNs) {
      ended.emplace_back(index, FlowEnd::kClosed);
    } else if (now_ns - flows[index].last_ns >= idle_timeout_ns_) {
      ended.emplace_back(index, FlowEnd::kIdle);
    }
  }
  for (const auto& [index, why] : ended) Close(index, why);
}

void FlowIndexBuilder::Close(uint32_t flow_index, FlowEnd ended) {
  builder_.EmitHeldAppAcks(flow_index);  // Counted before the record ends.
  auto it = open_.find(flow_index);
  // Out of the map before the fold: ReleaseFlow's events are left out.
  const std::unique_ptr<OpenFlow> state = std::move(it->second);
  open_.erase(it);
  Fold(flow_index, state.get(), ended);
}

void FlowIndexBuilder::Fold(uint32_t flow_index, const OpenFlow* open_flow,
                            FlowEnd ended) {
  const Flow& flow = builder_.flow_table().flows()[flow_index];
  SenderCounters none;  // For a flow without timeline events.
  SenderCounters& open = open_flow != nullptr && open_flow->side != nullptr
                             ? (*open_flow->side)[flow.sender_side()]
                             : none;
  if (open.window_start_ns >= 0) open.JudgeWindow(open.last_event_ns);
  if (flow_index >= entries_.size()) entries_.resize(flow_index + 1);
  FlowIndexEntry& e = entries_[flow_index];
  // A closed flow's counts were released with it (below): stray packets
  // after the close do not change them.
  const bool was_closed = e.filled && e.ended == FlowEnd::kClosed;
  if (!was_closed) {
    TakeSummary(flow, capture_start_ns_, e);
    const SideTraffic* sent = flow.side[flow.sender_side()].traffic.get();
    if (sent != nullptr) {
      e.data_packets = sent->payload_packets;
      e.data_duration_s =
          (sent->last_payload_ns - sent->first_payload_ns) * 1e-9;
    }
  }
  // A flow that resumed after the idle timeout adds to what it had.
  for (size_t l = 0; l < kIndexLimiters; ++l) {
    e.limiter_s[l] += open.limiter_s[l];
    e.longest_s[l] = std::max(e.longest_s[l], open.longest_s[l]);
  }
  if (open.min_rtt_us > 0) {
    const double min_ms = open.min_rtt_us / 1e3;
    e.stored_min_rtt_ms = std::min(e.min_rtt_ms().value_or(min_ms), min_ms);
  }
  // A bucket's centre can lie below the flow's least sample.
  if (open.rtts != nullptr) {
    e.stored_median_rtt_ms =
        std::max(*open.rtts->MedianUs(), static_cast<double>(open.min_rtt_us)) /
        1e3;
  }
  if (open.mss_bytes > 0) e.mss_bytes = open.mss_bytes;
  e.acks += open.acks;
  e.max_acked_rate_bps =
      std::max(e.max_acked_rate_bps, open.max_acked_rate_bps);
  if (!was_closed) e.ended = ended;
  e.filled = true;
  // A flow idle for the timeout may resume: the table keeps its counts.
  if (e.ended == FlowEnd::kClosed) builder_.ReleaseFlow(flow_index);
}

void FlowIndexBuilder::Finish(int64_t capture_start_ns) {
  builder_.Finish();
  // Each flow's held ACKs before any is folded (Close's order: a flow's
  // events reach its own OpenFlow only). Then the open map (34 MB at a
  // million open SYNs) is freed before the rows grow to every flow: the
  // open flows are kept as bits, those with state in a map as small as
  // they are few.
  std::vector<bool> still_open(builder_.flow_table().flows().size());
  absl::flat_hash_map<uint32_t, std::unique_ptr<OpenFlow>> states;
  for (auto& [index, flow] : open_) {
    builder_.EmitHeldAppAcks(index);  // May make `flow` (OnEvent).
    still_open[index] = true;
    if (flow != nullptr) states.emplace(index, std::move(flow));
  }
  absl::flat_hash_map<uint32_t, std::unique_ptr<OpenFlow>>().swap(open_);
  for (uint32_t index = 0; index < still_open.size(); ++index) {
    if (!still_open[index]) continue;
    auto it = states.find(index);
    const OpenFlow* flow = it != states.end() ? it->second.get() : nullptr;
    Fold(index, flow,
         flow != nullptr && flow->closed_ns != 0 ? FlowEnd::kClosed
                                                 : FlowEnd::kOpen);
  }
  const std::deque<Flow>& flows = builder_.flow_table().flows();
  entries_.resize(flows.size());
  shift_s_ =
      capture_start_ns_ < 0 ? 0 : (capture_start_ns_ - capture_start_ns) * 1e-9;
  for (size_t i = 0; i < entries_.size(); ++i) {
    FlowIndexEntry& e = entries_[i];
    // A flow whose only frames were copies was never opened.
    if (!e.filled) {
      TakeSummary(flows[i], capture_start_ns_, e);
      e.ended = FlowEnd::kOpen;
      e.filled = true;
    }
  }
}

FlowIndex FlowIndexBuilder::TakeIndex() {
  return FlowIndex(std::move(entries_), builder_.TakeFlows(), capture_start_ns_,
                   shift_s_);
}

}  // namespace ccreplay
