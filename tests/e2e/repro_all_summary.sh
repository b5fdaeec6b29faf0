#!/usr/bin/env bash
# README step 5 on the bundled sample (issue 50 item 1): `reproduce --all` after import and
# classify scans the issues itself, re-runs the PyTorch scripts (every sample artifact is one),
# prints their verdicts and a summary: what it scanned and ran, every issue it left out with why,
# and the next command when nothing ran; --json carries the same as "summary".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"
chmod 755 "$T"  # scratch directories go here; the sandbox runs as uid 65534
export TMPDIR=$T
cf init >/dev/null
cf import "$SRC"/data/sample/*.json "$SRC"/data/sample/*.jsonl >/dev/null
cf classify >/dev/null
runs() { sqlite3 "$DB" "SELECT count(*) FROM repro_runs"; }
stored=$(sqlite3 "$DB" "SELECT count(*) FROM issues")

expect_exit 0 cf reproduce --all
cp "$T/out" "$T/all.out"
python3 - "$T/all.out" "$stored" "$(runs)" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
stored, runs = int(sys.argv[2]), int(sys.argv[3])
m = re.search(r"^scanned (\d+) issues for artifacts \((\d+) new\)$", text, re.M)
assert m and int(m.group(1)) == stored and int(m.group(2)) > 0, text[-2000:]
m = re.search(r"^ran (\d+) scripts? and 0 models: (.*)$", text, re.M)
assert m, text[-2000:]
ran = int(m.group(1))
assert ran > 0 and ran == runs, (ran, runs)
verdicts = dict((v, int(n)) for v, n in re.findall(r"(\w+) (\d+)", m.group(2)))
assert sum(verdicts.values()) == ran, verdicts
results = [l for l in text.splitlines() if re.match(r"^\S+/\S+#\d+  \w+", l)]
assert len(results) == ran, (len(results), ran)
m = re.search(r"^left out (\d+) issues: (.*)$", text, re.M)
assert m, text[-2000:]
left = int(m.group(1))
reasons = re.findall(r"(?:^|; )(\d+) ([^;]+)", m.group(2))
assert sum(int(n) for n, _ in reasons) == left and left + ran == stored, (reasons, left, ran)
why = {w: int(n) for n, w in reasons}
assert any("does not use PyTorch" in w for w in why), why
assert "next:" not in text, "a next step although scripts ran"
print("ok   reproduce --all: scanned", stored, "ran", ran, verdicts, "left out", left, why)
PY

# --models: the sample has no model to run: nothing runs, and the summary says what to do.
expect_exit 0 cf reproduce --all --models
expect_grep "^ran 0 scripts and 0 models$" "$T/out"
expect_grep "^left out $stored issues: .*a script, left out by --models (reproduce --all runs it)" "$T/out"
expect_grep "^next: convfail reproduce --all (without --models)" "$T/out"
echo "ok   --all --models: nothing ran, the next command"

# A model link that is not fetched yet is named, and so is the next command.
echo '{"repo":"acme/conv","number":1,"title":"model","body":"model: https://example.org/m.onnx"}' >"$T/m.jsonl"
cf import "$T/m.jsonl" >/dev/null
expect_exit 0 cf reproduce --all --models
expect_grep "1 model link not fetched yet (convfail artifacts fetch)" "$T/out"
expect_grep "^next: convfail artifacts fetch, then convfail reproduce --all$" "$T/out"
echo "ok   an unfetched model link is named"

# JSON: the summary beside the totals; --limit counts the issues it did not reach.
before=$(runs)
expect_exit 0 cf reproduce --all --scripts --limit 2 --json
python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s, t = d["summary"], d["totals"]
assert t["total"] == 2 == len(d["results"]) and s["scripts"] == 2 and s["models"] == 0, (t, s)
assert s["limited"] > 0 and s["scanned"]["new_artifacts"] == 0, s
assert sum(s["verdicts"].values()) == 2 and s["next"] == "", s
assert any("fetched model" not in w for w in s["skipped"]), s
print("ok   --json: summary", s["scripts"], "scripts,", s["limited"], "not reached")
PY
[ $(($(runs) - before)) = 2 ] || fail "--limit 2 stored $(($(runs) - before)) runs"
# The scripts' options where no script runs (ISSUE without --scripts) are refused, not ignored.
expect_exit 2 cf reproduce 'pytorch/pytorch#81234' --python /usr/bin/python3
expect_grep "are for scripts: add --scripts, or use --all" "$T/err"
echo ok
