#!/usr/bin/env bash
# The terminal UI wraps to the window (#28 item 12): `annotate` in a tmux window 60 columns wide
# (TIOCGWINSZ) and piped with COLUMNS=50 shows no line longer than the window, and the words of a
# long body line all arrive, split at spaces; --width overrides both.
# Usage: bash labeling_annotate_wrap.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 missing"
python3 - "$T" <<'PY'
import json, sys
words = " ".join("word%03d" % i for i in range(60))  # one 480-byte line
title = "A title long enough to need two lines in a narrow window " + "x" * 30
with open(sys.argv[1] + "/issues.jsonl", "w") as f:
    f.write(json.dumps({"repo": "acme/conv", "number": 1, "title": title, "state": "closed",
                        "body": "first line\n" + words + "\nlast line"}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null

# longest FILE: the longest line, escape sequences left out, in characters.
longest() {
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]", "", text)
print(max(len(l.rstrip("\r")) for l in text.split("\n")))
PY
}
# all_words FILE: every word000..word059 is in the output, in order.
all_words() {
  python3 - "$1" <<'PY' || fail "words lost or out of order: $(cat "$1")"
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
found = re.findall(r"word(\d{3})", text)
assert found == ["%03d" % i for i in range(60)], found
PY
}

# Piped: $COLUMNS gives the width.
printf 'q\n' | COLUMNS=50 cf annotate --annotator w --plain >"$T/piped.txt" 2>/dev/null
[ "$(longest "$T/piped.txt")" -le 50 ] || fail "COLUMNS=50: a line of $(longest "$T/piped.txt")"
all_words "$T/piped.txt"
# --width wins over $COLUMNS.
printf 'q\n' | COLUMNS=50 cf annotate --annotator w --plain --width 70 >"$T/w70.txt" 2>/dev/null
n=$(longest "$T/w70.txt")
[ "$n" -le 70 ] && [ "$n" -gt 50 ] || fail "--width 70: longest line $n"
# Without a width (no terminal, no COLUMNS), lines are left as they are.
printf 'q\n' | env -u COLUMNS "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data" annotate \
  --annotator w --plain >"$T/nowrap.txt" 2>/dev/null
[ "$(longest "$T/nowrap.txt")" -gt 400 ] || fail "wrapped without a width"

# A terminal 60 columns wide (tmux): the window's width, read with TIOCGWINSZ.
if command -v tmux >/dev/null; then
  sock="$T/tmux.sock"
  on_exit "tmux -S '$sock' kill-server 2>/dev/null"
  tmux -S "$sock" -f /dev/null new-session -d -x 60 -y 200 \
    "env -u COLUMNS '$BUILD/convfail' --db '$DB' --data-dir '$SRC/data' annotate --annotator t; sleep 30"
  for i in $(seq 1 100); do
    tmux -S "$sock" capture-pane -p -J -S - >"$T/tmux.txt" 2>/dev/null || true
    grep -q "symptom>" "$T/tmux.txt" && break
    sleep 0.1
  done
  grep -q "symptom>" "$T/tmux.txt" || fail "annotate did not start in tmux: $(cat "$T/tmux.txt")"
  # -J joins the lines the terminal itself wrapped: only lines the program broke stay broken.
  [ "$(longest "$T/tmux.txt")" -le 60 ] || fail "tmux 60 columns: a line of $(longest "$T/tmux.txt"): $(cat "$T/tmux.txt")"
  all_words "$T/tmux.txt"
  tmux -S "$sock" send-keys q
  echo "ok: tmux window of 60 columns"
else
  echo "note: tmux missing, the terminal case was not run"
fi
echo "ok: annotate wraps to the window (COLUMNS, --width, TIOCGWINSZ)"
