"""The web page in a real headless browser: Debian's Chromium (/usr/bin/chromium, installed
by .ci/run) driven by Playwright. Screenshots go to tests/service/artifacts/."""

from __future__ import annotations

import os
import shutil

import pytest

from service.svc import ARTIFACTS, KEY

pytestmark = pytest.mark.browser
CHROMIUM = next((p for p in (os.environ.get("RAGD_CHROMIUM"), "/usr/bin/chromium",
                             "/usr/bin/chromium-browser", shutil.which("chromium"))
                 if p and os.path.exists(p)), None)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium binary (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, live):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.set_default_timeout(60_000)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(live.url + "/")
    page.fill("#key", KEY)
    page.press("#key", "Enter")
    page.wait_for_selector("#collection option[value=policies]", state="attached")
    page.problems = problems
    yield page
    context.close()


def ask(page, question: str) -> None:
    page.fill("#question", question)
    page.press("#question", "Enter")
    page.wait_for_selector("#answer .box")


def test_answer_citations_expand_to_the_highlighted_passage(page):
    page.select_option("#collection", "demo")
    ask(page, "What are the restrictions on military end users?")
    assert page.locator(".badge.ok").inner_text() == "answered"
    sentences = page.locator("ol.sentences > li")
    assert sentences.count() >= 1
    cite = page.locator("button.cite").first
    assert cite.get_attribute("aria-expanded") == "false"
    cite.focus()
    page.keyboard.press("Enter")  # keyboard opens it
    assert cite.get_attribute("aria-expanded") == "true"
    passage = page.locator(".passage:not([hidden])").first
    assert passage.locator("h3").inner_text().split("] ", 1)[1].startswith("15 CFR")
    assert passage.locator("mark").count() >= 1
    marked = " ".join(passage.locator("mark").all_inner_texts())
    first_sentence = sentences.first.inner_text()
    assert marked and marked.split()[0] in first_sentence
    page.screenshot(path=str(ARTIFACTS / "answer-ear.png"), full_page=True)
    assert not page.problems, page.problems


def test_refusal_search_tab_and_no_script_from_documents(page):
    page.select_option("#profile", "default")
    assert page.locator("#collection").input_value() == "policies"
    ask(page, "What does ITAR say about USML defense articles?")
    assert page.locator("#refusal").inner_text() == \
        "I cannot answer that from the documents I have."
    page.screenshot(path=str(ARTIFACTS / "refusal.png"), full_page=True)
    ask(page, "When are lost badges reported?")
    page.locator("button.cite").first.click()
    page.focus("#tab-ask")
    page.keyboard.press("ArrowRight")
    assert page.locator("#tab-search").get_attribute("aria-selected") == "true"
    page.fill("#query", "badges script")
    page.press("#query", "Enter")
    page.wait_for_selector("ol.results > li")
    heads = page.locator(".result-head strong").all_inner_texts()
    assert heads[0].startswith("1. ")
    assert "score" in page.locator(".result-head .scores").first.inner_text()
    text = " ".join(page.locator("ol.results .text").all_inner_texts())
    assert "<script>window.__pwned=2</script>" in text  # shown as text, never run
    assert page.evaluate("window.__pwned") is None
    assert page.locator("ol.results img, #answer img").count() == 0
    page.screenshot(path=str(ARTIFACTS / "search.png"), full_page=True)
    assert not page.problems, page.problems


def test_readable_on_a_phone(browser, live):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    page = context.new_page()
    page.goto(live.url + "/")
    page.fill("#key", KEY)
    page.press("#key", "Enter")
    page.wait_for_selector("#collection option[value=policies]", state="attached")
    page.select_option("#collection", "policies")
    ask(page, "How long must audit logs be retained?")
    page.locator("button.cite").first.click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(ARTIFACTS / "phone.png"), full_page=True)
    context.close()
