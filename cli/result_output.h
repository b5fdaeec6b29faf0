// How `reproduce` prints its results (repro_output.h fills it from what the library returns):
// text lines, one JSON document {"results": [...], "totals": {...}} (--json), or JSON Lines, one
// result per line and a last line {"totals": {...}} (--jsonl, for streaming long runs).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace convfail::cli {

enum class OutputFormat { kText, kJson, kJsonl };

// What people read under a verdict's line (the signature on that line is for grouping): the
// message's first `max_message_lines` lines ("message: " before the first) and of the
// traceback's ("traceback: " before the first), "... N more lines" after a cut, each made
// printable on its own (a stored newline starts a new line, nothing else can move the cursor).
inline std::vector<std::string> message_lines(const std::string& message,
                                              const std::string& traceback,
                                              std::size_t max_message_lines = 12,
                                              std::size_t max_traceback_lines = 8) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& label, const std::string& text, std::size_t max_lines) {
    std::size_t start = 0, count = 0, total = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (count < max_lines) {
        std::string line = terminal_safe(text.substr(start, end - start), false, false);
        out.push_back(count == 0 ? label + line : std::string(label.size(), ' ') + line);
        ++count;
      }
      ++total;
      start = end + 1;
    }
    if (total > count)
      out.push_back(std::string(label.size(), ' ') + "... " + std::to_string(total - count) +
                    " more lines (--json shows all)");
  };
  if (!message.empty()) add("message: ", message, max_message_lines);
  if (!traceback.empty()) add("traceback: ", traceback, max_traceback_lines);
  return out;
}

class ResultOutput {
 public:
  ResultOutput(OutputFormat format, std::ostream& out) : format_(format), out_(out) {}

  bool is_text() const { return format_ == OutputFormat::kText; }

  // One result: `line` in text mode (escaped: it quotes model and script errors) and the
  // `more` lines under it, indented (message_lines; already printable), `j` otherwise.
  // Streams (text, JSON Lines) are flushed so a long run shows progress.
  void result(const std::string& line, nlohmann::json j,
              const std::vector<std::string>& more = {}) {
    if (format_ == OutputFormat::kText) {
      out_ << terminal_safe(line) << "\n";
      for (const std::string& m : more) out_ << "    " << m << "\n";
      out_ << std::flush;
    } else if (format_ == OutputFormat::kJsonl) {
      out_ << j.dump() << "\n" << std::flush;
    } else {
      results_.push_back(std::move(j));
    }
  }

  // After the last result: nothing in text mode (the caller prints its own summary), the
  // totals line (JSON Lines) or the whole document (JSON); `summary` (what was found, run and
  // left out: ReproduceSummary) goes beside the totals when it is not null.
  void finish(const nlohmann::json& totals, const nlohmann::json& summary = nullptr) {
    nlohmann::json last = {{"totals", totals}};
    if (!summary.is_null()) last["summary"] = summary;
    if (format_ == OutputFormat::kJsonl) {
      out_ << last.dump() << "\n";
    } else if (format_ == OutputFormat::kJson) {
      last["results"] = results_;
      out_ << last.dump(2) << "\n";
    }
    out_ << std::flush;
  }

 private:
  OutputFormat format_;
  std::ostream& out_;
  nlohmann::json results_ = nlohmann::json::array();
};

}  // namespace convfail::cli
