#!/usr/bin/env python3
"""Real-browser test of `convfail serve` (headless Chromium from Debian through selenium).

Usage: web_browser.py URL CONVFAIL_CMD_JSON ARTIFACT_DIR
Opens the page, logs in, searches, opens an issue (hostile HTML must show as text), labels three
issues by keyboard and undoes the last answer, checks `convfail labels history`; a second session
labels as another rater; the agreement page must show the kappa `convfail agreement` prints.
Blind annotate (bob never sees alice's labels), a key beside every cause with its definition, each
key picking its label, adjudicate showing both raters. Saves a screenshot of each page
(web_search, web_issue, web_annotate, web_adjudicate, web_agreement, web_report .png) in
ARTIFACT_DIR.
"""
import json
import subprocess
import sys
import time

from chromium import browser
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL, CMD, ART = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]


def cf(*args):
    return subprocess.run(CMD + list(args), check=True, capture_output=True, text=True).stdout


def wait(d, cond, what, timeout=20):
    try:
        return WebDriverWait(d, timeout, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(lambda _: cond())
    except Exception:
        err = d.find_element(By.ID, "error").text
        d.save_screenshot(ART + "/web_failure.png")
        main = d.find_element(By.ID, "main").text[:500]
        raise AssertionError(f"timed out waiting for {what}; page error: {err!r}; page: {main!r}")


def text_of(d, css):
    return d.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", css)


def login(d, name):
    d.get(URL + "/")
    box = wait(d, lambda: d.find_element(By.ID, "login-name"), "login box")
    box.send_keys(name)
    d.find_element(By.ID, "login-button").click()
    wait(d, lambda: text_of(d, "#who") == "annotator: " + name, "login as " + name)


def key(d, k):
    d.execute_script("document.activeElement && document.activeElement.blur()")
    ActionChains(d).send_keys(k).perform()


def progress(d):
    return text_of(d, "#ask .progress")


def answer(d, k, expect_after):
    key(d, k)
    wait(d, lambda: progress(d) == expect_after or (expect_after is None and d.find_elements(By.ID, "queue-done")),
         f"after key {k!r}: {expect_after!r} (now {progress(d)!r})")


def served_questions(d, ref, query=""):
    """The server's questions of an issue (REF = OWNER/REPO/NUMBER) as the page's session asks them."""
    return d.execute_async_script("""const done = arguments[arguments.length - 1];
      fetch(arguments[0], {credentials: 'same-origin'}).then((r) => r.json()).then(done, (e) => done({error: String(e)}));""",
                                  f"/api/issues/{ref}/questions{query}")


def start_annotate(d, n_items):
    d.get(URL + "/#/annotate?queue=unlabeled&size=%d&go=1" % n_items)
    wait(d, lambda: progress(d).startswith("issue 1 of"), "annotation queue")


# Words (runs of letters, digits and _) of at most 12 characters that the layout split over two
# lines inside the given tables: a word broken in the middle.
BROKEN_WORDS = """
const out = [];
for (const table of document.querySelectorAll(arguments[0])) {
  const walker = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const re = /\\w+/g;
    let m;
    while ((m = re.exec(t.nodeValue))) {
      if (m[0].length > 12) continue;
      const r = document.createRange();
      r.setStart(t, m.index);
      r.setEnd(t, m.index + m[0].length);
      const lines = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
      if (lines.size > 1) out.push(m[0]);
    }
  }
}
return out;
"""

# The page's layout on a phone: viewport and page widths, and header parts that overlap.
PHONE_LAYOUT = """
const parts = [...document.querySelectorAll('header#top .brand, header#top nav a, #who, #login-name, #login-button')]
  .map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect()]).filter(([, r]) => r.width > 0);
const overlaps = [];
for (let i = 0; i < parts.length; ++i)
  for (let j = i + 1; j < parts.length; ++j) {
    const [a, ra] = parts[i], [b, rb] = parts[j];
    if (ra.left < rb.right - 1 && rb.left < ra.right - 1 && ra.top < rb.bottom - 1 && rb.top < ra.bottom - 1) overlaps.push([a, b]);
  }
return {width: window.innerWidth, scroll: document.documentElement.scrollWidth, overlaps};
"""


def check_charts(d, root):
    """Every text of every chart inside its chart's box (no clipped label), and a y axis with at
    least two tick labels."""
    res = d.execute_script("""
      const out = [];
      for (const svg of document.querySelectorAll(arguments[0] + ' svg')) {
        const box = svg.getBoundingClientRect();
        const ticks = [...svg.querySelectorAll('text[font-size="10"][text-anchor="end"]')].length;
        const clipped = [...svg.querySelectorAll('text')].filter((t) => {
          const r = t.getBoundingClientRect();
          return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1;
        }).map((t) => t.textContent);
        out.push({ticks, clipped});
      }
      return out;""", root)
    assert res, "no chart"
    for c in res:
        assert c["ticks"] >= 2 and not c["clipped"], res


def shot(d, name):
    """A screenshot of the current page into ARTIFACT_DIR (web_NAME.png)."""
    d.save_screenshot(f"{ART}/web_{name}.png")


def label_three(d, keys_per_issue):
    """Answers the questions (symptom, cause, stage: causes without subtypes) of the next issues
    with these keys; an issue given fewer than three keys is left at its next question."""
    total = int(progress(d).split(" of ")[1].split(" ")[0])
    for i, keys in enumerate(keys_per_issue):
        for j, k in enumerate(keys):
            nxt = (f"issue {i + 1} of {total} · question {j + 2} of 3" if j + 1 < 3
                   else f"issue {i + 2} of {total} · question 1 of 3")
            answer(d, k, nxt)


d1 = browser()
try:
    login(d1, "alice")
    # Search.
    d1.get(URL + "/#/")
    box = wait(d1, lambda: d1.find_element(By.ID, "search"), "search box")
    box.send_keys("segmentation", Keys.ENTER)
    wait(d1, lambda: "1 issue(s)" in text_of(d1, "#page-info"), "search result")
    links = d1.find_elements(By.CSS_SELECTOR, "#issue-table a.issue-link")
    assert len(links) == 1 and "segmentation" in links[0].text, [x.text for x in links]
    shot(d1, "search")
    links[0].click()
    wait(d1, lambda: "Synthetic crash" in text_of(d1, "#issue-title"), "issue page")
    assert d1.find_elements(By.CSS_SELECTOR, "#issue-body mark.ev"), "no evidence highlighted in the body"
    # The hostile issue: title as text; its Markdown body rendered (headings, code fence, list,
    # table) and inert: raw HTML omitted, no script run, no image, no javascript: link.
    d1.get(URL + "/#/issue/zeta/hostile/1")
    wait(d1, lambda: "<b>bold</b>" in text_of(d1, "#issue-title"), "hostile issue")
    wait(d1, lambda: d1.find_elements(By.CSS_SELECTOR, "#issue-body .md h1"), "rendered Markdown")
    md = lambda css: d1.execute_script("return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)", "#issue-body .md " + css)
    assert md("h1") == ["Heading one"], md("h1")
    assert md("strong") == ["strong"] and md("del") == ["old"], (md("strong"), md("del"))
    assert any("torch.onnx.export(model, x, 'm.onnx')  # <b>not bold</b>" in c for c in md("pre code")), md("pre code")
    assert md("li") == ["first item", "second item"], md("li")
    assert md("td") == ["Conv", "11"] and md("th") == ["op", "opset"], (md("th"), md("td"))
    assert md("a") and "click me" in md("a"), md("a")
    source = d1.execute_script("return document.querySelector('#issue-body .md-source').textContent")
    assert "<script>window.pwned=1</script>" in source and "onerror" in source, source
    time.sleep(0.5)
    inert = d1.execute_script("""
      const m = document.querySelector('main');
      return {pwned: window.pwned === undefined ? null : window.pwned,
              bad: m.querySelectorAll('script, img, iframe, b, object, embed, [onerror], [onclick]').length,
              js: [...m.querySelectorAll('a')].filter((a) => /^\\s*(javascript|data|vbscript):/i.test(a.getAttribute('href') || '')).length,
              rendered: m.querySelector('#issue-body .md').textContent};""")
    assert inert["pwned"] is None and inert["bad"] == 0 and inert["js"] == 0, inert
    # Raw HTML is omitted (the script, the iframe); an invalid tag stays visible text.
    assert "window.pwned=1" not in inert["rendered"] and "iframe" not in inert["rendered"], inert["rendered"]
    # A flattened import stores no html_url: the link is built as the terminal builds it.
    assert d1.find_element(By.ID, "github-link").get_attribute("href") == "https://github.com/zeta/hostile/issues/1"
    shot(d1, "markdown")
    d1.get(URL + "/#/issue/acme/conv/1")
    wait(d1, lambda: "Synthetic crash" in text_of(d1, "#issue-title"), "issue page again")
    d1.save_screenshot(ART + "/web_issue.png")
    # A bad issue link: its error, and never the previous issue under it as if it were this one.
    d1.get(URL + "/#/issue/acme/conv/999")
    wait(d1, lambda: "Could not load this view" in text_of(d1, "#main"), "the view of a bad link")
    assert text_of(d1, "#error"), "no error shown for a bad issue link"
    assert "Synthetic crash" not in text_of(d1, "#main"), text_of(d1, "#main")[:300]

    # Label three issues by keyboard (symptom, cause, stage; causes without subtypes), undo one.
    start_annotate(d1, 10)
    label_three(d1, [["1", "1", "1"], ["2", "4", "2"], ["1", "1"]])
    key(d1, "3")  # stage of the third issue ...
    wait(d1, lambda: progress(d1).startswith("issue 4 of"), "fourth issue")
    key(d1, "u")  # ... undone: back to that question
    wait(d1, lambda: progress(d1).startswith("issue 3 of") and "question 3 of 3" in progress(d1), "undo")
finally:
    d1.quit()

hist = {}
for n in (1, 2, 3):
    rows = json.loads(cf("labels", "history", f"acme/conv#{n}", "--annotator", "alice", "--json"))
    hist[n] = [(r["dimension"], r["kind"], r["value"]) for r in rows]
print("history:", hist)
assert hist[1] == [("symptom", "label", "crash"), ("cause", "label", "api_misuse"), ("stage", "label", "load_model")], hist[1]
assert hist[2] == [("symptom", "label", "wrong_model"), ("cause", "label", "shape_problem"), ("stage", "label", "node_conversion")], hist[2]
assert hist[3] == [("symptom", "label", "crash"), ("cause", "label", "api_misuse"), ("stage", "label", "optimization"),
                   ("stage", "undo", None)], hist[3]
assert all(r["source"] == "web" for n in (1, 2, 3) for r in json.loads(cf("labels", "history", f"acme/conv#{n}", "--json")))

# A second rater in another browser session; then the agreement page.
d2 = browser()
try:
    login(d2, "bob")
    start_annotate(d2, 10)
    # Blind: alice labelled this issue, bob sees only that his own labels are none so far.
    wait(d2, lambda: d2.find_elements(By.ID, "blind-note"), "blind note")
    main = text_of(d2, "main")
    assert "Synthetic crash" in main and "alice" not in main, main[-1500:]
    assert not d2.find_elements(By.CSS_SELECTOR, "#history"), "a label history shown to bob"
    label_three(d2, [["1", "1", "1"], ["1", "4", "2"], ["2", "4", "3"]])
    # Issue 4, cause question: every cause has a key shown beside it, with its definition.
    answer(d2, "1", "issue 4 of 5 · question 2 of 3")
    buttons = d2.find_elements(By.CSS_SELECTOR, "#ask .options button")
    causes = [(b.get_attribute("data-label"), b.get_attribute("data-key")) for b in buttons]
    assert len(causes) == 14 and all(k for _, k in causes) and len({k for _, k in causes}) == 14, causes
    for b in buttons:
        assert b.find_element(By.TAG_NAME, "kbd").text == b.get_attribute("data-key")
        assert b.find_element(By.CSS_SELECTOR, ".def").is_displayed()
    shape = d2.find_element(By.CSS_SELECTOR, '#ask button[data-label="shape_problem"] .def').text
    assert "broadcasting" in shape, shape
    shot(d2, "annotate")
    for label, k in causes:  # each key picks its label (then undone)
        key(d2, k)
        wait(d2, lambda: text_of(d2, "#last").endswith("cause = " + label), f"key {k!r} -> {label}")
        key(d2, "u")
        wait(d2, lambda: text_of(d2, "#last").startswith("undone") and "question 2 of 3" in progress(d2), f"undo {label}")
    print("keys:", " ".join(f"{k}={label}" for label, k in causes))
    # A cause with subtypes: the subtype question follows, with exactly the server's choices.
    key(d2, dict(causes)["type_problem"])
    wait(d2, lambda: "question 3 of 4" in progress(d2), "the subtype question after type_problem")
    ref = text_of(d2, "#last").split(" ")[0].replace("#", "/")
    served = served_questions(d2, ref)
    assert [q["dimension"] for q in served["questions"]] == ["symptom", "cause", "subtype", "stage"], served
    assert text_of(d2, "#ask h2") == "subtype", text_of(d2, "#ask h2")
    shown = [b.get_attribute("data-label") for b in d2.find_elements(By.CSS_SELECTOR, "#ask .options button")]
    assert shown == [c["id"] for c in served["questions"][2]["choices"]] == ["node", "tensor", "conventional"], shown
    key(d2, "u")
    wait(d2, lambda: text_of(d2, "#last").startswith("undone") and "question 2 of 3" in progress(d2), "undo type_problem")
    assert [q["dimension"] for q in served_questions(d2, ref)["questions"]] == ["symptom", "cause", "stage"]
    # Bob's own issue page: history, evidence and repro tables break no word in the middle.
    d2.get(URL + "/#/issue/acme/conv/1")
    wait(d2, lambda: d2.find_elements(By.CSS_SELECTOR, "#history tr td"), "bob's label history")
    broken = d2.execute_script(BROKEN_WORDS, "#history, #evidence, #classifier-labels, #repro")
    assert not broken, broken
    shot(d2, "issue_labels")

    # Adjudicate as a third person: no rater preselected (no non-rater prefilled), pick the two
    # raters; per disputed dimension both raters' labels side by side and a select of labels.
    login(d2, "carol")
    d2.get(URL + "/#/adjudicate")
    boxes = wait(d2, lambda: d2.find_elements(By.CSS_SELECTOR, "fieldset.raters input[type=checkbox]"), "rater checkboxes")
    assert sorted(b.get_attribute("value") for b in boxes) == ["alice", "bob"], [b.get_attribute("value") for b in boxes]
    assert not any(b.is_selected() for b in boxes), "a rater preselected"
    for b in boxes:
        b.click()
    d2.find_element(By.ID, "start").click()
    wait(d2, lambda: d2.find_elements(By.CSS_SELECTOR, "#adjudicate-form select.decision"), "adjudicate form")
    heads = [h.text for h in d2.find_elements(By.CSS_SELECTOR, "#adjudicate-form th.rater")]
    assert heads == ["alice", "bob"], heads
    first = text_of(d2, "#decision-form .progress")
    assert first.startswith("issue 1 of 2 · acme/conv#2"), first
    row = d2.find_element(By.CSS_SELECTOR, '#adjudicate-form tr[data-dimension="symptom"]')
    cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
    assert cells[:2] == ["Wrong Model", "Crash"], cells
    # Nothing chosen yet: saving asks for a choice and writes nothing.
    d2.find_element(By.ID, "decide").click()
    wait(d2, lambda: "choose a label for symptom" in text_of(d2, "#error"), "a choice is required")
    from selenium.webdriver.support.ui import Select
    Select(row.find_element(By.CSS_SELECTOR, "select.decision")).select_by_value("wrong_model")
    broken = d2.execute_script(BROKEN_WORDS, "#adjudicate-form")
    assert not broken, broken
    shot(d2, "adjudicate")
    d2.find_element(By.ID, "decide").click()
    wait(d2, lambda: text_of(d2, "#decision-form .progress").startswith("issue 2 of 2 · acme/conv#3"), "next dispute")
    assert "acme/conv#2: symptom = wrong_model" in text_of(d2, "#last")
    rows = json.loads(cf("labels", "history", "acme/conv#2", "--annotator", "carol", "--json"))
    assert [(r["dimension"], r["kind"], r["value"], r["source"]) for r in rows] == [("symptom", "adjudication", "wrong_model", "web:adjudicate")], rows
    # Subtypes in dispute (#3: alice type_problem/node, bob incompatibility/internal): the subtype
    # choices are the server's, by the first rater's cause, then by the cause chosen, each time.
    cf("label", "acme/conv#3", "--annotator", "alice", "--cause", "type_problem", "--subtype", "node")
    cf("label", "acme/conv#3", "--annotator", "bob", "--cause", "incompatibility", "--subtype", "internal")
    d2.get(URL + "/#/adjudicate?annotators=alice,bob&go=1")
    d2.refresh()
    wait(d2, lambda: text_of(d2, "#decision-form .progress").startswith("issue 1 of 1 · acme/conv#3"), "the subtype dispute")
    subtypes = lambda: [o.get_attribute("value") for o in d2.find_elements(By.CSS_SELECTOR, '#adjudicate-form select[name="subtype"] option') if o.get_attribute("value")]
    served = served_questions(d2, "acme/conv/3", "?mode=adjudicate&annotators=alice,bob&dimensions=symptom,cause,subtype")
    assert served["cause"] == "type_problem" and subtypes() == [c["id"] for c in served["questions"][2]["choices"]], (served, subtypes())
    cause = d2.find_element(By.CSS_SELECTOR, '#adjudicate-form select[name="cause"]')
    for pick, want in [("incompatibility", ["internal", "external", "resource"]), ("shape_problem", []), ("type_problem", ["node", "tensor", "conventional"])]:
        Select(cause).select_by_value(pick)
        wait(d2, lambda: subtypes() == want, f"the subtypes of {pick}: {want} (shown {subtypes()})")

    cli = json.loads(cf("agreement", "--annotators", "alice,bob", "--json"))
    d2.get(URL + "/#/agreement?a=alice&b=bob")
    wait(d2, lambda: d2.find_elements(By.CSS_SELECTOR, "td.kappa"), "agreement table")
    shot(d2, "agreement")
    for dim, v in cli["dimensions"].items():
        shown = text_of(d2, f'td.kappa[data-dimension="{dim}"]')
        assert shown == "%.3f" % v["kappa"], (dim, shown, v["kappa"])
        print(f"agreement {dim}: page {shown}, CLI {v['kappa']}")
    # Report page: the renderer's tables and SVG charts in the page (no frame), in the page's
    # font; every chart label inside its chart; a y axis with ticks.
    d2.get(URL + "/#/report?source=alice")
    wait(d2, lambda: d2.find_elements(By.CSS_SELECTOR, "#report svg") and d2.find_elements(By.CSS_SELECTOR, "#report table"), "report tables and charts")
    assert not d2.find_elements(By.TAG_NAME, "iframe")
    assert len(d2.find_elements(By.CSS_SELECTOR, ".downloads a")) == 5
    fonts = d2.execute_script("return [getComputedStyle(document.body).fontFamily, getComputedStyle(document.querySelector('#report td')).fontFamily, getComputedStyle(document.querySelector('#report svg text')).fontFamily]")
    assert fonts[0] == fonts[1] == fonts[2], fonts
    check_charts(d2, "#report")
    shot(d2, "report")

    # Campaigns: the list, then one campaign's report (defects with the ONNX Runtime column).
    d2.get(URL + "/#/campaigns")
    link = wait(d2, lambda: d2.find_element(By.CSS_SELECTOR, "#campaign-table a.campaign-link"), "campaign list")
    shot(d2, "campaigns")
    link.click()
    wait(d2, lambda: "Defects found" in text_of(d2, "#campaign-report"), "campaign report")
    report = text_of(d2, "#campaign-report")
    assert "regressed in 1.15.0, fixed in 1.21.0" in report, report[-800:]
    assert d2.find_elements(By.CSS_SELECTOR, "#campaign-report svg")
    check_charts(d2, "#campaign-report")
    shot(d2, "campaign")
    logs = [e for e in d2.get_log("browser") if e["level"] == "SEVERE"]
    assert not logs, logs
finally:
    d2.quit()
# A phone (390 px wide): nothing wider than the screen, no two header parts over each other.
d3 = browser("500,844")  # headless Chromium's smallest window; the phone's width is emulated
d3.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
try:
    login(d3, "alice")
    for name, path, ready in [("phone_search", "/#/", "#issue-table"), ("phone_issue", "/#/issue/zeta/hostile/1", "#issue-body .md"),
                              ("phone_report", "/#/report?source=alice", "#report svg")]:
        d3.get(URL + path)
        wait(d3, lambda: d3.find_elements(By.CSS_SELECTOR, ready), name)
        layout = d3.execute_script(PHONE_LAYOUT)
        assert layout["width"] <= 390 and layout["scroll"] <= layout["width"], (name, layout)
        assert not layout["overlaps"], (name, layout)
        shot(d3, name)
        print(f"{name}: viewport {layout['width']} px, page {layout['scroll']} px, no overlap")
finally:
    d3.quit()
print("web_browser: ok")
