// How `reproduce` prints its results: text lines, one JSON document
// {"results": [...], "totals": {...}} (--json), or JSON Lines, one result per line and a last
// line {"totals": {...}} (--jsonl, for streaming long runs).
#pragma once

#include <ostream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/text.h"

namespace convfail::repro {

enum class OutputFormat { kText, kJson, kJsonl };

class ResultOutput {
 public:
  ResultOutput(OutputFormat format, std::ostream& out) : format_(format), out_(out) {}

  bool is_text() const { return format_ == OutputFormat::kText; }

  // One result: `line` in text mode (escaped: it quotes model and script errors), `j` otherwise.
  // Streams (text, JSON Lines) are flushed so a long run shows progress.
  void result(const std::string& line, nlohmann::json j) {
    if (format_ == OutputFormat::kText) {
      out_ << terminal_safe(line) << "\n" << std::flush;
    } else if (format_ == OutputFormat::kJsonl) {
      out_ << j.dump() << "\n" << std::flush;
    } else {
      results_.push_back(std::move(j));
    }
  }

  // After the last result: nothing in text mode (the caller prints its own summary), the
  // totals line (JSON Lines) or the whole document (JSON).
  void finish(const nlohmann::json& totals) {
    if (format_ == OutputFormat::kJsonl)
      out_ << nlohmann::json{{"totals", totals}}.dump() << "\n";
    else if (format_ == OutputFormat::kJson)
      out_ << nlohmann::json{{"results", results_}, {"totals", totals}}.dump(2) << "\n";
    out_ << std::flush;
  }

 private:
  OutputFormat format_;
  std::ostream& out_;
  nlohmann::json results_ = nlohmann::json::array();
};

}  // namespace convfail::repro
