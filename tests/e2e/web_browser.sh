#!/usr/bin/env bash
# `convfail serve` in a real browser: headless Chromium (Debian chromium + chromium-driver) driven
# by python3-selenium (tests/browser/web_browser.py): search, open an issue (hostile HTML shown as
# text, its Markdown body rendered inert: no script, no image, no javascript: link), label three issues by keyboard and undo one (checked with `labels history`), a second
# rater who labels blind (never sees the first one's labels), a key beside every cause with its
# codebook definition (each key pressed), adjudicate with both raters, the agreement page's kappa
# against `convfail agreement`. A screenshot of each page is left in BUILD_DIR (web_PAGE.png).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_web.sh"
[ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] ||
  skip "chromium/chromium-driver missing (scripts/install-deps.sh installs them)"
PY=
for p in /usr/bin/python3 python3; do
  if "$p" -c 'import selenium' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "python3-selenium missing"

# Synthetic issues (no third-party text); the hostile one sorts last in the queues.
python3 - "$T" <<'PY'
import json, sys
rows = [
  ("acme/conv", 1, "Synthetic crash: segmentation fault in export",
   "torch.onnx.export crashes with Segmentation fault (core dumped) at opset 17"),
  ("acme/conv", 2, "Synthetic wrong output after conversion",
   "the converted model gives wrong results, max abs diff 0.5"),
  ("acme/conv", 3, "Synthetic hang", "the export hangs forever on a Loop node"),
  ("acme/conv", 4, "Synthetic build failure", "pip install fails: protobuf version conflict"),
  ("zeta/hostile", 1, "<b>bold</b> title", "\n".join([
   "# Heading one", "", "Some **strong** text and `inline code`.", "",
   "<script>window.pwned=1</script>", "", "<img src=x onerror=window.pwned=2>", "",
   "[click me](javascript:window.pwned=3) <a href=\"javascript:window.pwned=4\">raw link</a>",
   "<iframe src=\"https://example.com/\"></iframe> ![pic](https://example.com/p.png)", "",
   "```python", "import torch", "torch.onnx.export(model, x, 'm.onnx')  # <b>not bold</b>", "```", "",
   "- first item", "- second item", "", "| op | opset |", "|----|------:|", "| Conv | 11 |", "",
   "~~old~~ unsupported operator"])),
]
with open(f"{sys.argv[1]}/issues.jsonl", "w") as f:
    for repo, n, title, body in rows:
        f.write(json.dumps({"repo": repo, "number": n, "title": title, "body": body,
                            "state": "closed", "created_at": f"2022-0{n}-01T00:00:00Z"}) + "\n")
PY
cf import "$T/issues.jsonl" >/dev/null
cf classify >/dev/null
seed_campaign
start_server
cmd=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "$BUILD/convfail" --db "$DB" --data-dir "$SRC/data")
pages="search issue markdown issue_labels annotate adjudicate agreement report campaigns campaign phone_search phone_issue phone_report"
for p in $pages; do rm -f "$BUILD/web_$p.png"; done
timeout 300 "$PY" "$SRC/tests/browser/web_browser.py" "$URL" "$cmd" "$BUILD"
for p in $pages; do [ -s "$BUILD/web_$p.png" ] || fail "no screenshot of the $p page"; done
