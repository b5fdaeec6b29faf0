// The queues that `annotate` and `adjudicate` walk, and the stored sessions (table
// annotation_sessions, migration 0004) that freeze a queue so a killed session resumes on it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "labeling/label_sets.h"

namespace convfail::labeling {

struct QueueItem {
  std::int64_t issue_id = 0;
  std::vector<std::string> dimensions;  // what to ask; empty = every dimension (annotate)
};

// The names of `annotate`'s queues, the one list the command line (--queue) and the web
// (/api/queue?queue=, /api/session's "queues") offer: unlabeled, low-confidence, disagreement,
// sample (built here by build_annotate_queue) and uncertain (the trained model's order:
// classifier/uncertain_queue, beside active learning).
const std::vector<std::string>& annotate_queue_names();

struct QueueOptions {
  std::string queue = "unlabeled";  // one of annotate_queue_names()
  std::optional<int> size;          // at most this many issues (sample: default 20)
  std::uint64_t seed = 1;           // sample only
  std::vector<std::string> repos;   // only these repositories (empty: all)
  double low_confidence = 0.5;      // low-confidence: the lowest dimension confidence below this
  // low-confidence and disagreement: the latest classifier run's labels (classifier::run_labels),
  // handed over by the caller (views::annotate_queue) since labeling does not read the classifier.
  std::vector<IssueLabels> classifier;
};

// The queues of `annotate`:
//  unlabeled       issues the annotator holds no label for, by repository and number;
//  low-confidence  of those, the ones whose latest classifier run is least sure (lowest first);
//  disagreement    of those, the ones on which other annotators or the classifier disagree;
//  sample          a reproducible random sample (seed) stratified by repository.
// Pull requests are left out. Throws UsageError for any other queue name (uncertain included).
std::vector<QueueItem> build_annotate_queue(Db& db, const std::string& annotator,
                                            const QueueOptions& options);

// The disagreements of `annotators` (issues all of them labeled, the dimensions where their
// current labels differ) not yet adjudicated by `adjudicator`.
std::vector<QueueItem> build_adjudication_queue(Db& db, const std::vector<std::string>& annotators,
                                                const std::string& adjudicator);

// Proportional allocation of `size` over the groups (largest remainder), then a Fisher-Yates
// draw inside each group with mt19937_64(seed): the same input and seed give the same sample on
// every platform. Result grouped in key order, each group in draw order.
std::vector<std::int64_t> stratified_sample(
    const std::map<std::string, std::vector<std::int64_t>>& groups, std::size_t size,
    std::uint64_t seed);

struct StoredSession {
  std::int64_t id = 0;
  std::string annotator, mode, queue, params;
  std::vector<QueueItem> items;
  // manual_labels.source of the rows this session writes: "<mode>:<id>".
  std::string source() const { return mode + ":" + std::to_string(id); }
};

// The newest session with these keys, if any.
std::optional<StoredSession> find_latest_session(Db& db, const std::string& annotator,
                                                 const std::string& mode, const std::string& queue,
                                                 const std::string& params);
StoredSession create_session(Db& db, const std::string& annotator, const std::string& mode,
                             const std::string& queue, const std::string& params,
                             const std::vector<QueueItem>& items);
StoredSession load_session(Db& db, std::int64_t id);

// Replaces the stored items of session `id` from position `from` on by `tail` (a re-ranked
// queue: the items before `from`, which the session's answers refer to, stay).
void replace_session_tail(Db& db, std::int64_t id, std::size_t from,
                          const std::vector<QueueItem>& tail);

}  // namespace convfail::labeling
