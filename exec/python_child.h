// The one way to start a sandboxed Python child that imports torch (the repro harness, the
// campaign's warm worker): its closed environment and its SandboxSpec.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "exec/sandbox.h"

namespace convfail::exec {

// The closed environment of a sandboxed Python child that imports torch: nothing of convfail's
// (no token); HOME, TMPDIR and torch's cache in the child's scratch directory; no user site, a
// fixed hash seed, one thread per math library; proxies pointing at a closed port (which only
// matters without the sandbox).
std::map<std::string, std::string> python_child_env(const std::string& home, const std::string& tmp,
                                                    const std::string& torch_home);

// $CONVFAIL_PYTHON_HELPERS, else share/convfail/python_helpers: exec/python, the helpers every
// Python child shares (child_tensors.py: flatten, save_tensors, graph_of).
std::string default_python_helpers();

// The spec of Debian's python3 running `program` with `args` under the sandbox: the program's
// folder, the shared helpers (on PYTHONPATH) and `read_only` visible read-only; `scratch` the
// only writable folder, its working directory, HOME (TMPDIR and torch's cache below it, created
// here). Limits are the defaults; callers set theirs.
SandboxSpec python_worker_spec(const std::string& program, const std::vector<std::string>& args,
                               const std::string& scratch,
                               const std::vector<std::string>& read_only = {});

}  // namespace convfail::exec
