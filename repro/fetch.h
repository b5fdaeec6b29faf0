// Downloads artifacts through core/http (size cap enforced while streaming, redirect limit,
// timeouts, http/https only, non-public addresses refused after DNS resolution unless allowed;
// retries by the shared http::RetryPolicy) into a store keyed by sha256, and unpacks archives with
// libarchive (regular files only, no absolute paths or "..", caps on total size and file count).
// Identical content from several URLs is one blob (and one unpacked folder) shared by their rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/db.h"
#include "core/secrets.h"

namespace convfail::repro {

struct FetchOptions {
  std::uint64_t max_bytes = 256ull << 20;  // per download
  int max_redirects = 5;
  long connect_timeout_seconds = 15;
  long timeout_seconds = 300;      // whole transfer
  int retries = 2;                 // extra attempts after a transient failure (http::should_retry)
  double retry_delay_seconds = 1;  // before the first retry; doubles, with jitter
  double retry_max_delay_seconds = 30;  // the longest wait between attempts
  std::uint64_t max_unpacked_bytes = 1ull << 30;
  int max_unpacked_files = 2000;
  // Also download from loopback, private, link-local, shared, multicast and unspecified
  // addresses (http::address_class); off: such a connection is refused before connect().
  bool allow_private_hosts = false;
};

struct FetchResult {
  bool ok = false;
  std::string error;  // one line, e.g. "larger than 1048576 bytes", "too many redirects (5)"
  std::string sha256;
  std::uint64_t size = 0;
  std::string path;  // STORE/<sha256>
  int attempts = 0;
  bool already_stored = false;  // the same content was in the store (fetched from another URL)
};

// Downloads `url` into `store_dir` (created if needed) as <sha256>.
FetchResult fetch_url(const std::string& url, const std::string& store_dir,
                      const FetchOptions& options);

struct UnpackResult {
  bool ok = false;
  std::string error;
  int files = 0;
  int skipped = 0;  // links, devices, directories-only entries
  std::uint64_t bytes = 0;
};

// Unpacks `archive` (zip, tar, tar.gz, ...) into `dest`: into a temporary folder beside it,
// renamed to `dest` when complete. On any violation (absolute path, "..", a file where a folder
// is needed, a name too long, size or count cap, a corrupt archive, a filesystem error) the error
// names the entry and the temporary folder is removed; an existing `dest` is never touched (when
// `dest` appears meanwhile, the unpack of the same content by another run, it is kept and used).
UnpackResult unpack_archive(const std::string& archive, const std::string& dest,
                            std::uint64_t max_total_bytes, int max_files);

// sha256 of a file, lower-case hex (of nothing when it cannot be read).
std::string sha256_file(const std::string& path);
// sha256 of a file read for at most `seconds` (> 0; 0: no bound) and at most `max_bytes` (the
// size is checked before anything is read: a huge sparse file costs nothing); nullopt with *why
// ("larger than N bytes", "not read within N s", the open's error) otherwise.
std::optional<std::string> sha256_file_bounded(const std::string& path, std::uint64_t max_bytes,
                                               double seconds, std::string* why);
// sha256 of a string (e.g. a script's code): core's, named here for repro's callers.
using convfail::sha256_hex;

struct FetchFailure {
  std::int64_t id = 0;
  std::string url, error;  // raw: escape before printing
};

struct FetchCounts {
  int attempted = 0, ok = 0, failed = 0, unpacked = 0;
  int shared = 0;  // ok, the content already in the store (e.g. from another URL): reused
  std::vector<FetchFailure> failures;
};

// Fetches every artifact of kind model/archive not fetched yet (fetch_status NULL or an error
// when `retry_failed`), of one issue or all; records sha256, size, local path and status. A
// failure (download, unpack, filesystem) is that artifact's 'error:<why>'; the rest of the batch
// goes on.
FetchCounts fetch_artifacts(Db& db, const std::string& store_dir, const FetchOptions& options,
                            std::optional<std::int64_t> issue_id, bool retry_failed, bool progress);

// The artifact store beside a database file: <dir of db>/convfail-data/artifacts.
std::string artifact_store_for(const std::string& db_path);

}  // namespace convfail::repro
