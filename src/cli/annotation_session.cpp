#include "cli/annotation_session.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "cli/issue_view.h"
#include "core/error.h"
#include "core/text.h"
#include "core/text_wrap.h"
#include "labeling/manual_labels.h"

namespace convfail::cli {

AnnotationSession::AnnotationSession(Db& db, const Taxonomy& tax, labeling::StoredSession session,
                                     SessionConfig config)
    : db_(db), tax_(tax), session_(std::move(session)), config_(std::move(config)) {
  replay();
}

void AnnotationSession::replay() {
  answers_.clear();
  labeling::ManualLabels store(db_);
  for (const labeling::ManualLabelRow& r : store.rows_from_source(session_.source())) {
    if (r.annotator != session_.annotator) continue;
    if (r.kind == "undo") {
      if (!answers_.empty()) answers_.pop_back();
      continue;
    }
    Question q = next_question();
    answers_.push_back({q.item, r.dimension, r.id, r.value, r.kind});
  }
}

std::optional<std::string> AnnotationSession::cause_for(std::size_t item) const {
  for (auto it = answers_.rbegin(); it != answers_.rend(); ++it)
    if (it->item == item && it->dimension == "cause")
      return it->kind == "skip" ? std::nullopt : it->value;
  // Adjudication of a subtype where the cause is agreed: the first annotator's cause.
  if (!config_.compare.empty()) {
    labeling::ManualLabels store(db_);
    return store.current(session_.items[item].issue_id, config_.compare.front(), "cause");
  }
  return std::nullopt;
}

std::vector<std::string> AnnotationSession::dimensions_for(std::size_t item) const {
  const auto& asked = session_.items[item].dimensions;
  std::vector<std::string> dims = asked.empty() ? labeling::manual_dimensions() : asked;
  auto cause = cause_for(item);
  bool has_subtypes = cause && !tax_.subtype_ids(*cause).empty();
  if (!has_subtypes) dims.erase(std::remove(dims.begin(), dims.end(), "subtype"), dims.end());
  return dims;
}

AnnotationSession::Question AnnotationSession::first_question_from(std::size_t item) const {
  for (; item < session_.items.size(); ++item) {
    auto dims = dimensions_for(item);
    if (!dims.empty()) return {item, dims.front()};
  }
  return {session_.items.size(), ""};
}

AnnotationSession::Question AnnotationSession::next_question() const {
  if (answers_.empty()) return first_question_from(0);
  const Answer& last = answers_.back();
  if (last.kind == "skip") return first_question_from(last.item + 1);
  auto dims = dimensions_for(last.item);
  auto it = std::find(dims.begin(), dims.end(), last.dimension);
  if (it != dims.end() && it + 1 != dims.end()) return {last.item, *(it + 1)};
  return first_question_from(last.item + 1);
}

bool AnnotationSession::finished() const {
  return next_question().item >= session_.items.size();
}

std::size_t AnnotationSession::done_items() const {
  return next_question().item;
}

std::vector<std::string> AnnotationSession::choices(const Question& q) const {
  if (q.dimension == "subtype") {
    auto cause = cause_for(q.item);
    return cause ? tax_.subtype_ids(*cause) : std::vector<std::string>{};
  }
  return tax_.label_ids(q.dimension);
}

namespace {

const char* kHelp =
    "keys: Enter/a accept suggestion · number pick a label (type both digits of 10-14: a pending "
    "first digit lists what it completes) · s skip issue · u undo (back) · n note · m more text · "
    "? help and the codebook · q quit\n";

std::string fixed2(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << v;
  return s.str();
}

}  // namespace

void AnnotationSession::apply_rerank(std::size_t from, std::ostream& out) {
  std::optional<std::vector<std::int64_t>> order = config_.rerank(from, session_.items);
  if (!order) return;
  std::vector<labeling::QueueItem> tail(session_.items.begin() + static_cast<long>(from),
                                        session_.items.end());
  std::map<std::int64_t, std::size_t> at;
  for (std::size_t i = 0; i < tail.size(); ++i) at[tail[i].issue_id] = i;
  if (order->size() != tail.size()) return;  // not a permutation of the tail: ignored
  std::vector<labeling::QueueItem> next;
  std::set<std::int64_t> seen;
  for (std::int64_t id : *order) {
    auto it = at.find(id);
    if (it == at.end() || !seen.insert(id).second) return;
    next.push_back(tail[it->second]);
  }
  labeling::replace_session_tail(db_, session_.id, from, next);
  std::copy(next.begin(), next.end(), session_.items.begin() + static_cast<long>(from));
  out << "(queue re-ranked: " << next.size() << " issue(s) left)\n";
}

SessionSummary AnnotationSession::run(KeyReader& keys, std::ostream& out) {
  SessionSummary summary;
  summary.total_items = session_.items.size();
  labeling::ManualLabels store(db_);
  const bool adjudicate = session_.mode == "adjudicate";
  const std::string kind = adjudicate ? "adjudication" : "label";
  std::string green = config_.colour ? "\x1b[32m" : "", bold = config_.colour ? "\x1b[1m" : "",
              dim_c = config_.colour ? "\x1b[2m" : "", reset = config_.colour ? "\x1b[0m" : "";
  std::optional<std::size_t> shown;
  std::unique_ptr<IssueView> view;
  std::size_t page_start = 0;
  std::optional<std::string> note;

  // Every line shown fits the window (config_.width): issue text is wrapped before it is paged.
  std::vector<std::string> lines;
  auto print_wrapped = [&](const std::string& text) {
    std::size_t at = 0;
    while (at <= text.size()) {
      std::size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      if (nl == text.size() && at == nl && at > 0) break;  // the text ended with a newline
      for (const std::string& piece :
           wrap_columns(std::string_view(text).substr(at, nl - at), config_.width))
        out << piece << "\n";
      at = nl + 1;
    }
  };
  auto show_page = [&] {
    std::size_t end = std::min(lines.size(), page_start + config_.page_lines);
    for (std::size_t i = page_start; i < end; ++i) out << "  " << lines[i] << "\n";
    if (end < lines.size())
      out << dim_c << "  -- " << lines.size() - end << " more line(s): m --" << reset << "\n";
    else if (page_start > 0 || end == lines.size())
      out << dim_c << "  -- end of text --" << reset << "\n";
    page_start = end;
  };

  print_wrapped(kHelp);
  while (true) {
    Question q = next_question();
    if (q.item >= session_.items.size()) {
      summary.finished = true;
      out << "Queue finished: " << session_.items.size() << " issue(s).\n";
      break;
    }
    if ((!shown || *shown != q.item) && config_.rerank &&
        (answers_.empty() || answers_.back().item < q.item))
      apply_rerank(q.item, out);
    const labeling::QueueItem& item = session_.items[q.item];
    if (!shown || *shown != q.item) {
      std::optional<views::IssueDossier> dossier = views::build_dossier(db_, tax_, item.issue_id);
      if (!dossier)
        throw UserError("issue id " + std::to_string(item.issue_id) +
                        " of the queue is not stored");
      view = std::make_unique<IssueView>(*dossier, config_.colour);
      lines.clear();
      for (const std::string& line : view->lines())
        for (std::string& piece :
             wrap_columns(line, config_.width > 4 ? config_.width - 2 : config_.width))
          lines.push_back(std::move(piece));
      shown = q.item;
      page_start = 0;
      note.reset();
      out << "\n";
      std::ostringstream head;
      head << bold << "[" << q.item + 1 << "/" << session_.items.size() << "] " << reset
           << view->header();
      print_wrapped(head.str());
      show_page();
    }
    std::vector<std::string> options = choices(q);
    std::optional<std::string> suggestion;
    auto s = view->suggestions().find(q.dimension);
    if (s != view->suggestions().end() &&
        std::find(options.begin(), options.end(), s->second.label) != options.end())
      suggestion = s->second.label;
    out << bold << q.dimension << reset;
    if (suggestion)
      out << "  suggestion: " << green << *suggestion << reset << " ("
          << fixed2(s->second.confidence) << ")";
    else
      out << "  no suggestion";
    out << "\n";
    if (suggestion)
      for (const auto& e : s->second.evidence) print_wrapped("    evidence: " + e);
    for (const auto& name : config_.compare) {
      auto v = store.current(item.issue_id, name, q.dimension);
      auto pos = v ? std::find(options.begin(), options.end(), *v) : options.end();
      out << "    " << terminal_safe(name) << ": " << terminal_safe(v.value_or("-"));
      if (pos != options.end()) out << " [" << (pos - options.begin()) + 1 << "]";
      out << "\n";
    }
    std::string row = "   ";
    for (std::size_t i = 0; i < options.size(); ++i) {
      std::string entry = " " + std::to_string(i + 1) + " " + options[i];
      if (row.size() + entry.size() >
          (config_.width > 0 ? std::min<std::size_t>(96, config_.width) : 96)) {
        out << row << "\n";
        row = "   ";
      }
      row += entry;
    }
    out << row << "\n" << q.dimension << "> " << std::flush;

    auto key = keys.next(options);
    if (!key) {
      out << "\n";
      break;  // end of input: like quit
    }
    out << *key << "\n";
    const std::string& k = *key;
    std::optional<std::string> chosen;
    if (k == "q") break;
    if (k == "?") {
      print_wrapped(kHelp);
      out << bold << "codebook: " << q.dimension << reset << "\n";
      for (std::size_t i = 0; i < options.size(); ++i) {
        const TaxonomyLabel* l = tax_.find_label(q.dimension, options[i]);
        if (!l) continue;
        out << std::setw(4) << i + 1 << " " << bold << options[i] << reset << ": " << l->definition
            << "\n"
            << dim_c << "       e.g. " << l->example << reset << "\n";
      }
    } else if (k == "m") {
      if (page_start >= lines.size()) page_start = 0;  // back to the start
      show_page();
    } else if (k == "n") {
      out << "note: " << std::flush;
      note = keys.line();
      if (note && note->empty()) note.reset();
    } else if (k == "u") {
      if (answers_.empty()) {
        out << "nothing to undo in this session\n";
      } else {
        Answer last = answers_.back();
        std::int64_t issue = session_.items[last.item].issue_id;
        auto previous = store.value_before(issue, session_.annotator, last.dimension, last.row_id);
        store.append(issue, session_.annotator, last.dimension, previous, "undo", std::nullopt,
                     session_.source());
        answers_.pop_back();
        ++summary.undone;
        out << "undone: " << last.dimension << " of "
            << (last.item == q.item ? view->ref() : "the previous issue") << "\n";
      }
    } else if (k == "s") {
      std::int64_t id = store.append(item.issue_id, session_.annotator, q.dimension, std::nullopt,
                                     "skip", note, session_.source());
      answers_.push_back({q.item, q.dimension, id, std::nullopt, "skip"});
      ++summary.skipped;
      note.reset();
      out << "skipped " << view->ref() << "\n";
    } else if (k.empty() || k == "a") {
      if (suggestion)
        chosen = suggestion;
      else
        out << "no suggestion here: type the number of a label\n";
    } else if (std::all_of(k.begin(), k.end(), ::isdigit) && k.size() <= 3) {
      std::size_t n = std::stoul(k);
      if (n >= 1 && n <= options.size())
        chosen = options[n - 1];
      else
        out << "no label " << k << " (1-" << options.size() << ")\n";
    } else {
      out << "unknown key \"" << k << "\"\n";
      print_wrapped(kHelp);
    }
    if (chosen) {
      std::int64_t id = store.append(item.issue_id, session_.annotator, q.dimension, chosen, kind,
                                     note, session_.source());
      answers_.push_back({q.item, q.dimension, id, chosen, kind});
      ++summary.answered;
      note.reset();
      out << green << "  " << q.dimension << " = " << *chosen << reset << "\n";
    }
  }
  summary.done_items = done_items();
  summary.finished = summary.done_items >= session_.items.size();
  return summary;
}

OpenedSession open_session(Db& db, const Taxonomy& tax, const std::string& annotator,
                           const std::string& mode, const std::string& queue,
                           const std::string& params, const SessionConfig& config,
                           const std::function<std::vector<labeling::QueueItem>()>& build) {
  if (auto latest = labeling::find_latest_session(db, annotator, mode, queue, params)) {
    AnnotationSession probe(db, tax, *latest, config);
    if (!probe.finished()) return {std::move(*latest), true};
  }
  std::vector<labeling::QueueItem> items = build();
  if (items.empty()) throw UserError("nothing to " + mode + ": the " + queue + " queue is empty");
  return {labeling::create_session(db, annotator, mode, queue, params, items), false};
}

}  // namespace convfail::cli
