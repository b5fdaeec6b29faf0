// Whether a classify run is complete, still being written, or left by a classify that died
// (schema 0018: the pid, its start time and the host of the process writing a run).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"

namespace convfail::classifier {

// A process as a run records it: pid, its start time (clock ticks after boot; 0 when unknown)
// and the host name.
struct RunOwner {
  std::int64_t pid = 0;
  std::int64_t started = 0;
  std::string host;
};
// This process.
RunOwner this_process();
// Whether `owner` (a process of this host) still runs: its pid exists and started when it did.
bool owner_alive(const RunOwner& owner);

struct RunStatus {
  std::int64_t id = 0;
  bool in_progress = false;             // written now, or left unfinished
  bool abandoned = false;               // marked: its process was gone
  std::int64_t labeled_issues = 0;      // issues with labels stored
  std::optional<std::int64_t> planned;  // issues it set out to label (schema 0018 and later)
  std::optional<RunOwner> owner;        // while in progress (schema 0018 and later)
};
// The status of run `id`; nullopt when there is no such run.
std::optional<RunStatus> run_status(Db& db, std::int64_t id);

// One line for an unfinished run: "classifier run 3 is unfinished: its classify (pid 41 on
// host h) died after labeling 36906 of 80000 issues".
std::string describe_unfinished(const RunStatus& status);

// Marks the unfinished runs of this host whose process is gone abandoned (a classify killed by
// SIGKILL, a crash, a power cut); returns their ids. Runs of other hosts and runs without an
// owner are left as they are.
std::vector<std::int64_t> mark_abandoned_runs(Db& db);

}  // namespace convfail::classifier
