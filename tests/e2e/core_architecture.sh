#!/usr/bin/env bash
# tests/architecture.sh on small trees outside git (the find path): a tree that follows
# ARCHITECTURE.md's include rule and table owners passes; each kind of offence fails with its
# file and line. Then a copy of the real tree passes, and fails once a cross-module read of a
# table is planted in it.
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
put ARCHITECTURE.md '# A' '## Table owners' '' '| table | owner | also read by | holds |' \
  '|---|---|---|---|' '| `issues` | `core` | every module | issues |' \
  '| `runs` | `classifier` | | runs |' '| `notes` | `labeling` | `reports`, `web` | notes |' \
  '' '## Include rule'
put schema/0001_x.sql 'CREATE TABLE issues (id INTEGER);' 'create virtual table runs using fts5(x);' \
  'CREATE VIEW notes AS SELECT 1;'
put core/db.cpp '#include "core/db.h"' '#include <string>'
put core/store.cpp 'auto q = "INSERT INTO issues VALUES (1)";'
put classifier/run.cpp 'auto q = "SELECT * FROM runs JOIN issues ON 1";'
put reports/notes.cpp 'auto q = "SELECT n FROM notes";' '// DELETE FROM runs (a comment)' \
  'auto m = "copied from runs.json";  // not a table name'
put web/web.cpp 'auto q = R"(SELECT * FROM' '  notes WHERE 1)";'
put tests/unit/t.cpp 'auto q = "DELETE FROM runs";'  # tests and bench seed databases
put crawler/crawler.cpp '#include "crawler/crawler.h"' '#include "core/http.h"'
put classifier/eval.cpp '#include "core/db.h"' '#include "labeling/agreement.h"'
put reports/tables.cpp '#include "labeling/label_sets.h"'
put cli/main.cpp '#include "classifier/engine.h"' '#include "exec/sandbox.h"' \
  '#include "reports/render.h"' '#include "crawler/crawler.h"'
put tests/unit/t.cpp '#include "tests/fake_github/fake_github.h"' '#include "cli/context.h"'
put bench/b.cpp '#include "tests/unit/test_helpers.h"'
put build/gen/embedded.cpp '#include "repro/whatever.h"'  # build trees are not looked at
put exec/runner/node_modules/x/y.h '#include "tests/z.h"'  # nor node_modules
expect_exit 0 bash "$check" "$tree"
expect_grep "follow the include rule" "$T/out"

# Offences: a lower module including a higher one, a sibling, tests/ from a module, <regex>,
# a file in no module folder.
put core/issue_store.cpp '#include "core/db.h"' '' '#include "labeling/manual_labels.h"'
put repro/fetch.cpp '#include "core/http.h"' '#  include "crawler/http_cache.h"'
put reports/render.cpp '#include "classifier/engine.h"'
put cli/cmd_crawl.cpp '#include "tests/fake_github/fake_github.h"'
put labeling/queue.cpp '#include <string>' '#include <regex>'
put tools/x.cpp '#include "core/db.h"'
expect_exit 1 bash "$check" "$tree"
for want in 'core/issue_store.cpp:3: core may not include "labeling/' \
  'repro/fetch.cpp:2: repro may not include "crawler/' \
  'reports/render.cpp:1: reports may not include "classifier/' \
  'cli/cmd_crawl.cpp:1: cli may not include "tests/' \
  'labeling/queue.cpp:2: includes <regex>' \
  'tools/x.cpp: not in a module folder' \
  'architecture: 6 offence(s), 0 of them cross-module SQL'; do
  grep -qF -- "$want" "$T/err" || fail "no '$want' in: $(cat "$T/err")"
done
# Allowed includes are not reported.
if grep -E '^(core/db|crawler/crawler|classifier/eval|cli/main|tests/|bench/|build/)' "$T/err"; then
  fail "an allowed include was reported"
fi

# Table owners: a table named in SQL outside its owner (a split literal, any case, a write of a
# table others may only read), and a schema table with no owner.
put labeling/x.cpp 'auto q = "SELECT id FROM "' '    "runs WHERE 1";'
put web/w.cpp 'auto q = "UPDATE issues SET x = 1";'
put crawler/c.cpp 'auto q = "SELECT * FROM notes";'
put cli/cmd.cpp 'auto q = "insert into runs values (1)";'
put schema/0002_y.sql '' 'CREATE TABLE IF NOT EXISTS orphans (x);'
expect_exit 1 bash "$check" "$tree"
for want in 'labeling/x.cpp:2: labeling reads runs, owned by classifier' \
  'web/w.cpp:1: web writes issues, owned by core' \
  'crawler/c.cpp:1: crawler reads notes, owned by labeling' \
  'cli/cmd.cpp:1: cli writes runs, owned by classifier' \
  'schema/0002_y.sql:2: table orphans has no owner' \
  'architecture: 11 offence(s), 4 of them cross-module SQL'; do
  grep -qF -- "$want" "$T/err" || fail "no '$want' in: $(cat "$T/err")"
done
if grep -E '^(core/store|classifier/run|reports/notes|web/web|tests/)' "$T/err"; then
  fail "an allowed table use was reported"
fi

# The real tree passes with no allowed exception; a planted cross-module read fails, naming its
# line; an allow-list entry whose file no longer names the table is reported.
real=$T/real
mkdir -p "$real"
(cd "$SRC" && find . \( -name node_modules -o -name 'build*' -o -name .git \) -prune -o -type f \
  \( -name '*.h' -o -name '*.cpp' -o -path './schema/*.sql' -o -path ./ARCHITECTURE.md \) \
  -print0 | xargs -0 cp --parents -t "$real")
expect_exit 0 bash "$check" "$real"
expect_grep "(0 allowed exceptions)" "$T/out"
cp -r "$real" "$T/real2"  # for the campaign store's and the sandbox's plants below
cp -r "$real" "$T/real3"  # for the entry point's plant below
echo 'static const char* planted = "SELECT id FROM classifier_runs";' >>"$real/reports/report_data.cpp"
line=$(wc -l <"$real/reports/report_data.cpp")
expect_exit 1 bash "$check" "$real"
expect_grep "reports/report_data.cpp:$line: reports reads classifier_runs, owned by classifier" "$T/err"
expect_grep "architecture: 1 offence(s), 1 of them cross-module SQL" "$T/err"
# An allow-list entry excuses its read; one whose file no longer names the table is an offence.
# (The real list is empty: a copy of the check gets two entries.)
sed 's|^sql_allowed=($|&\n  "reports/report_data.cpp classifier_runs"\n  "labeling/label_sets.cpp classifier_runs"|' \
  "$check" >"$T/check_listed.sh"
grep -q '"labeling/label_sets.cpp classifier_runs"' "$T/check_listed.sh" || fail "entries not planted"
expect_exit 1 bash "$T/check_listed.sh" "$real"
expect_grep 'allow-list entry "labeling/label_sets.cpp classifier_runs" matches no SQL' "$T/err"
expect_grep "architecture: 1 offence(s), 0 of them cross-module SQL" "$T/err"
# The campaign's tables belong to one file, campaign/store/campaign_store: SQL on them anywhere else in
# campaign/ is an offence too. And the sandbox (exec/) is for its users only (repro, campaign, the
# command line): a planted include of it from the web fails.
echo 'static const char* planted = "UPDATE campaign_groups SET size = 0";' >>"$T/real2/campaign/groups/groups.cpp"
line=$(wc -l <"$T/real2/campaign/groups/groups.cpp")
echo '#include "exec/sandbox.h"' >>"$T/real2/web/server.cpp"
inc=$(wc -l <"$T/real2/web/server.cpp")
# The store has one reader per table (a second SELECT of campaign_models fails) and sits below the
# oracle (an include of it fails).
echo 'static const char* planted_read = "SELECT seq FROM campaign_models";' \
  >>"$T/real2/campaign/store/campaign_store.cpp"
read_line=$(wc -l <"$T/real2/campaign/store/campaign_store.cpp")
echo '#include "campaign/run/oracle.h"' >>"$T/real2/campaign/store/campaign_store.h"
echo 'static auto planted_id = [](const HttpRequest& r) { return r.path.substr(15); };' \
  >>"$T/real2/web/server.cpp"
substr_line=$(wc -l <"$T/real2/web/server.cpp")
oracle_line=$(wc -l <"$T/real2/campaign/store/campaign_store.h")
expect_exit 1 bash "$check" "$T/real2"
expect_grep "campaign/groups/groups.cpp:$line: campaign writes campaign_groups, owned by campaign/store/campaign_store" "$T/err"
expect_grep "web/server.cpp:$inc: web may not include \"exec/...\"" "$T/err"
expect_grep "campaign/store/campaign_store.cpp:$read_line: another reader of campaign_models" "$T/err"
expect_grep "campaign/store/campaign_store.h:$oracle_line: includes \"campaign/run/oracle.h\" (store may not include run" "$T/err"
expect_grep "web/server.cpp:$substr_line: a path parameter cut by hand" "$T/err"
expect_grep "architecture: 5 offence(s), 1 of them cross-module SQL" "$T/err"
# Library entry points return results and the command line prints them: a module header that
# declares a run_* function taking a std::ostream& fails (the declaration spread over lines, the
# offence at its name); the command line, tests and comments may say it.
printf '%s\n' '#pragma once' '#include <ostream>' '// run_in_comment(std::ostream& out);' \
  'namespace convfail::repro {' 'int run_planted(int limit,' '                std::ostream& out);' \
  'void run_quiet(int limit);' '}' >"$T/real3/repro/planted.h"
printf '%s\n' '#include <ostream>' 'void run_printed(std::ostream& out);' >"$T/real3/cli/planted.h"
printf '%s\n' '#include <ostream>' 'void run_printed(std::ostream& out);' >"$T/real3/tests/planted.h"
expect_exit 1 bash "$check" "$T/real3"
expect_grep "repro/planted.h:5: run_planted takes a std::ostream&: return a result, print it in cli" "$T/err"
expect_grep "architecture: 1 offence(s), 0 of them cross-module SQL" "$T/err"
echo ok
