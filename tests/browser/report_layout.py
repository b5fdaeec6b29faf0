#!/usr/bin/env python3
"""The standalone HTML reports in a real browser (headless Chromium through selenium): nothing is
wider than the page. Every chart fits its page (scaled by its viewBox, as `serve` shows it) and a
table wider than the page scrolls in its own box, so the page itself never scrolls sideways.

Usage: report_layout.py FILE.html... (each opened as file:// in a 1280 x 900 window)
"""
import pathlib
import sys

from chromium import browser

LAYOUT = """
const body = document.body.getBoundingClientRect();
const charts = [...document.querySelectorAll('svg')].map((s) => {
  const r = s.getBoundingClientRect();
  return {title: s.querySelector('title').textContent, width: r.width, viewbox: s.viewBox.baseVal.width,
          inside: r.left >= body.left - 1 && r.right <= body.right + 1};
});
const tables = [...document.querySelectorAll('table')].map((t) => {
  const box = t.parentElement, r = box.getBoundingClientRect();
  return {title: t.querySelector('caption').textContent, table: t.getBoundingClientRect().width,
          inside: r.right <= body.right + 1,
          scrolls: getComputedStyle(box).overflowX === 'auto' && box.scrollWidth > box.clientWidth};
});
return {page: document.documentElement.scrollWidth, window: window.innerWidth, body: body.width, charts, tables};
"""

d = browser("1280,900")
try:
    for f in sys.argv[1:]:
        d.get(pathlib.Path(f).resolve().as_uri())
        got = d.execute_script(LAYOUT)
        name = pathlib.Path(f).name
        assert got["page"] <= got["window"], (name, "the page scrolls sideways", got["page"], got["window"])
        assert got["charts"], (name, "no chart")
        for c in got["charts"]:
            assert c["inside"], (name, "chart outside the page", c)
        for t in got["tables"]:
            assert t["inside"], (name, "table outside the page", t)
            if t["table"] > got["body"] + 1:
                assert t["scrolls"], (name, "a table wider than the page that does not scroll", t)
        wide = [c for c in got["charts"] if c["viewbox"] > got["body"] + 1]
        wide_tables = [t for t in got["tables"] if t["table"] > got["body"] + 1]
        print(f"{name}: page {got['page']} px in a {got['window']} px window, body {got['body']:.0f} px; "
              f"{len(got['charts'])} charts ({len(wide)} scaled down, widest drawn {max(c['viewbox'] for c in got['charts']):.0f} px), "
              f"{len(got['tables'])} tables ({len(wide_tables)} scrolling)")
        if "campaign" in name:
            assert wide, (name, "the test needs a chart wider than the page", got["charts"])
        if "issues" in name:
            assert wide_tables, (name, "the test needs a table wider than the page", got["tables"])
finally:
    d.quit()
print("report_layout: ok")
