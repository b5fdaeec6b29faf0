#include "classifier/run_status.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <fstream>
#include <sstream>

namespace convfail::classifier {
namespace {

// Field 22 of /proc/PID/stat (starttime); 0 when it cannot be read. The command name (field 2)
// may hold spaces and parentheses: fields are counted after its last ')'.
std::int64_t start_ticks(std::int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::stoll(field);
  return 0;
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

}  // namespace

RunOwner this_process() {
  std::int64_t pid = getpid();
  return RunOwner{pid, start_ticks(pid), host_name()};
}

bool owner_alive(const RunOwner& owner) {
  if (owner.pid <= 0 || owner.pid > INT_MAX) return false;
  if (kill(static_cast<pid_t>(owner.pid), 0) != 0 && errno != EPERM) return false;
  std::int64_t started = start_ticks(owner.pid);
  return owner.started == 0 || started == 0 || started == owner.started;
}

std::optional<RunStatus> run_status(Db& db, std::int64_t id) {
  Stmt st(db,
          "SELECT in_progress, abandoned_at IS NOT NULL, planned_issues, pid, pid_started, host, "
          "(SELECT count(DISTINCT issue_id) FROM classifier_labels WHERE run_id = r.id) "
          "FROM classifier_runs r WHERE id = ?");
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  RunStatus s;
  s.id = id;
  s.in_progress = st.int64(0) != 0;
  s.abandoned = st.int64(1) != 0;
  s.planned = st.opt_int64(2);
  if (!st.is_null(3)) s.owner = RunOwner{st.int64(3), st.opt_int64(4).value_or(0), st.text(5)};
  s.labeled_issues = st.int64(6);
  return s;
}

std::string describe_unfinished(const RunStatus& s) {
  std::string state;
  if (!s.owner) {
    state = "it was left in progress (by a classify whose process was not recorded)";
  } else {
    std::string who =
        "its classify (pid " + std::to_string(s.owner->pid) + " on " + s.owner->host + ")";
    bool here = s.owner->host == this_process().host;
    state = s.abandoned || (here && !owner_alive(*s.owner)) ? who + " died"
            : here                                          ? who + " is still running"
                                                            : who + " ran on another host";
  }
  return "classifier run " + std::to_string(s.id) + " is unfinished: " + state + "; " +
         std::to_string(s.labeled_issues) + " of " +
         (s.planned ? std::to_string(*s.planned) : std::string("?")) + " issues have labels";
}

std::vector<std::int64_t> mark_abandoned_runs(Db& db) {
  RunOwner me = this_process();
  std::vector<std::int64_t> gone;
  {
    Stmt st(db,
            "SELECT id, pid, pid_started FROM classifier_runs WHERE in_progress = 1 AND "
            "abandoned_at IS NULL AND pid IS NOT NULL AND host = ?");
    st.bind(1, me.host);
    while (st.step())
      if (!owner_alive(RunOwner{st.int64(1), st.opt_int64(2).value_or(0), me.host}))
        gone.push_back(st.int64(0));
  }
  if (gone.empty()) return gone;
  Transaction tx(db);
  Stmt mark(db,
            "UPDATE classifier_runs SET abandoned_at = strftime('%Y-%m-%dT%H:%M:%SZ','now') "
            "WHERE id = ? AND in_progress = 1");
  for (std::int64_t id : gone) mark.bind(1, id).run();
  tx.commit();
  return gone;
}

}  // namespace convfail::classifier
