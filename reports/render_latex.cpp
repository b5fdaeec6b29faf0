#include <cctype>

#include "reports/render.h"

namespace convfail::reports {
namespace {

std::string tex(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}':
        out += '\\';
        out += c;
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      case '\\':
        out += "\\textbackslash{}";
        break;
      default:
        out += c;
    }
  }
  // The arrow of the differences table.
  for (std::size_t p; (p = out.find("\xE2\x86\x92")) != std::string::npos;)
    out.replace(p, 3, "$\\rightarrow$");
  return out;
}

std::string row(const std::vector<std::string>& cells) {
  std::string s;
  for (std::size_t i = 0; i < cells.size(); ++i) s += (i ? " & " : "") + tex(cells[i]);
  return s + " \\\\\n";
}

// A \label key LaTeX takes as it is: letters, digits and - (stage_by_converter ->
// stage-by-converter).
std::string label_key(const std::string& id) {
  std::string out;
  for (char c : id) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

// A comment line: the text on one line.
std::string comment(const std::string& s) {
  std::string out = "% ";
  for (char c : s) out += c == '\n' || c == '\r' ? ' ' : c;
  return out + "\n";
}

}  // namespace

std::string render_latex(const PrintedReport& report, bool standalone) {
  std::string out =
      standalone
          ? "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n"
            "\\begin{document}\n\\section*{" +
                tex(report.title) + "}\n"
          : comment(report.title) +
                "% Table fragments for \\input{}; they need \\usepackage{booktabs}.\n";
  for (const auto& t : report.tables) {
    out += "\n\\begin{table}[ht]\n\\centering\n\\caption{" + tex(t.title) +
           "}\n\\label{tab:" + label_key(t.id) + "}\n\\begin{tabular}{l" +
           std::string(t.header.size() - 1, 'r') + "}\n" + "\\toprule\n" + row(t.header) +
           "\\midrule\n";
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      // The totals row gets its own rule, as in the paper.
      if (i + 1 == t.rows.size() && t.rows[i][0] == "Total" && i > 0) out += "\\midrule\n";
      out += row(t.rows[i]);
    }
    out += "\\bottomrule\n\\end{tabular}\n";
    if (!t.note.empty()) out += "\n\\smallskip\n{\\small " + tex(t.note) + "}\n";
    out += "\\end{table}\n";
  }
  return standalone ? out + "\n\\end{document}\n" : out;
}

}  // namespace convfail::reports
