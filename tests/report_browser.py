"""Open a report page in a real headless browser (Debian's ``chromium``, driven by Playwright over CDP).

:func:`check_page` loads ``index.html`` from disk (``file://``, no server) and reports what a reader's
browser would meet: console messages of level error and warning, uncaught page errors, requests that
failed (a missing picture), every link and image with whether it resolves, and a screenshot.
The browser is the system's (``chromium`` on the PATH, ``.ci/run`` installs it); Playwright's own browser
downloads are never used.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageCheck:
    title: str
    console: list[tuple[str, str]] = field(default_factory=list)  # (type, text)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # absolute hrefs as the browser resolved them
    images: list[tuple[str, bool]] = field(default_factory=list)  # (src, loaded)
    fragments_missing: list[str] = field(default_factory=list)
    text: str = ""

    @property
    def console_errors(self) -> list[str]:
        return [text for kind, text in self.console if kind == "error"]

    def unresolved_links(self) -> list[str]:
        """Links that do not lead to a file on disk (or leave the page's folder for the network)."""
        bad = []
        for href in self.links:
            parts = urlsplit(href)
            if parts.scheme != "file":
                bad.append(href)
            elif not Path(unquote(parts.path)).is_file():
                bad.append(href)
        return bad + [f"#{f}" for f in self.fragments_missing]


def check_page(index: str | Path, screenshot: str | Path | None = None, *, width: int = 1280, height: int = 900,
               full_page: bool = False, timeout_s: float = 60.0) -> PageCheck:
    """Load ``index`` in headless chromium and collect what a reader's browser meets."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        raise FileNotFoundError("no chromium on the PATH (Debian: apt-get install -y chromium)")
    url = Path(index).resolve().as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"],
                                     timeout=timeout_s * 1000)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            check = PageCheck(title="")
            page.on("console", lambda m: check.console.append((m.type, m.text)))
            page.on("pageerror", lambda e: check.page_errors.append(str(e)))
            page.on("requestfailed", lambda r: check.failed_requests.append(r.url))
            page.goto(url, wait_until="load", timeout=timeout_s * 1000)
            check.title = page.title()
            check.links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
            check.images = [tuple(x) for x in page.eval_on_selector_all(
                "img", "els => els.map(e => [e.src, e.complete && e.naturalWidth > 0])")]
            check.fragments_missing = page.evaluate(
                "() => Array.from(document.querySelectorAll('a[href^=\"#\"]'))"
                ".map(a => a.getAttribute('href').slice(1)).filter(id => !document.getElementById(id))")
            check.text = page.inner_text("body")
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=full_page)
        finally:
            browser.close()
    return check
