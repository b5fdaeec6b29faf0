// The interactive annotation session behind `annotate` and `adjudicate`: walks a stored queue,
// shows each issue (header, paged body and comments with the classifier's evidence highlighted)
// and per dimension the suggestion with its confidence; one key per decision. Every answer is
// one manual_labels row written at once (source "<mode>:<session id>"), so a killed session
// loses nothing; the session's position is replayed from those rows on resume. Input and output
// are injected streams, so the same code runs on a terminal, on piped input and in tests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/key_input.h"
#include "core/db.h"
#include "core/taxonomy.h"
#include "labeling/annotation_queue.h"
#include "labeling/manual_labels.h"
#include "labeling/question_order.h"

namespace convfail::cli {

struct SessionConfig {
  bool colour = false;    // ANSI colours (only on a terminal)
  int page_lines = 20;    // lines of issue text per page (after wrapping)
  std::size_t width = 0;  // the window's columns: longer lines are wrapped (0: never)
  // adjudicate: the annotators whose labels are shown beside each question
  std::vector<std::string> compare;
  // Asked before a new issue is shown (none of its questions answered yet) with the position
  // of that issue and the queue; may return a new order of the issues from that position on
  // (their ids, each once: a re-ranked queue), which the session stores and follows.
  std::function<std::optional<std::vector<std::int64_t>>(
      std::size_t from, const std::vector<labeling::QueueItem>& items)>
      rerank;
};

struct SessionSummary {
  int answered = 0;  // labels (or adjudications) written in this run
  int skipped = 0;
  int undone = 0;
  std::size_t done_items = 0;  // items of the queue finished (all runs)
  std::size_t total_items = 0;
  bool finished = false;  // the whole queue is answered
};

class AnnotationSession {
 public:
  AnnotationSession(Db& db, const Taxonomy& tax, labeling::StoredSession session,
                    SessionConfig config);
  // Keys: Enter/a accept the suggestion, a number picks a label, s skips the issue, u undoes
  // the last answer (going back to its question), n adds a note to the next answer, m shows the
  // next page of text, ? help, q quits (so does the end of input).
  SessionSummary run(KeyReader& keys, std::ostream& out);
  bool finished() const;
  const labeling::StoredSession& session() const { return session_; }

 private:
  struct Answer {
    std::size_t item;
    std::string dimension;
    std::int64_t row_id;
    std::optional<std::string> value;
    std::string kind;
  };
  struct Question {
    std::size_t item;  // == items.size() when the queue is done
    std::string dimension;
  };

  struct Screen;   // what the terminal shows (annotation_session.cpp)
  struct Prompt {  // a question as asked: the label choices and the suggestion among them
    std::vector<std::string> options;
    std::optional<std::string> suggestion;
  };

  void replay();
  void apply_rerank(std::size_t from, std::ostream& out);
  // run()'s steps: show a new issue, ask a question, act on a key that is no answer (help,
  // more text, note, undo, skip) or return the label it picks.
  void show_issue(Screen& screen, std::size_t item);
  Prompt ask(Screen& screen, const Question& q, labeling::ManualLabels& store);
  void show_codebook(Screen& screen, const Question& q, const Prompt& p) const;
  void undo_last(Screen& screen, const Question& q, labeling::ManualLabels& store,
                 SessionSummary& summary);
  std::optional<std::string> act_on(const std::string& key, KeyReader& keys, Screen& screen,
                                    const Question& q, const Prompt& p,
                                    labeling::ManualLabels& store, SessionSummary& summary);
  Question next_question() const;
  Question first_question_from(std::size_t item) const;
  // The item's questions in order, by labeling's rule (labeling/question_order.h).
  labeling::QuestionState question_state(std::size_t item) const;
  std::vector<labeling::Question> questions_for(std::size_t item) const;
  std::vector<std::string> choices(const Question& q) const;
  std::size_t done_items() const;

  Db& db_;
  const Taxonomy& tax_;
  labeling::StoredSession session_;
  SessionConfig config_;
  std::vector<Answer> answers_;  // the session's answers still in force, oldest first
};

struct OpenedSession {
  labeling::StoredSession session;
  bool resumed = false;
};

// Resumes the newest session with these keys while it has unanswered items, else stores a new
// session on the queue `build()` returns. Throws UserError when that queue is empty.
OpenedSession open_session(Db& db, const Taxonomy& tax, const std::string& annotator,
                           const std::string& mode, const std::string& queue,
                           const std::string& params, const SessionConfig& config,
                           const std::function<std::vector<labeling::QueueItem>()>& build);

}  // namespace convfail::cli
