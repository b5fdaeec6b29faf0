#include "cli/annotation_session.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "cli/issue_view.h"
#include "cli/text_wrap.h"
#include "core/error.h"
#include "core/text.h"
#include "labeling/manual_labels.h"
#include "labeling/question_order.h"

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

// What the session knows of an item: the cause answered for it in this session (a skipped
// cause is none); adjudicating, when none is answered, the first compared annotator's cause.
labeling::QuestionState AnnotationSession::question_state(std::size_t item) const {
  labeling::QuestionState state{session_.items[item].dimensions, std::nullopt, std::nullopt};
  for (auto it = answers_.rbegin(); it != answers_.rend(); ++it)
    if (it->item == item && it->dimension == "cause") {
      state.given_cause = it->kind == "skip" ? std::nullopt : it->value;
      return state;
    }
  if (!config_.compare.empty()) {
    labeling::ManualLabels store(db_);
    state.compared_cause =
        store.current(session_.items[item].issue_id, config_.compare.front(), "cause");
  }
  return state;
}

std::vector<labeling::Question> AnnotationSession::questions_for(std::size_t item) const {
  return labeling::item_questions(tax_, question_state(item));
}

AnnotationSession::Question AnnotationSession::first_question_from(std::size_t item) const {
  for (; item < session_.items.size(); ++item) {
    auto questions = questions_for(item);
    if (!questions.empty()) return {item, questions.front().dimension};
  }
  return {session_.items.size(), ""};
}

AnnotationSession::Question AnnotationSession::next_question() const {
  if (answers_.empty()) return first_question_from(0);
  const Answer& last = answers_.back();
  if (last.kind == "skip") return first_question_from(last.item + 1);
  if (auto next = labeling::dimension_after(questions_for(last.item), last.dimension))
    return {last.item, *next};
  return first_question_from(last.item + 1);
}

bool AnnotationSession::finished() const {
  return next_question().item >= session_.items.size();
}

std::size_t AnnotationSession::done_items() const {
  return next_question().item;
}

std::vector<std::string> AnnotationSession::choices(const Question& q) const {
  for (const labeling::Question& asked : questions_for(q.item))
    if (asked.dimension == q.dimension) return asked.choice_ids();
  return {};
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

// What the terminal shows of the session: colours, the issue on screen, its wrapped text and the
// page reached, and the note waiting for the next answer.
struct AnnotationSession::Screen {
  Screen(std::ostream& o, const SessionConfig& c) : out(o), config(c) {}
  std::ostream& out;
  const SessionConfig& config;
  std::string green = config.colour ? "\x1b[32m" : "", bold = config.colour ? "\x1b[1m" : "",
              dim = config.colour ? "\x1b[2m" : "", reset = config.colour ? "\x1b[0m" : "";
  std::optional<std::size_t> shown;  // the queue item on screen
  std::unique_ptr<IssueView> view;
  std::vector<std::string> lines;  // the issue's text, wrapped to the window
  std::size_t page_start = 0;
  std::optional<std::string> note;

  // Every line shown fits the window (config.width): issue text is wrapped before it is paged.
  void print_wrapped(const std::string& text) {
    std::size_t at = 0;
    while (at <= text.size()) {
      std::size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      if (nl == text.size() && at == nl && at > 0) break;  // the text ended with a newline
      for (const std::string& piece :
           wrap_columns(std::string_view(text).substr(at, nl - at), config.width))
        out << piece << "\n";
      at = nl + 1;
    }
  }

  void show_page() {
    std::size_t end = std::min(lines.size(), page_start + config.page_lines);
    for (std::size_t i = page_start; i < end; ++i) out << "  " << lines[i] << "\n";
    if (end < lines.size())
      out << dim << "  -- " << lines.size() - end << " more line(s): m --" << reset << "\n";
    else if (page_start > 0 || end == lines.size())
      out << dim << "  -- end of text --" << reset << "\n";
    page_start = end;
  }
};

void AnnotationSession::show_issue(Screen& screen, std::size_t item) {
  std::int64_t issue_id = session_.items[item].issue_id;
  std::optional<views::IssueDossier> dossier = views::build_dossier(db_, tax_, issue_id);
  if (!dossier)
    throw UserError("issue id " + std::to_string(issue_id) + " of the queue is not stored");
  screen.view = std::make_unique<IssueView>(*dossier, config_.colour);
  screen.lines.clear();
  for (const std::string& line : screen.view->lines())
    for (std::string& piece :
         wrap_columns(line, config_.width > 4 ? config_.width - 2 : config_.width))
      screen.lines.push_back(std::move(piece));
  screen.shown = item;
  screen.page_start = 0;
  screen.note.reset();
  screen.out << "\n";
  std::ostringstream head;
  head << screen.bold << "[" << item + 1 << "/" << session_.items.size() << "] " << screen.reset
       << screen.view->header();
  screen.print_wrapped(head.str());
  screen.show_page();
}

AnnotationSession::Prompt AnnotationSession::ask(Screen& screen, const Question& q,
                                                 labeling::ManualLabels& store) {
  std::ostream& out = screen.out;
  Prompt p;
  p.options = choices(q);
  auto s = screen.view->suggestions().find(q.dimension);
  if (s != screen.view->suggestions().end() &&
      std::find(p.options.begin(), p.options.end(), s->second.label) != p.options.end())
    p.suggestion = s->second.label;
  out << screen.bold << q.dimension << screen.reset;
  if (p.suggestion)
    out << "  suggestion: " << screen.green << *p.suggestion << screen.reset << " ("
        << fixed2(s->second.confidence) << ")";
  else
    out << "  no suggestion";
  out << "\n";
  if (p.suggestion)
    for (const auto& e : s->second.evidence) screen.print_wrapped("    evidence: " + e);
  // Adjudication: the annotators' labels beside the question.
  for (const auto& name : config_.compare) {
    auto v = store.current(session_.items[q.item].issue_id, name, q.dimension);
    auto pos = v ? std::find(p.options.begin(), p.options.end(), *v) : p.options.end();
    out << "    " << terminal_safe(name) << ": " << terminal_safe(v.value_or("-"));
    if (pos != p.options.end()) out << " [" << (pos - p.options.begin()) + 1 << "]";
    out << "\n";
  }
  std::string row = "   ";
  for (std::size_t i = 0; i < p.options.size(); ++i) {
    std::string entry = " " + std::to_string(i + 1) + " " + p.options[i];
    if (row.size() + entry.size() >
        (config_.width > 0 ? std::min<std::size_t>(96, config_.width) : 96)) {
      out << row << "\n";
      row = "   ";
    }
    row += entry;
  }
  out << row << "\n" << q.dimension << "> " << std::flush;
  return p;
}

void AnnotationSession::show_codebook(Screen& screen, const Question& q, const Prompt& p) const {
  screen.print_wrapped(kHelp);
  screen.out << screen.bold << "codebook: " << q.dimension << screen.reset << "\n";
  for (std::size_t i = 0; i < p.options.size(); ++i) {
    const TaxonomyLabel* l = tax_.find_label(q.dimension, p.options[i]);
    if (!l) continue;
    screen.out << std::setw(4) << i + 1 << " " << screen.bold << p.options[i] << screen.reset
               << ": " << l->definition << "\n"
               << screen.dim << "       e.g. " << l->example << screen.reset << "\n";
  }
}

void AnnotationSession::undo_last(Screen& screen, const Question& q, labeling::ManualLabels& store,
                                  SessionSummary& summary) {
  if (answers_.empty()) {
    screen.out << "nothing to undo in this session\n";
    return;
  }
  Answer last = answers_.back();
  std::int64_t issue = session_.items[last.item].issue_id;
  store.undo(issue, session_.annotator, last.row_id, session_.source());
  answers_.pop_back();
  ++summary.undone;
  screen.out << "undone: " << last.dimension << " of "
             << (last.item == q.item ? screen.view->ref() : "the previous issue") << "\n";
}

std::optional<std::string> AnnotationSession::act_on(const std::string& k, KeyReader& keys,
                                                     Screen& screen, const Question& q,
                                                     const Prompt& p, labeling::ManualLabels& store,
                                                     SessionSummary& summary) {
  std::ostream& out = screen.out;
  if (k == "?") {
    show_codebook(screen, q, p);
  } else if (k == "m") {
    if (screen.page_start >= screen.lines.size()) screen.page_start = 0;  // back to the start
    screen.show_page();
  } else if (k == "n") {
    out << "note: " << std::flush;
    screen.note = keys.line();
    if (screen.note && screen.note->empty()) screen.note.reset();
  } else if (k == "u") {
    undo_last(screen, q, store, summary);
  } else if (k == "s") {
    std::int64_t id = store.append(session_.items[q.item].issue_id, session_.annotator, q.dimension,
                                   std::nullopt, "skip", screen.note, session_.source());
    answers_.push_back({q.item, q.dimension, id, std::nullopt, "skip"});
    ++summary.skipped;
    screen.note.reset();
    out << "skipped " << screen.view->ref() << "\n";
  } else if (k.empty() || k == "a") {
    if (p.suggestion) return p.suggestion;
    out << "no suggestion here: type the number of a label\n";
  } else if (std::all_of(k.begin(), k.end(), ::isdigit) && k.size() <= 3) {
    std::size_t n = std::stoul(k);
    if (n >= 1 && n <= p.options.size()) return p.options[n - 1];
    out << "no label " << k << " (1-" << p.options.size() << ")\n";
  } else {
    out << "unknown key \"" << k << "\"\n";
    screen.print_wrapped(kHelp);
  }
  return std::nullopt;
}

SessionSummary AnnotationSession::run(KeyReader& keys, std::ostream& out) {
  SessionSummary summary;
  summary.total_items = session_.items.size();
  labeling::ManualLabels store(db_);
  const std::string kind = session_.mode == "adjudicate" ? "adjudication" : "label";
  Screen screen(out, config_);

  screen.print_wrapped(kHelp);
  while (true) {
    Question q = next_question();
    if (q.item >= session_.items.size()) {
      summary.finished = true;
      out << "Queue finished: " << session_.items.size() << " issue(s).\n";
      break;
    }
    bool new_issue = !screen.shown || *screen.shown != q.item;
    if (new_issue && config_.rerank && (answers_.empty() || answers_.back().item < q.item))
      apply_rerank(q.item, out);
    if (new_issue) show_issue(screen, q.item);
    Prompt p = ask(screen, q, store);

    auto key = keys.next(p.options);
    if (!key) {
      out << "\n";
      break;  // end of input: like quit
    }
    out << *key << "\n";
    if (*key == "q") break;
    std::optional<std::string> chosen = act_on(*key, keys, screen, q, p, store, summary);
    if (chosen) {
      std::int64_t id = store.append(session_.items[q.item].issue_id, session_.annotator,
                                     q.dimension, chosen, kind, screen.note, session_.source());
      answers_.push_back({q.item, q.dimension, id, chosen, kind});
      ++summary.answered;
      screen.note.reset();
      out << screen.green << "  " << q.dimension << " = " << *chosen << screen.reset << "\n";
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
