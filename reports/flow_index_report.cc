#include "reports/flow_index_report.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <optional>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "parsers/pcap_reader.h"
#include "proto/json_printer.h"
#include "replay/replay_session.h"
#include "reports/evidence_quality.h"
#include "reports/figure_format.h"
#include "reports/html_report.h"
#include "reports/rules/rule_helpers.h"

namespace ccreplay {
namespace {

// The limiter rules the index can tell from its counters, worst first:
// the two warnings, then the information (their Severity in
// reports/rules/*.cc).
struct IndexRule {
  size_t limiter;
  const char* kind;
};
constexpr IndexRule kIndexRules[] = {
    {static_cast<size_t>(SendLimit::kRwnd), "receive_window_limited"},
    {kIndexRecovery, "loss_recovery_dominant"},
    {static_cast<size_t>(SendLimit::kApp), "application_limited"},
};

double JudgedSeconds(const FlowIndexEntry& e) {
  double total = 0;
  for (double s : e.limiter_s) total += s;
  return total;
}

std::string WorstFinding(const FlowIndexEntry& e) {
  EvidenceFacts facts;
  facts.data_packets = e.data_packets;
  facts.duration_s = e.summary.duration_s;
  facts.base_rtt_s = e.min_rtt_ms().value_or(0) / 1e3;
  facts.acks = e.acks;
  const EvidenceQuality quality = AssessEvidence(facts);
  if (!quality.both_directions) return "no ACK from the receiver";
  if (!quality.long_enough) return "too short to tell";
  const double total_s = JudgedSeconds(e);
  // Warnings before information; among equals, the larger share.
  const IndexRule* worst = nullptr;
  for (const IndexRule& rule : kIndexRules) {
    const double held_s = e.limiter_s[rule.limiter];
    if (total_s <= 0 || held_s < kMinLimiterShare * total_s) continue;
    if (e.longest_s[rule.limiter] < kMinLimiterRunRtts * facts.base_rtt_s)
      continue;
    const bool info = rule.limiter == static_cast<size_t>(SendLimit::kApp);
    if (worst == nullptr || (!info && held_s > e.limiter_s[worst->limiter])) {
      worst = &rule;
    }
  }
  return worst != nullptr ? worst->kind : "";
}

void SetLimiters(const FlowIndexEntry& e, proto::FlowIndexRow* row) {
  const double total_s = JudgedSeconds(e);
  row->set_main_limiter("none");
  if (!(total_s > 0)) return;
  // SendLimit's order puts "unknown" first; the table shows cwnd first.
  constexpr size_t kOrder[] = {1, 2, 3, kIndexRecovery, 0};
  size_t main = kOrder[0];
  for (size_t l : kOrder) {
    if (e.limiter_s[l] <= 0) continue;
    proto::FlowIndexRow::LimiterShare* share = row->add_limiters();
    share->set_limiter(IndexLimiterName(l));
    share->set_time_fraction(e.limiter_s[l] / total_s);
    if (e.limiter_s[l] > e.limiter_s[main]) main = l;
  }
  row->set_main_limiter(IndexLimiterName(main));
}

}  // namespace

proto::FlowIndexRow FlowIndexRowOf(const IndexedFlow& flow) {
  const FlowIndexEntry& e = flow.entry();
  const IndexedFlowSummary& s = e.summary;
  proto::FlowIndexRow row;
  row.set_flow_index(flow.index());
  row.set_sender(flow.sender());
  row.set_receiver(flow.receiver());
  row.set_start_s(flow.start_s());
  row.set_data_duration_s(e.data_duration_s);
  row.set_data_bytes(s.data_bytes);
  row.set_data_packets(e.data_packets);
  row.set_packets(flow.packets_data_dir() + flow.packets_ack_dir());
  if (s.goodput_bps > 0) row.set_goodput_bps(s.goodput_bps);
  row.set_retransmissions(s.retransmitted_segments);
  if (e.min_rtt_ms().has_value()) row.set_min_rtt_ms(*e.min_rtt_ms());
  if (e.median_rtt_ms().has_value()) row.set_median_rtt_ms(*e.median_rtt_ms());
  row.set_mss_bytes(e.mss_bytes);
  SetLimiters(e, &row);
  row.set_ecn(EcnModeName(e.ecn_mode));
  // As the diagnosis: the path carried the goodput, so its rate is not
  // below it (reports/path_estimates.h EstimatePath).
  if (s.goodput_bps > 0 && e.max_acked_rate_bps > 0) {
    row.set_utilization_at_most(s.goodput_bps /
                                std::max(s.goodput_bps, e.max_acked_rate_bps));
  }
  row.set_worst_finding(WorstFinding(e));
  row.set_ended(FlowEndName(e.ended));
  return row;
}

namespace {

// The figure a key sorts by; nullopt sorts last.
using SortFigure =
    std::function<std::optional<double>(const proto::FlowIndexRow&)>;

std::optional<SortFigure> FigureFor(absl::string_view key) {
  using Row = proto::FlowIndexRow;
  if (key == "throughput") {
    return SortFigure([](const Row& r) -> std::optional<double> {
      if (!r.has_goodput_bps()) return std::nullopt;
      return -r.goodput_bps();
    });
  }
  if (key == "utilization") {
    return SortFigure([](const Row& r) -> std::optional<double> {
      if (!r.has_utilization_at_most()) return std::nullopt;
      return -r.utilization_at_most();
    });
  }
  if (key == "duration")
    return SortFigure([](const Row& r) { return -r.data_duration_s(); });
  if (key == "retransmissions") {
    return SortFigure(
        [](const Row& r) { return -static_cast<double>(r.retransmissions()); });
  }
  if (key == "start")
    return SortFigure([](const Row& r) { return r.start_s(); });
  if (key == "index") {
    return SortFigure(
        [](const Row& r) { return static_cast<double>(r.flow_index()); });
  }
  return std::nullopt;
}

absl::Status UnknownSortKey(absl::string_view key) {
  return absl::InvalidArgumentError(
      absl::StrCat("unknown sort key \"", key, "\" (one of ",
                   absl::StrJoin(kFlowIndexSortKeys, ", "), ")"));
}

// Whether the row of figure `fa` and flow index `ia` sorts before the one
// of `fb` and `ib`: by the figure, a row without it last; ties by index.
bool SortsBefore(const std::optional<double>& fa, uint32_t ia,
                 const std::optional<double>& fb, uint32_t ib) {
  if (fa.has_value() != fb.has_value()) return fa.has_value();
  if (fa.has_value() && *fa != *fb) return *fa < *fb;
  return ia < ib;
}

}  // namespace

absl::Status SortFlowIndex(absl::string_view key, proto::FlowIndex* index) {
  const std::optional<SortFigure> figure = FigureFor(key);
  if (!figure.has_value()) return UnknownSortKey(key);
  // The rows' pointers are sorted, not the rows: std::stable_sort's
  // buffer of half the rows would be 90 MB at a million. They go back to
  // the field they came from, so to the same arena (or none): the
  // "unsafe" calls copy nothing.
  auto* rows = index->mutable_rows();
  std::vector<proto::FlowIndexRow*> order(rows->size());
  rows->UnsafeArenaExtractSubrange(0, rows->size(), order.data());
  std::stable_sort(
      order.begin(), order.end(),
      [&](const proto::FlowIndexRow* a, const proto::FlowIndexRow* b) {
        return SortsBefore((*figure)(*a), a->flow_index(), (*figure)(*b),
                           b->flow_index());
      });
  for (proto::FlowIndexRow* row : order) rows->UnsafeArenaAddAllocated(row);
  index->set_sort_key(std::string(key));
  return absl::OkStatus();
}

namespace {

// The flows in the order SortFlowIndex gives their rows. Each row is made
// once for its figure and dropped: the figures (16 bytes a flow with its
// index) are held, not the rows.
absl::StatusOr<std::vector<uint32_t>> SortedFlows(const FlowIndex& flows,
                                                  absl::string_view key) {
  const std::optional<SortFigure> figure = FigureFor(key);
  if (!figure.has_value()) return UnknownSortKey(key);
  // 16 bytes, not an optional's 24: a million are held while sorted.
  struct Keyed {
    double figure;  // When has_figure.
    uint32_t index;
    bool has_figure;
    std::optional<double> Figure() const {
      return has_figure ? std::optional<double>(figure) : std::nullopt;
    }
  };
  std::vector<Keyed> keyed;
  keyed.reserve(flows.size());
  for (size_t i = 0; i < flows.size(); ++i) {
    const std::optional<double> f = (*figure)(FlowIndexRowOf(flows.flow(i)));
    keyed.push_back({f.value_or(0), static_cast<uint32_t>(i), f.has_value()});
  }
  // Flow indexes are distinct: the order is total, as stable as
  // SortFlowIndex's.
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    return SortsBefore(a.Figure(), a.index, b.Figure(), b.index);
  });
  std::vector<uint32_t> order;
  order.reserve(keyed.size());
  for (const Keyed& k : keyed) order.push_back(k.index);
  return order;
}

}  // namespace

absl::StatusOr<FlowIndexRun> BuildFlowIndex(const std::string& input,
                                            const CaptureReadOptions& read,
                                            absl::string_view sort_key) {
  absl::StatusOr<TcpInput> tcp = ResolveTcpInput(input, "");
  if (!tcp.ok()) return tcp.status();
  FlowIndexRun run;
  size_t max_open_flows = 0;
  absl::StatusOr<CaptureInfo> info;
  {  // The pass's working state is freed before the rows are made.
    FlowIndexBuilder builder;
    info = ReadCapture(tcp->capture, builder, read);
    if (!info.ok()) return info.status();
    builder.Finish(info->first_packet_time_ns);
    run.flows = builder.TakeIndex();
    max_open_flows = builder.max_open_flows();
  }
  run.warnings = tcp->warnings;
  for (const std::string& w : info->warnings)
    run.warnings.push_back(absl::StrCat(tcp->capture, ": ", w));
  run.truncated = info->truncated;
  run.index.set_input(input);
  run.index.set_max_open_flows(max_open_flows);
  run.index.set_idle_timeout_s(kFlowIdleTimeoutNs * 1e-9);
  run.index.set_sort_key(std::string(sort_key));
  absl::StatusOr<std::vector<uint32_t>> order =
      SortedFlows(run.flows, sort_key);
  if (!order.ok()) return order.status();
  run.order = *std::move(order);
  return run;
}

proto::FlowIndex FlowIndexProto(FlowIndexRun* run) {
  proto::FlowIndex index = run->index;
  auto* rows = index.mutable_rows();
  const size_t count = run->flows.size();
  rows->Reserve(static_cast<int>(count));
  // In flow order, each flow's entry and record freed once its row is
  // made: the rows grow as what they come from shrinks.
  for (size_t i = 0; i < count; ++i) {
    *index.add_rows() = FlowIndexRowOf(run->flows.flow(0));
    run->flows.PopFront();
  }
  // Then in the run's order. The rows' pointers move, not the rows; they go
  // back to the field they came from (no arena): nothing is copied.
  std::vector<proto::FlowIndexRow*> by_flow(count);
  rows->UnsafeArenaExtractSubrange(0, static_cast<int>(count), by_flow.data());
  for (uint32_t i : run->order) rows->UnsafeArenaAddAllocated(by_flow[i]);
  run->order.clear();
  return index;
}

namespace {

// "12.3 Mb/s", "n/a" when absent.
std::string RateText(const proto::FlowIndexRow& r) {
  return r.has_goodput_bps() ? Mbps(r.goodput_bps())
                             : std::string(kNotAvailable);
}

std::string UtilizationText(const proto::FlowIndexRow& r) {
  return r.has_utilization_at_most()
             ? absl::StrCat("<=", Percent(r.utilization_at_most()))
             : std::string(kNotAvailable);
}

std::string RttText(const proto::FlowIndexRow& r) {
  return r.has_min_rtt_ms() ? Figure(r.min_rtt_ms(), 3)
                            : std::string(kNotAvailable);
}

// The columns of both tables: header and the cell of a row.
struct Column {
  const char* header;
  std::function<std::string(const proto::FlowIndexRow&)> cell;
  // The HTML sort value: the figure, or "" to sort by the text.
  std::function<std::string(const proto::FlowIndexRow&)> sort_value;
};

std::string Num(double v) { return absl::StrFormat("%.9g", v); }

const std::vector<Column>& Columns() {
  using Row = proto::FlowIndexRow;
  static const std::vector<Column>* columns = new std::vector<Column>{
      {"#", [](const Row& r) { return absl::StrCat(r.flow_index()); },
       [](const Row& r) { return Num(r.flow_index()); }},
      {"sender -> receiver",
       [](const Row& r) {
         return absl::StrCat(r.sender(), " -> ", r.receiver());
       },
       nullptr},
      {"start_s", [](const Row& r) { return Figure(r.start_s(), 3); },
       [](const Row& r) { return Num(r.start_s()); }},
      {"data_s", [](const Row& r) { return Figure(r.data_duration_s(), 3); },
       [](const Row& r) { return Num(r.data_duration_s()); }},
      {"bytes", [](const Row& r) { return absl::StrCat(r.data_bytes()); },
       [](const Row& r) { return Num(r.data_bytes()); }},
      {"goodput", RateText,
       [](const Row& r) {
         return r.has_goodput_bps() ? Num(r.goodput_bps()) : "";
       }},
      {"util", UtilizationText,
       [](const Row& r) {
         return r.has_utilization_at_most() ? Num(r.utilization_at_most()) : "";
       }},
      {"rexmt", [](const Row& r) { return absl::StrCat(r.retransmissions()); },
       [](const Row& r) { return Num(r.retransmissions()); }},
      {"min_rtt_ms", RttText,
       [](const Row& r) {
         return r.has_min_rtt_ms() ? Num(r.min_rtt_ms()) : "";
       }},
      {"mss", [](const Row& r) { return absl::StrCat(r.mss_bytes()); },
       [](const Row& r) { return Num(r.mss_bytes()); }},
      {"ecn", [](const Row& r) { return r.ecn(); }, nullptr},
      {"limiter", [](const Row& r) { return r.main_limiter(); }, nullptr},
      {"worst finding",
       [](const Row& r) {
         return r.worst_finding().empty() ? std::string("-")
                                          : r.worst_finding();
       },
       nullptr},
  };
  return *columns;
}

}  // namespace

std::string FlowIndexTable(const proto::FlowIndex& index) {
  std::string out;
  WriteFlowIndexTable(index, [&](absl::string_view text) {
    out.append(text.data(), text.size());
  });
  return out;
}

namespace {

// Hands each row of a table to `visit`, in the table's order.
using RowVisitor = absl::FunctionRef<void(const proto::FlowIndexRow&)>;
using RowWalk = absl::FunctionRef<void(RowVisitor)>;

// The table of `index` (its header fields) whose `count` rows `walk`
// hands out: twice, to measure the columns and to print them.
void WriteTable(const proto::FlowIndex& index, size_t count, RowWalk walk,
                TextSink write) {
  std::string out = absl::StrFormat("%s: %d flows, sorted by %s\n",
                                    index.input(), count, index.sort_key());
  // Widths from the text itself: one pass to measure, one to print.
  const std::vector<Column>& columns = Columns();
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c)
    width[c] = std::string(columns[c].header).size();
  walk([&](const proto::FlowIndexRow& r) {
    for (size_t c = 0; c < columns.size(); ++c)
      width[c] = std::max(width[c], columns[c].cell(r).size());
  });
  const auto line = [&](const std::function<std::string(size_t)>& text) {
    std::string l;
    for (size_t c = 0; c < columns.size(); ++c) {
      const bool left = columns[c].sort_value == nullptr;
      const int w = static_cast<int>(width[c]);
      absl::StrAppend(&l, c == 0 ? "" : "  ",
                      left ? absl::StrFormat("%-*s", w, text(c))
                           : absl::StrFormat("%*s", w, text(c)));
    }
    l.erase(l.find_last_not_of(' ') + 1);
    return absl::StrCat(l, "\n");
  };
  absl::StrAppend(&out, line([&](size_t c) { return columns[c].header; }));
  write(out);
  // Row by row: a million rows' text is not held at once.
  walk([&](const proto::FlowIndexRow& r) {
    write(line([&](size_t c) { return columns[c].cell(r); }));
  });
}

}  // namespace

void WriteFlowIndexTable(const proto::FlowIndex& index, TextSink write) {
  WriteTable(
      index, static_cast<size_t>(index.rows_size()),
      [&](RowVisitor visit) {
        for (const proto::FlowIndexRow& r : index.rows()) visit(r);
      },
      write);
}

void WriteFlowIndexTable(const FlowIndexRun& run, TextSink write) {
  WriteTable(
      run.index, run.order.size(),
      [&](RowVisitor visit) {
        for (uint32_t i : run.order) visit(FlowIndexRowOf(run.flows.flow(i)));
      },
      write);
}

void WriteFlowIndexJson(const FlowIndexRun& run, TextSink write) {
  // `run.index` holds no rows: its JSON ends its rows with `[]` on the
  // line `  "rows": []` (a string's newline prints as `\n`, so that line
  // is the field's). Its rows go between, as PrintJson's array puts them.
  std::string out = PrintJson(run.index);
  constexpr absl::string_view kEmptyRows = "\n  \"rows\": []";
  const size_t rows_at = absl::string_view(out).find(kEmptyRows);
  const std::string tail = out.substr(rows_at + kEmptyRows.size());
  out.resize(rows_at + kEmptyRows.size() - 1);  // Up to the `[`.
  const JsonPrintOptions options;               // PrintJson's.
  bool first = true;
  for (uint32_t i : run.order) {
    out += first ? "\n    " : ",\n    ";
    first = false;
    AppendJson(FlowIndexRowOf(run.flows.flow(i)), options, 2, &out);
    write(out);
    out.clear();
  }
  out += run.order.empty() ? "]" : "\n  ]";
  out += tail;
  write(out);
}

// The page's sorting: numbers by data-v (an empty one last), text by its
// content; a header's click sorts by its column, descending first.
constexpr char kSortScript[] =
    "(function(){\n"
    "const table=document.getElementById('flows');\n"
    "const heads=table.tHead.rows[0].cells;\n"
    "function key(td){const v=td.dataset.v;\n"
    "  if(v===undefined)return td.textContent;\n"
    "  return v===''?null:parseFloat(v);}\n"
    "function sortBy(col,dir){\n"
    "  const body=table.tBodies[0];\n"
    "  const rows=Array.from(body.rows);\n"
    "  rows.sort(function(a,b){\n"
    "    const x=key(a.cells[col]),y=key(b.cells[col]);\n"
    "    if(x===null||y===null)return (x===null)-(y===null);\n"
    "    if(x<y)return -dir;if(x>y)return dir;return 0;});\n"
    "  rows.forEach(function(r){body.appendChild(r);});\n"
    "  for(const h of heads)h.removeAttribute('aria-sort');\n"
    "  "
    "heads[col].setAttribute('aria-sort',dir>0?'ascending':'descending');}\n"
    "Array.from(heads).forEach(function(h,col){\n"
    "  h.addEventListener('click',function(){\n"
    "    sortBy(col,h.getAttribute('aria-sort')==='descending'?1:-1);});});\n"
    // #sort=COL[,COL...]: click those headers in turn once loaded (a
    // link to a sorted table; report_browser_test.sh follows one).
    "const m=/^#sort=([0-9,]+)$/.exec(location.hash);\n"
    "if(m)m[1].split(',').forEach(function(c){\n"
    "  if(heads[+c])heads[+c].click();});\n"
    "})();\n";

std::string RenderFlowIndexHtml(const proto::FlowIndex& index) {
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<title>Flows of ",
      HtmlEscape(index.input()),
      "</title><style>"
      "body{font:14px system-ui,sans-serif;margin:1.5em}"
      "table{border-collapse:collapse}"
      "th,td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}"
      "td.text,th.text{text-align:left}"
      "th{cursor:pointer;background:#f3f3f3;position:sticky;top:0}"
      "th[aria-sort=ascending]::after{content:\" \\25B2\"}"
      "th[aria-sort=descending]::after{content:\" \\25BC\"}"
      "</style></head><body>\n<h1>",
      index.rows_size(), " flows of ", HtmlEscape(index.input()),
      "</h1>\n<p>One pass over the capture; utilization is an upper bound "
      "(goodput over the highest rate acknowledged over a few RTTs). Click a "
      "column to "
      "sort.</p>\n<table id=\"flows\"><thead><tr>");
  const std::vector<Column>& columns = Columns();
  for (const Column& c : columns) {
    absl::StrAppend(&out, "<th", c.sort_value ? "" : " class=\"text\"", ">",
                    HtmlEscape(c.header), "</th>");
  }
  absl::StrAppend(&out, "</tr></thead><tbody>\n");
  for (const proto::FlowIndexRow& r : index.rows()) {
    absl::StrAppend(&out, "<tr>");
    for (const Column& c : columns) {
      if (c.sort_value == nullptr) {
        absl::StrAppend(&out, "<td class=\"text\">", HtmlEscape(c.cell(r)),
                        "</td>");
      } else {
        absl::StrAppend(&out, "<td data-v=\"", c.sort_value(r), "\">",
                        HtmlEscape(c.cell(r)), "</td>");
      }
    }
    absl::StrAppend(&out, "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table>\n<script>\n", kSortScript,
                  "</script>\n</body></html>\n");
  return out;
}

}  // namespace ccreplay
