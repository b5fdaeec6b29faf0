#include <algorithm>

#include "reports/render.h"

namespace convfail::reports {
namespace {

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Dark and light fills alternate so that bars stay distinct on a grey-scale printout; every
// bar also carries its value.
const char* kFills[] = {"#1f4e79", "#9dc3e6", "#c55a11", "#f4b183", "#548235", "#c9e2b3"};

// A step of 1, 2 or 5 times a power of ten giving at most five ticks up to `max`.
long tick_step(long max) {
  long step = 1;
  for (long power = 1;; power *= 10) {
    for (long m : {1, 2, 5}) {
      step = m * power;
      if (max <= 5 * step) return step;
    }
  }
}

std::string svg_chart(const BarChart& c) {
  const int bar = 16, gap = 18, top = 30, plot = 180;
  const int series = static_cast<int>(std::max<std::size_t>(c.series.size(), 1));
  const int group = series * bar + gap;
  // Category labels are rotated by 35 degrees to the lower left of their group's centre. Widths
  // are estimated at 7 px per character of the 11 px font (generous for proportional fonts), so
  // that no label is clipped: the left margin holds the tick labels and every label's reach to
  // the left of its group (cos 35 = 0.82), the bottom margin the longest one's drop (sin 35).
  auto text_px = [](const std::string& t) {
    int chars = 0;
    for (unsigned char ch : t) chars += (ch & 0xC0) != 0x80;  // code points, not bytes
    return 7.0 * chars;
  };
  long max = 1;
  for (const auto& v : c.values)
    for (long n : v) max = std::max(max, n);
  const long step = tick_step(max);
  const long axis_max = (max + step - 1) / step * step;
  double widest = 0, reach = 0;
  for (std::size_t i = 0; i < c.categories.size(); ++i) {
    double w = text_px(c.categories[i]);
    widest = std::max(widest, w);
    reach = std::max(reach,
                     0.82 * w - (static_cast<double>(i) * group + gap / 2.0 + series * bar / 2.0));
  }
  const int tick_label = static_cast<int>(text_px(std::to_string(axis_max))) + 12;
  const int left = std::max({60, tick_label, static_cast<int>(reach) + 12});
  const int bottom = std::max(60, static_cast<int>(0.57 * widest) + 30);
  int legend = left;
  for (const auto& name : c.series) legend += 24 + static_cast<int>(text_px(name));
  const int width =
      std::max({left + static_cast<int>(c.categories.size()) * group + 20, legend + 10, 320});
  const int height = top + plot + bottom;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" +
                  std::to_string(width) + "\" height=\"" + std::to_string(height) +
                  "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                  "\">\n<title>" + esc(c.title) + "</title>\n";
  const int base = top + plot;
  auto y_of = [&](long n) {
    return base - static_cast<int>(static_cast<double>(n) * plot / axis_max + 0.5);
  };
  // The y axis: ticks at each step with their value and a light grid line.
  for (long v = 0; v <= axis_max; v += step) {
    int y = y_of(v);
    if (v > 0)
      s += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(y) + "\" x2=\"" +
           std::to_string(width - 10) + "\" y2=\"" + std::to_string(y) +
           "\" stroke=\"#d0d0d0\" stroke-width=\"0.5\"/>\n";
    s += "<line x1=\"" + std::to_string(left - 4) + "\" y1=\"" + std::to_string(y) + "\" x2=\"" +
         std::to_string(left) + "\" y2=\"" + std::to_string(y) +
         "\" stroke=\"#000\" stroke-width=\"1\"/>\n<text x=\"" + std::to_string(left - 7) +
         "\" y=\"" + std::to_string(y + 3) + "\" text-anchor=\"end\" font-size=\"10\">" +
         std::to_string(v) + "</text>\n";
  }
  s += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(top) + "\" x2=\"" +
       std::to_string(left) + "\" y2=\"" + std::to_string(base) +
       "\" stroke=\"#000\" stroke-width=\"1\"/>\n";
  s += "<line x1=\"" + std::to_string(left) + "\" y1=\"" + std::to_string(base) + "\" x2=\"" +
       std::to_string(width - 10) + "\" y2=\"" + std::to_string(base) +
       "\" stroke=\"#000\" stroke-width=\"1\"/>\n";
  // Legend across the top.
  int lx = left;
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    s += "<rect x=\"" + std::to_string(lx) + "\" y=\"6\" width=\"12\" height=\"12\" fill=\"" +
         kFills[k % 6] + "\" stroke=\"#000\" stroke-width=\"0.5\"/>\n<text x=\"" +
         std::to_string(lx + 16) + "\" y=\"16\" font-size=\"11\">" + esc(c.series[k]) + "</text>\n";
    lx += 24 + static_cast<int>(text_px(c.series[k]));
  }
  for (std::size_t i = 0; i < c.categories.size(); ++i) {
    int gx = left + static_cast<int>(i) * group + gap / 2;
    for (std::size_t k = 0; k < c.values[i].size(); ++k) {
      long n = c.values[i][k];
      int h = base - y_of(n);
      int x = gx + static_cast<int>(k) * bar;
      s += "<rect x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(base - h) + "\" width=\"" +
           std::to_string(bar - 2) + "\" height=\"" + std::to_string(h) + "\" fill=\"" +
           kFills[k % 6] + "\" stroke=\"#000\" stroke-width=\"0.5\"/>\n";
      s += "<text x=\"" + std::to_string(x + bar / 2 - 1) + "\" y=\"" +
           std::to_string(base - h - 3) + "\" text-anchor=\"middle\" font-size=\"9\">" +
           std::to_string(n) + "</text>\n";
    }
    int cx = gx + series * bar / 2;
    s += "<text x=\"" + std::to_string(cx) + "\" y=\"" + std::to_string(base + 12) +
         "\" text-anchor=\"end\" font-size=\"11\" transform=\"rotate(-35 " + std::to_string(cx) +
         " " + std::to_string(base + 12) + ")\">" + esc(c.categories[i]) + "</text>\n";
  }
  return s + "</svg>\n";
}

// A table in a box that scrolls sideways when it is wider than the page (a year per column).
std::string table(const Table& t) {
  std::string s =
      "<div class=\"wide\">\n<table>\n<caption>" + esc(t.title) + "</caption>\n<thead><tr>";
  for (const auto& h : t.header) s += "<th>" + esc(h) + "</th>";
  s += "</tr></thead>\n<tbody>\n";
  for (const auto& r : t.rows) {
    s += r[0] == "Total" ? "<tr class=\"total\">" : "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i)
      s += (i == 0 ? "<th scope=\"row\">" : "<td>") + esc(r[i]) + (i == 0 ? "</th>" : "</td>");
    s += "</tr>\n";
  }
  s += "</tbody>\n</table>\n</div>\n";
  if (!t.note.empty()) s += "<p class=\"note\">" + esc(t.note) + "</p>\n";
  return s;
}

const char* kStyle =
    "body{font-family:Georgia,serif;max-width:60em;margin:2em auto;color:#000;background:#fff}\n"
    "table{border-collapse:collapse;margin:1em 0}caption{font-weight:bold;text-align:left;"
    "padding-bottom:.3em}\n"
    "thead th{border-top:2px solid #000;border-bottom:1px solid #000}"
    "tbody tr:last-child th,tbody tr:last-child td{border-bottom:2px solid #000}\n"
    "th,td{padding:.2em .7em}td{text-align:right}tr.total th,tr.total td{border-top:1px solid "
    "#000}\n"
    "section{break-inside:avoid;page-break-inside:avoid}.note{font-size:.9em}\n"
    // A chart wider than the page is scaled to it (its viewBox keeps the proportions), as serve
    // shows it; a wide table scrolls in its own box.
    "figure{margin:1em 0}svg{max-width:100%;height:auto}.wide{overflow-x:auto;max-width:100%}\n"
    "@media print{body{margin:0;max-width:none}.wide{overflow:visible}}\n";

}  // namespace

std::string render_html(const PrintedReport& report) {
  std::string s =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<title>" +
      esc(report.title) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n<h1>" +
      esc(report.title) + "</h1>\n";
  for (const auto& t : report.tables) {
    s += "<section id=\"" + esc(t.id) + "\">\n<h2>" + esc(t.title) + "</h2>\n" + table(t);
    for (const auto& c : report.charts)
      if (c.table_id == t.id) s += "<figure>\n" + svg_chart(c) + "</figure>\n";
    s += "</section>\n";
  }
  return s + "</body>\n</html>\n";
}

}  // namespace convfail::reports
