"""Debian's headless Chromium under selenium, as the browser tests drive it."""
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def browser(size="1400,1000"):
    """A fresh headless Chromium (own profile, no network side traffic) of window `size`."""
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for a in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--user-data-dir=" + tempfile.mkdtemp(prefix="cf-chrome-"), "--window-size=" + size]:
        o.add_argument(a)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
    d.set_page_load_timeout(30)
    return d
