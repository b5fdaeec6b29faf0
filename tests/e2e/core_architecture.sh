#!/usr/bin/env bash
# tests/architecture.sh on small trees outside git (the find path): a tree that follows
# ARCHITECTURE.md's include rule passes; each kind of offence fails with its file and line.
# Usage: bash core_architecture.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
check=$SRC/tests/architecture.sh
tree=$T/tree

put() {  # put FILE LINES...: writes one line per argument
  mkdir -p "$(dirname "$tree/$1")"
  local f=$1
  shift
  printf '%s\n' "$@" >"$tree/$f"
}
put src/core/db.cpp '#include "core/db.h"' '#include <string>'
put crawler/crawler.cpp '#include "crawler/crawler.h"' '#include "core/http.h"'
put classifier/eval.cpp '#include "core/db.h"' '#include "labeling/agreement.h"'
put reports/tables.cpp '#include "labeling/label_sets.h"'
put src/cli/main.cpp '#include "classifier/engine.h"' '#include "repro/sandbox.h"' \
  '#include "reports/render.h"' '#include "crawler/crawler.h"'
put tests/unit/t.cpp '#include "tests/fake_github/fake_github.h"' '#include "cli/context.h"'
put bench/b.cpp '#include "tests/unit/test_helpers.h"'
put build/gen/embedded.cpp '#include "repro/whatever.h"'  # build trees are not looked at
put repro/runner/node_modules/x/y.h '#include "tests/z.h"'  # nor node_modules
expect_exit 0 bash "$check" "$tree"
expect_grep "follow the include rule" "$T/out"

# Offences: a lower module including a higher one, a sibling, tests/ from a module, <regex>,
# a file in no module folder.
put src/core/issue_store.cpp '#include "core/db.h"' '' '#include "labeling/manual_labels.h"'
put repro/fetch.cpp '#include "core/http.h"' '#  include "crawler/http_cache.h"'
put reports/render.cpp '#include "classifier/engine.h"'
put src/cli/cmd_crawl.cpp '#include "tests/fake_github/fake_github.h"'
put labeling/queue.cpp '#include <string>' '#include <regex>'
put tools/x.cpp '#include "core/db.h"'
expect_exit 1 bash "$check" "$tree"
for want in 'src/core/issue_store.cpp:3: core may not include "labeling/' \
  'repro/fetch.cpp:2: repro may not include "crawler/' \
  'reports/render.cpp:1: reports may not include "classifier/' \
  'src/cli/cmd_crawl.cpp:1: cli may not include "tests/' \
  'labeling/queue.cpp:2: includes <regex>' \
  'tools/x.cpp: not in a module folder' \
  'architecture: 6 forbidden include(s)'; do
  grep -qF -- "$want" "$T/err" || fail "no '$want' in: $(cat "$T/err")"
done
# Allowed includes are not reported.
if grep -E '^(src/core/db|crawler/crawler|classifier/eval|src/cli/main|tests/|bench/|build/)' "$T/err"; then
  fail "an allowed include was reported"
fi
echo ok
