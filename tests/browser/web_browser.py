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
import tempfile

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL, CMD, ART = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]


def cf(*args):
    return subprocess.run(CMD + list(args), check=True, capture_output=True, text=True).stdout


def browser():
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for a in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--user-data-dir=" + tempfile.mkdtemp(prefix="cf-chrome-"), "--window-size=1400,1000"]:
        o.add_argument(a)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
    d.set_page_load_timeout(30)
    return d


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


def start_annotate(d, n_items):
    d.get(URL + "/#/annotate?queue=unlabeled&size=%d&go=1" % n_items)
    wait(d, lambda: progress(d).startswith("issue 1 of"), "annotation queue")


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
    assert d1.find_elements(By.CSS_SELECTOR, ".text mark.ev"), "no evidence highlighted in the body"
    # The hostile issue: its HTML shows as text and runs nothing.
    d1.get(URL + "/#/issue/zeta/hostile/1")
    wait(d1, lambda: "<b>bold</b>" in text_of(d1, "#issue-title"), "hostile issue")
    body = d1.find_element(By.CSS_SELECTOR, ".text").text
    assert "<script>window.pwned=1</script>" in body, body
    assert d1.execute_script("return window.pwned === undefined && document.querySelectorAll('main script, main img, main b').length === 0")
    d1.get(URL + "/#/issue/acme/conv/1")
    wait(d1, lambda: "Synthetic crash" in text_of(d1, "#issue-title"), "issue page again")
    d1.save_screenshot(ART + "/web_issue.png")

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
    # Adjudicate (not blind): the two raters' labels side by side.
    d2.get(URL + "/#/adjudicate?annotators=alice,bob&go=1")
    wait(d2, lambda: "alice" in text_of(d2, "#side-by-side") and "bob" in text_of(d2, "#side-by-side"), "adjudicate side by side")
    shot(d2, "adjudicate")
    cli = json.loads(cf("agreement", "--annotators", "alice,bob", "--json"))
    d2.get(URL + "/#/agreement?a=alice&b=bob")
    wait(d2, lambda: d2.find_elements(By.CSS_SELECTOR, "td.kappa"), "agreement table")
    shot(d2, "agreement")
    for dim, v in cli["dimensions"].items():
        shown = text_of(d2, f'td.kappa[data-dimension="{dim}"]')
        assert shown == "%.3f" % v["kappa"], (dim, shown, v["kappa"])
        print(f"agreement {dim}: page {shown}, CLI {v['kappa']}")
    # Report page: the renderer's tables and SVG charts in a frame, with downloads.
    d2.get(URL + "/#/report?source=alice")
    frame = wait(d2, lambda: d2.find_element(By.ID, "report-frame"), "report frame")
    d2.switch_to.frame(frame)
    wait(d2, lambda: d2.find_elements(By.TAG_NAME, "svg") and d2.find_elements(By.TAG_NAME, "table"), "report tables and charts")
    d2.switch_to.default_content()
    assert len(d2.find_elements(By.CSS_SELECTOR, ".downloads a")) == 5
    d2.save_screenshot(ART + "/web_report.png")
    logs = [e for e in d2.get_log("browser") if e["level"] == "SEVERE"]
    assert not logs, logs
finally:
    d2.quit()
print("web_browser: ok")
