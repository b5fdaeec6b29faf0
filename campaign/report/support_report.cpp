#include "campaign/report/support_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "campaign/campaign_types.h"
#include "campaign/store/support_store.h"
#include "core/error.h"
#include "core/json_util.h"
#include "core/text.h"
#include "repro/runtimes.h"

using nlohmann::json;

namespace convfail::campaign {
namespace {

using Key = std::tuple<std::string, std::string, int>;  // op, dtype, opset

bool shown(const std::vector<std::string>& wanted, const std::string& x) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), x) != wanted.end();
}

bool shown(const SupportViewOptions& o, const SupportCell& c) {
  return shown(o.dtypes, c.dtype) && shown(o.ops, c.op) &&
         (o.opsets.empty() ||
          std::find(o.opsets.begin(), o.opsets.end(), c.opset) != o.opsets.end());
}

std::string release(const MatrixView& v) {
  return v.matrix.versions.onnxruntime;
}

std::string first_line(const std::string& s, std::size_t max) {
  return truncate_utf8(s.substr(0, s.find('\n')), max);
}

// The gap's one line: where it stands on the last release shown and since when.
std::string gap_summary(const std::vector<std::string>& classes,
                        const std::vector<std::string>& releases) {
  int last = -1;
  for (int i = static_cast<int>(classes.size()) - 1; i >= 0 && last < 0; --i)
    if (!classes[static_cast<std::size_t>(i)].empty()) last = i;
  if (last < 0) return "";
  const std::string now = classes[static_cast<std::size_t>(last)];
  int from = last;  // the first release of the last run of `now`
  while (from > 0 && (classes[static_cast<std::size_t>(from - 1)] == now ||
                      classes[static_cast<std::size_t>(from - 1)].empty()))
    --from;
  while (classes[static_cast<std::size_t>(from)].empty()) ++from;
  if (now == kWorks) return "works from " + releases[static_cast<std::size_t>(from)];
  bool worked = std::find(classes.begin(), classes.end(), kWorks) != classes.end();
  if (!worked) return now + " up to " + releases[static_cast<std::size_t>(last)];
  return now + " from " + releases[static_cast<std::size_t>(from)] + " (worked before)";
}

}  // namespace

std::vector<MatrixView> load_matrix_views(Db& db, const std::vector<std::string>& releases) {
  std::vector<MatrixView> out;
  for (const auto& m : list_support_matrices(db)) {
    if (m.versions.generator != kSyntheticGenerator) continue;
    if (!shown(releases, m.versions.onnxruntime)) continue;
    out.push_back({m, load_support_cells(db, m.id)});
  }
  for (const auto& r : releases) {
    bool found =
        std::any_of(out.begin(), out.end(), [&](const MatrixView& v) { return release(v) == r; });
    if (!found) throw UserError("no support matrix stored for onnxruntime " + terminal_safe(r));
  }
  std::stable_sort(out.begin(), out.end(), [](const MatrixView& a, const MatrixView& b) {
    return repro::version_less(release(a), release(b));
  });
  return out;
}

std::vector<SupportGap> support_gaps(const std::vector<MatrixView>& views,
                                     const SupportViewOptions& o) {
  std::vector<std::string> releases;
  for (const auto& v : views) releases.push_back(release(v));
  std::map<Key, SupportGap> gaps;
  std::set<Key> failing;
  for (std::size_t i = 0; i < views.size(); ++i)
    for (const auto& c : views[i].cells) {
      if (!shown(o, c) || c.cls == kNotInEager) continue;
      Key k{c.op, c.dtype, c.opset};
      SupportGap& g = gaps[k];
      if (g.classes.empty()) {
        g.op = c.op;
        g.dtype = c.dtype;
        g.opset = c.opset;
        g.classes.assign(views.size(), "");
      }
      g.classes[i] = c.cls;
      if (c.cls != kWorks) {
        failing.insert(k);
        g.message = first_line(c.message, 200);
      }
    }
  std::vector<SupportGap> out;
  for (auto& [k, g] : gaps) {
    if (!failing.count(k)) continue;
    g.summary = gap_summary(g.classes, releases);
    out.push_back(g);
  }
  return out;
}

namespace {

std::vector<std::string> shown_dtypes(const SupportViewOptions& o) {
  std::vector<std::string> out;
  for (const auto& t : all_dtypes())
    if (shown(o.dtypes, t)) out.push_back(t);
  return out;
}

std::set<int> opsets_of(const MatrixView& v, const SupportViewOptions& o) {
  std::set<int> out;
  for (const auto& c : v.cells)
    if (shown(o, c)) out.insert(c.opset);
  return out;
}

reports::Table summary_table(const std::vector<MatrixView>& views, const SupportViewOptions& o,
                             std::vector<reports::TableValue>& tidy) {
  reports::Table t;
  t.id = "support_summary";
  t.title = "Support matrix: cells per class";
  t.header = {"Release (opset)"};
  for (const auto& cls : support_classes()) t.header.push_back(cls);
  t.header.push_back("Cells");
  for (const auto& v : views)
    for (int opset : opsets_of(v, o)) {
      std::map<std::string, long> n;
      long cells = 0;
      for (const auto& c : v.cells)
        if (c.opset == opset && shown(o, c)) ++n[c.cls], ++cells;
      std::string label = "onnxruntime " + release(v) + " (" + std::to_string(opset) + ")";
      std::vector<std::string> row{label};
      for (const auto& cls : support_classes()) {
        row.push_back(std::to_string(n[cls]));
        tidy.push_back({label, cls, std::to_string(n[cls])});
      }
      row.push_back(std::to_string(cells));
      tidy.push_back({label, "Cells", std::to_string(cells)});
      t.rows.push_back(row);
    }
  t.note = "torch " + (views.empty() ? std::string("?") : views[0].matrix.versions.torch) +
           ", onnx " + (views.empty() ? std::string("?") : views[0].matrix.versions.onnx) +
           "; per cell single-operator models (first input of rank 4, 3 and 2, the first that does "
           "not work decides), 1 input set, rtol 1e-3, atol 1e-7.";
  return t;
}

reports::Table matrix_table(const MatrixView& v, int opset, const SupportViewOptions& o,
                            std::vector<reports::TableValue>& tidy) {
  reports::Table t;
  t.id = "support_" + release(v) + "_opset" + std::to_string(opset);
  t.title = "Operator x type on onnxruntime " + release(v) + ", opset " + std::to_string(opset);
  auto dtypes = shown_dtypes(o);
  t.header = {"Operator"};
  t.header.insert(t.header.end(), dtypes.begin(), dtypes.end());
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (const auto& c : v.cells)
    if (c.opset == opset && shown(o, c)) rows[c.op][c.dtype] = c.cls;
  for (const auto& [op, cls] : rows) {
    std::vector<std::string> row{op};
    for (const auto& d : dtypes) {
      auto it = cls.find(d);
      row.push_back(it == cls.end() ? "" : support_class_mark(it->second));
      if (it != cls.end()) tidy.push_back({op, d, it->second});
    }
    t.rows.push_back(row);
  }
  t.note =
      "+ works, . not in eager, E export raised, X invalid export (the checker refuses it), K no "
      "kernel, O other ONNX Runtime error, W wrong result, C crashed, ? invalid; empty: not "
      "measured.";
  return t;
}

reports::Table gaps_table(const std::vector<MatrixView>& views, const SupportViewOptions& o,
                          std::vector<reports::TableValue>& tidy) {
  reports::Table t;
  t.id = "support_gaps";
  t.title = "Gaps and the first release where they work";
  t.header = {"Operator", "Type", "Opset"};
  for (const auto& v : views) t.header.push_back(release(v));
  t.header.push_back("Summary");
  t.header.push_back("Message");
  for (const auto& g : support_gaps(views, o)) {
    std::string label = g.op + " " + g.dtype + " (" + std::to_string(g.opset) + ")";
    std::vector<std::string> row{g.op, g.dtype, std::to_string(g.opset)};
    for (std::size_t i = 0; i < views.size(); ++i) {
      row.push_back(g.classes[i]);
      if (!g.classes[i].empty()) tidy.push_back({label, release(views[i]), g.classes[i]});
    }
    row.push_back(g.summary);
    row.push_back(g.message);
    tidy.push_back({label, "Summary", g.summary});
    tidy.push_back({label, "Message", g.message});
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace

reports::PrintedReport printed_support(const std::vector<MatrixView>& views,
                                       const SupportViewOptions& o) {
  reports::PrintedReport r;
  r.title = "convfail support matrix";
  r.tables.push_back(summary_table(views, o, r.tidy["support_summary"]));
  r.tables.push_back(gaps_table(views, o, r.tidy["support_gaps"]));
  for (const auto& v : views)
    for (int opset : opsets_of(v, o)) {
      std::vector<reports::TableValue> tidy;  // class names, where the table shows marks
      reports::Table t = matrix_table(v, opset, o, tidy);
      r.tidy[t.id] = std::move(tidy);
      r.tables.push_back(std::move(t));
    }
  return r;
}

json support_json(const std::vector<MatrixView>& views, const SupportViewOptions& o) {
  json matrices = json::array();
  for (const auto& v : views) {
    json cells = json::array();
    std::map<std::string, long> per_class;
    for (const auto& c : v.cells) {
      if (!shown(o, c)) continue;
      ++per_class[c.cls];
      cells.push_back({{"op", c.op},
                       {"dtype", c.dtype},
                       {"opset", c.opset},
                       {"class", c.cls},
                       {"stage", c.stage},
                       {"message", c.message},
                       {"seconds", c.seconds}});
    }
    const SupportVersions& sv = v.matrix.versions;
    matrices.push_back({{"id", v.matrix.id},
                        {"torch", sv.torch},
                        {"onnx", sv.onnx},
                        {"onnxruntime", sv.onnxruntime},
                        {"generator", sv.generator},
                        {"created_at", v.matrix.created_at},
                        {"cells_per_class", per_class},
                        {"cells", cells}});
  }
  json gaps = json::array();
  for (const auto& g : support_gaps(views, o))
    gaps.push_back({{"op", g.op},
                    {"dtype", g.dtype},
                    {"opset", g.opset},
                    {"classes", g.classes},
                    {"summary", g.summary},
                    {"message", g.message}});
  return {{"classes", support_classes()}, {"matrices", matrices}, {"gaps", gaps}};
}

std::string render_support(const std::vector<MatrixView>& views, const SupportViewOptions& o,
                           reports::ReportFormat format, bool raw_csv) {
  switch (format) {
    case reports::ReportFormat::kJson:
      return json_text(support_json(views, o), 2) + "\n";
    case reports::ReportFormat::kCsv:
      return reports::render_csv(printed_support(views, o), raw_csv);
    case reports::ReportFormat::kLatex:
      return reports::render_latex(printed_support(views, o));
    case reports::ReportFormat::kHtml:
      return reports::render_html(printed_support(views, o));
    case reports::ReportFormat::kMarkdown:
      break;
  }
  return reports::render_markdown(printed_support(views, o));
}

}  // namespace convfail::campaign
