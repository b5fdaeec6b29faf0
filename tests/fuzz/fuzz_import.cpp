// `convfail import` on one file of any content (JSON array or JSONL): import_files reads it from
// a memory file (memfd) into a fresh migrated database. Invariants: a refused file leaves the
// database unchanged; an accepted one stores one row per inserted issue, and every stored
// raw_json is JSON again.
#include <sys/mman.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/importer.h"
#include "fuzz_check.h"
#include "fuzz_db.h"

using namespace convfail;

namespace {

// A file of `bytes` that import_files can open by path, closed on destruction.
class MemoryFile {
 public:
  explicit MemoryFile(std::string_view bytes) : fd_(memfd_create("fuzz-import", 0)) {
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < bytes.size();) {
      ssize_t n = write(fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

std::int64_t rows(Db& db, const char* table) {
  return db.scalar(std::string("SELECT count(*) FROM ") + table);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  MemoryFile file(fuzz::as_text(data, size));
  auto db = fuzz::fresh_db();
  ImportOptions options;
  options.default_repo = "acme/conv";  // flattened objects without a repository are stored too
  options.limits.max_field_bytes = 4096;
  ImportCounts counts;
  try {
    counts = import_files(*db, {file.path()}, options);
  } catch (const UserError&) {
    for (const char* t : {"repositories", "issues", "issue_labels", "comments", "timeline_events"})
      FUZZ_CHECK(rows(*db, t) == 0);
    return 0;
  }
  FUZZ_CHECK(rows(*db, "issues") == counts.inserted);
  Stmt st(*db, "SELECT raw_json FROM issues");
  while (st.step()) {
    std::string raw = st.text(0);  // nlohmann's parser would stop at a NUL byte
    FUZZ_CHECK(raw.find('\0') == std::string::npos && nlohmann::json::accept(raw));
  }
  return 0;
}
