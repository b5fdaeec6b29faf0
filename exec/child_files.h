// The one way to take files out of a folder a sandboxed child could write to. What a child leaves
// is hostile: a symbolic link to a host file or folder (convfail, often root, would read the host
// file and publish it), a FIFO (an open that never returns), a socket or device, a hard link, a
// huge or endless file, a tree millions of entries wide or deep, a file swapped while it is read.
// So every path is resolved beneath the folder without following any symbolic link
// (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV where
// the kernel has it, else openat with O_NOFOLLOW on every component), every file is opened with
// O_NOFOLLOW | O_NONBLOCK and taken only when fstat says it is a regular file with one link, and
// sizes, counts and depth are capped. Nothing here ever writes into the child's folder; copies go
// to a destination the child cannot reach. Removal (remove_child_tree) never follows a link.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace convfail::exec {

struct ChildFileLimits {
  std::uint64_t max_file_bytes = 4ull << 30;   // one file (a model with its weights)
  std::uint64_t max_total_bytes = 8ull << 30;  // a whole tree
  std::size_t max_files = 4096;                // entries of a tree (files and folders)
  int max_depth = 8;                           // folders below the tree's top
};

// Opens `rel` (relative, no "..", no empty or "." component) beneath the folder `root` as a
// regular file for reading: a descriptor (close it) or -1 with *why ("symbolic link",
// "not a regular file (FIFO)", "outside the folder", ...). `root` itself is convfail's own path
// (a scratch folder it created; the child cannot replace it) and is opened without following a
// link either.
int open_child_file(const std::string& root, const std::string& rel, std::string* why = nullptr);

// The bytes of the regular file `rel` beneath `root`, at most `max_bytes` (a longer file is an
// error, not a silent cut); nullopt with *why.
std::optional<std::string> read_child_file(const std::string& root, const std::string& rel,
                                           std::uint64_t max_bytes, std::string* why = nullptr);

// Whether `rel` beneath `root` is a regular file that open_child_file would take.
bool is_child_file(const std::string& root, const std::string& rel);

// The names of the regular files directly in the folder `rel` beneath `root` ("" = root), sorted;
// anything else (links, FIFOs, folders) is left out. At most `max_entries` are looked at.
std::vector<std::string> child_files_in(const std::string& root, const std::string& rel,
                                        std::size_t max_entries = 4096);

// Copies the regular file `rel` beneath `root` to `dest` (created with O_EXCL | O_NOFOLLOW, mode
// 0644; must not exist), at most `max_bytes`; false with *why (and no `dest`) otherwise.
bool copy_child_file(const std::string& root, const std::string& rel, const std::string& dest,
                     std::uint64_t max_bytes, std::string* why = nullptr);

struct CopiedTree {
  std::vector<std::string> files;    // copied, relative to the tree's top, sorted
  std::vector<std::string> skipped;  // not copied and why ("a -> symbolic link"), sorted
  std::uint64_t bytes = 0;
};

// Copies the folder `rel` beneath `root` ("" = root) to `dest` (created; must not exist; its
// parent must), regular files and folders only, everything else skipped and listed. Over a limit
// (a file's size, the total, the count, the depth) the copy fails: false with *why, and `dest` is
// removed. Files are created with O_EXCL | O_NOFOLLOW and mode 0644, folders 0755.
bool copy_child_tree(const std::string& root, const std::string& rel, const std::string& dest,
                     const ChildFileLimits& limits, CopiedTree* out, std::string* why);

struct RemovedTree {
  bool complete = true;     // nothing of the tree is left
  std::size_t removed = 0;  // entries removed (files, links, folders)
  std::size_t failed = 0;   // entries that could not be removed
  std::string problem;      // what was left and why: "a/b: Permission denied (and 2 more)",
                            // "stopped after 1000000 entries", "stopped after 30 s"
};

// Removes `path` and everything below it without following any symbolic link (unlinkat on each
// entry of folders opened with O_NOFOLLOW; the way back up checked against each folder's device
// and inode). Iterative, so no depth is too deep: at most 64 folders are held open, deeper ones
// are reopened on the way back. A folder of the user's own that it may not write or list (a child
// running as the same uid made it 0500 or 0000) is made 0700 first. Bounded: a child still
// writing into it cannot keep it busy forever; what is left after `max_entries` entries or
// `max_seconds` stays, and the result says so. Never throws.
RemovedTree remove_child_tree(const std::string& path, std::size_t max_entries = 1000000,
                              double max_seconds = 60);

// Tests only: false makes every resolution take the per-component fallback (kernels before 5.6
// have no openat2); true goes back to openat2 where the kernel has it.
void use_openat2(bool enabled);

}  // namespace convfail::exec
