#!/usr/bin/env bash
# The standalone HTML reports in headless Chromium (tests/browser/report_layout.py): a campaign
# report whose node-count chart is drawn far wider than the 60em page, and the issue report of
# the sample (its per-year table has a column per converter and cause) stay inside the page: the
# chart scaled by its viewBox, the wide table scrolling in its own box.
# Usage: bash reports_html_layout.sh BUILD_DIR SOURCE_DIR SHARED_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] ||
  skip "chromium/chromium-driver missing (scripts/install-deps.sh installs them)"
/usr/bin/python3 -c 'import selenium' 2>/dev/null || skip "python3-selenium missing"
command -v sqlite3 >/dev/null || skip "sqlite3 missing"

cf init >/dev/null
cf import "$SRC/data/sample/pytorch_issues.json" "$SRC/data/sample/tf2onnx_issues.json" \
  "$SRC/data/sample/threads.jsonl" >/dev/null
cf labels import "$SRC/data/sample/labels.csv" --annotator sample >/dev/null
# 40 node counts, one success and one mismatch each: the outcome chart has 40 groups of bars.
python3 - "$T/campaign.sql" <<'PY'
import sys
out = open(sys.argv[1], "w")
out.write("INSERT INTO campaigns(id, config_json, versions_json, finished_at) VALUES "
          "(1, '{\"seed\":3}', '{\"torch\":\"1.13.1\"}', '2026-01-02T00:00:00Z');\n")
for seq in range(80):
    nodes = 5 + (seq // 2) * 5
    out.write("INSERT INTO campaign_models(campaign_id, seq, source, name, nodes, outcome) VALUES "
              f"(1, {seq}, 'synthetic', 'synthetic-{seq}', {nodes}, '{'mismatch' if seq % 2 else 'success'}');\n")
PY
sqlite3 "$DB" <"$T/campaign.sql"
cf report --campaign 1 --format html --out "$T/campaign.html" 2>/dev/null
cf report --source sample --format html --out "$T/issues.html" 2>/dev/null
timeout 300 /usr/bin/python3 "$SRC/tests/browser/report_layout.py" "$T/campaign.html" "$T/issues.html"
