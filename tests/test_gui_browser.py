"""The browser application in real headless Chromium (Debian `chromium` and
`chromium-driver`, driven by Selenium): a game against the computer started from the New
Game dialog, moves by clicking and by dragging, highlights, running clocks, Pause, the
movable-pieces view, flipping, Save and Load, and two browsers playing one game through
one server.  Skipped with a one-line reason without Chromium, except under CI=true."""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
import threading
import time
import urllib.request

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="aiohttp is not installed (pip install -e .)")

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1200,860"]


@pytest.fixture(scope="module")
def server_url():
    """A GuiServer on a free loopback port, in a thread of its own."""
    from aiohttp import web

    from gui.server import GuiServer

    started = threading.Event()
    holder = {}

    def serve():
        loop = asyncio.new_event_loop()
        holder["loop"] = loop
        runner = web.AppRunner(GuiServer(workers=2).app(), handle_signals=False)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        holder["port"] = runner.addresses[0][1]
        holder["runner"] = runner
        started.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert started.wait(20)
    yield f"http://127.0.0.1:{holder['port']}"
    holder["loop"].call_soon_threadsafe(holder["loop"].stop)
    thread.join(10)


def new_driver(require_program):
    require_program("chromium", "chromedriver")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    profile = tempfile.mkdtemp(prefix="antichess-gui-chromium-")
    for flag in CHROMIUM_FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.implicitly_wait(0)
    return driver, profile


@pytest.fixture(scope="module")
def browser(require_program):
    driver, profile = new_driver(require_program)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def by_css(driver, css):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, css)


def all_css(driver, css):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def square(driver, name):
    return by_css(driver, f'[data-square="{name}"]')


def wait_until(check, seconds=10.0, what="the page"):
    deadline = time.monotonic() + seconds
    while True:
        try:
            result = check()
        except Exception:  # an element replaced while we looked
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def history(driver):
    return re.findall(r"[a-h][1-8]-[a-h][1-8]|\(pass\)", by_css(driver, "#history").text)


def targets(driver):
    return sorted(e.get_attribute("data-square") for e in all_css(driver, "[data-target]"))


def open_game(driver, url):
    driver.get(url)
    wait_until(lambda: "/game/" in driver.current_url and by_css(driver, "#status").text.endswith(")"),
               what="the game to start")


def test_human_against_computer_from_the_dialog(browser, server_url):
    from selenium.webdriver.support.ui import Select

    browser.get(server_url + "/")
    dialog = wait_until(lambda: by_css(browser, "#new-game-dialog").is_displayed() and by_css(browser, "#new-game-dialog"),
                        what="the New Game dialog")
    Select(by_css(dialog, "select[name=white]")).select_by_value("human")
    Select(by_css(dialog, "select[name=black]")).select_by_value("computer")
    Select(by_css(dialog, "select[name=black_level]")).select_by_value("1")
    wait_until(lambda: by_css(dialog, "#variant-select option[value=antichess]"), what="the rule sets")
    by_css(dialog, "input[name=white_timed]").click()
    by_css(dialog, "input[name=black_timed]").click()
    by_css(dialog, "#new-ok").click()
    wait_until(lambda: "/game/" in browser.current_url, what="the game to start")
    assert by_css(browser, "#status").text == "White to move (human)"
    assert square(browser, "e1").get_attribute("data-piece") == "K"
    assert square(browser, "e7").get_attribute("data-piece") == "p"
    # the clocks run: mm:ss, counting down on the side to move
    assert re.fullmatch(r"0[45]:[0-5][0-9]", by_css(browser, "#clock-white").text)
    wait_until(lambda: by_css(browser, "#clock-white").text <= "04:58", 4, "white's clock to run")
    assert by_css(browser, "#clock-black").text == "05:00"
    # a click on a pawn highlights its targets; a click on one plays it; the computer answers
    square(browser, "e2").click()
    wait_until(lambda: targets(browser) == ["e3", "e4"], what="e2's targets")
    assert "selected" in square(browser, "e2").get_attribute("class")
    square(browser, "e4").click()
    wait_until(lambda: len(history(browser)) == 2, 15, "the computer's answer")
    assert history(browser)[0] == "e2-e4"
    assert square(browser, "e4").get_attribute("data-piece") == "P"
    assert "latest" in by_css(browser, "#history .move:last-child").get_attribute("class")
    assert targets(browser) == []


def test_drag_and_drop_flip_and_movable_view(browser, server_url):
    from selenium.webdriver.common.action_chains import ActionChains

    open_game(browser, server_url + "/?variant=antichess&white=human&black=human")
    ActionChains(browser).drag_and_drop(square(browser, "g1"), square(browser, "f3")).perform()
    wait_until(lambda: history(browser) == ["g1-f3"], what="the dragged move")
    assert square(browser, "f3").get_attribute("data-piece") == "N"
    assert square(browser, "g1").get_attribute("data-piece") is None
    # a drop on a square that is no target plays nothing
    ActionChains(browser).drag_and_drop(square(browser, "e7"), square(browser, "e4")).perform()
    time.sleep(0.3)
    assert history(browser) == ["g1-f3"]
    # holding the space bar shows the pieces that can move and the last move
    ActionChains(browser).key_down(" ").perform()
    movable = wait_until(lambda: sorted(e.get_attribute("data-square") for e in all_css(browser, ".square.movable")))
    assert "e7" in movable and "g8" in movable and "e8" not in movable
    assert sorted(e.get_attribute("data-square") for e in all_css(browser, ".square.last")) == ["f3", "g1"]
    ActionChains(browser).key_up(" ").perform()
    wait_until(lambda: not all_css(browser, ".square.movable"), what="the view to go")
    by_css(browser, "#btn-flip").click()
    assert all_css(browser, "#board .square")[0].get_attribute("data-square") == "h1"
    by_css(browser, "#btn-flip").click()
    assert all_css(browser, "#board .square")[0].get_attribute("data-square") == "a8"


def test_pause_hides_the_board_and_end_game_names_the_result(browser, server_url):
    open_game(browser, server_url + "/?variant=mit-antichess&white=human&black=human&minutes=3")
    by_css(browser, "#btn-pause").click()
    wait_until(lambda: by_css(browser, "#paused-cover").is_displayed(), what="the pause cover")
    assert by_css(browser, "#status").text == "Paused" and by_css(browser, "#btn-pause").text == "Unpause"
    assert not square(browser, "e2").is_displayed()
    frozen = by_css(browser, "#clock-white").text
    time.sleep(1.2)
    assert by_css(browser, "#clock-white").text == frozen
    by_css(browser, "#btn-pause").click()
    wait_until(lambda: square(browser, "e2").is_displayed(), what="the board to come back")
    by_css(browser, "#btn-end").click()
    wait_until(lambda: by_css(browser, "#message-dialog").is_displayed(), what="the result dialog")
    assert by_css(browser, "#message-title").text == "Game ended"
    by_css(browser, "#message-ok").click()


def test_a_saved_game_loads_back_and_a_corrupt_file_is_refused(browser, server_url, tmp_path):
    pytest.importorskip("engine.coursefile", reason="engine.coursefile is not in this checkout")
    open_game(browser, server_url + "/?variant=mit-antichess&white=human&black=human")
    for origin, target in (("e2", "e4"), ("d7", "d5"), ("e4", "d5")):
        square(browser, origin).click()
        wait_until(lambda: target in targets(browser), what=f"{origin}'s targets")
        square(browser, target).click()
        wait_until(lambda: square(browser, target).get_attribute("data-piece") is not None and
                   len(history(browser)) >= 1 and history(browser)[-1] == f"{origin}-{target}", what="the move")
    game_id = browser.current_url.rsplit("/", 1)[1]
    saved = tmp_path / "saved.xml"  # the file Save downloads
    saved.write_bytes(urllib.request.urlopen(f"{server_url}/api/games/{game_id}/game.xml").read())
    open_game(browser, server_url + "/?variant=antichess&white=human&black=human")
    by_css(browser, "#load-file").send_keys(str(saved))
    wait_until(lambda: history(browser) == ["e2-e4", "d7-d5", "e4-d5"], what="the loaded game")
    assert square(browser, "d5").get_attribute("data-piece") == "P"
    assert by_css(browser, "#variant-name").text == "Rules: mit-antichess"
    corrupt = tmp_path / "corrupt.xml"
    corrupt.write_text('<?xml version="1.0"?><!DOCTYPE game [<!ENTITY x "boom">]><game ruleset="&x;"/>')
    by_css(browser, "#load-file").send_keys(str(corrupt))
    wait_until(lambda: by_css(browser, "#message-dialog").is_displayed(), what="the error message")
    assert by_css(browser, "#message-text").text.startswith("Not a valid antichess game file")
    by_css(browser, "#message-ok").click()
    assert history(browser) == ["e2-e4", "d7-d5", "e4-d5"]


def test_two_browsers_play_one_game(browser, server_url, require_program):
    from selenium.webdriver.support.ui import Select

    browser.get(server_url + "/")
    dialog = wait_until(lambda: by_css(browser, "#new-game-dialog").is_displayed() and by_css(browser, "#new-game-dialog"),
                        what="the New Game dialog")
    Select(by_css(dialog, "select[name=black]")).select_by_value("human")
    by_css(dialog, "#network").click()
    by_css(dialog, "#new-ok").click()
    wait_until(lambda: "/game/" in browser.current_url, what="the game to start")
    link = wait_until(lambda: by_css(browser, "#share").get_attribute("value"), what="the link")
    assert "black is free" in by_css(browser, "#seat").text
    second, profile = new_driver(require_program)
    try:
        second.get(link)
        wait_until(lambda: by_css(second, "#seat").text == "You play black", what="the second seat")
        wait_until(lambda: "You play white" == by_css(browser, "#seat").text, what="the seat to be taken")
        # black cannot pick white's pieces
        square(second, "e2").click()
        assert targets(second) == []
        square(browser, "e2").click()
        wait_until(lambda: targets(browser) == ["e3", "e4"], what="targets")
        square(browser, "e3").click()
        started = time.monotonic()
        wait_until(lambda: square(second, "e3").get_attribute("data-piece") == "P", 1.0, "the move on the other page")
        shown_after = time.monotonic() - started
        square(second, "b7").click()
        wait_until(lambda: "b5" in targets(second), what="black's targets")
        square(second, "b5").click()
        wait_until(lambda: square(browser, "b5").get_attribute("data-piece") == "p", 1.0, "black's move")
        # white must capture now (course rules): the only piece with a target is the bishop
        square(browser, "f1").click()
        wait_until(lambda: targets(browser) == ["b5"], what="the compulsory capture")
        square(browser, "b5").click()
        wait_until(lambda: history(second) == ["e2-e3", "b7-b5", "f1-b5"], 1.0, "white's capture")
        # the second player reloads: the game comes back, still black's seat
        second.refresh()
        wait_until(lambda: history(second) == ["e2-e3", "b7-b5", "f1-b5"] and
                   by_css(second, "#seat").text == "You play black", what="the game after a reload")
        assert shown_after < 1.0
    finally:
        second.quit()
        shutil.rmtree(profile, ignore_errors=True)
