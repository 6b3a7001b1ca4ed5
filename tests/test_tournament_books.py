"""The opening books ship with the package: they are package data, `-openings file=NAME`
finds a shipped book by its name when no such file exists, the documentation's examples
name books a pip user has, and an error in a book names the file and the line."""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from tournaments import cli
from tournaments.openings import OpeningsError, OpeningsSpec, load

ROOT = Path(__file__).resolve().parent.parent
BOOKS = ROOT / "tournaments" / "books"
DOCS = ROOT / "docs" / "tournaments.md"
BROKEN = ROOT / "tests" / "data" / "tournaments" / "broken_engine.py"


def test_every_book_is_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = data.get("tournaments", [])
    books = sorted(p.relative_to(ROOT / "tournaments").as_posix() for p in BOOKS.glob("*.epd"))
    assert len(books) >= 4
    for book in books:
        assert any(fnmatch.fnmatch(book, pattern) for pattern in patterns), (book, patterns)


@pytest.mark.parametrize("name", ["antichess.epd", "antichess", "mit-antichess.epd"])
def test_a_shipped_book_is_found_by_its_name(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)   # no such file here
    variant = "mit-antichess" if name.startswith("mit") else "antichess"
    book = load(OpeningsSpec(file=name), variant)
    assert len(book) == 100
    assert book[0].fen == load(OpeningsSpec(file=str(BOOKS / f"{variant}.epd")), variant)[0].fen


def test_a_file_of_that_name_wins_over_the_shipped_book(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "antichess.epd").write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - -\n")
    assert len(load(OpeningsSpec(file="antichess.epd"), "antichess")) == 1


def test_an_unknown_book_lists_the_shipped_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OpeningsError) as error:
        load(OpeningsSpec(file="nosuchbook.epd"), "antichess")
    text = str(error.value)
    assert "nosuchbook.epd" in text and "antichess.epd" in text and "mit-antichess.epd" in text


def test_a_tournament_with_a_shipped_book_from_anywhere(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = cli.main(["-engine", "name=a", f"cmd={sys.executable} {BROKEN} illegal",
                     "-engine", "name=b", f"cmd={sys.executable} {BROKEN} illegal",
                     "-each", "tc=1", "-variant", "antichess", "-games", "2",
                     "-openings", "file=antichess.epd", "order=random", "-srand", "1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Score of a vs b: 1 - 1 - 0" in captured.out


def test_an_error_in_an_epd_book_names_the_file_and_the_line(tmp_path):
    book = tmp_path / "bad.epd"
    book.write_text("# a comment\n"
                    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - -\n"
                    "not a position\n")
    with pytest.raises(OpeningsError) as error:
        load(OpeningsSpec(file=str(book)), "antichess")
    assert str(book) in str(error.value) and "line 3" in str(error.value)


def test_an_error_in_a_pgn_book_names_the_file_and_the_line(tmp_path):
    book = tmp_path / "bad.pgn"
    book.write_text('[Event "one"]\n\n1. e3 b5 *\n\n'
                    '[Event "two"]\n[Site "?"]\n\n1. e3 e6\n2. Ke2 Qh4 3. Kd1 *\n')
    with pytest.raises(OpeningsError) as error:   # 2... Qh4 is fine, 3. Kd1 is not (Qd1)
        load(OpeningsSpec(file=str(book), format="pgn"), "antichess")
    text = str(error.value)
    assert str(book) in text and "line 9" in text and "game 2" in text and "Kd1" in text, text


def test_the_docs_name_the_extra_and_only_books_a_pip_user_has():
    text = DOCS.read_text()
    assert re.search(r"pip install [^\n]*antichess-engine\[tournaments\]", text)
    shipped = {p.name for p in BOOKS.glob("*.epd")}
    examples = "\n".join(re.findall(r"^```\n(.*?)^```", text, re.M | re.S))
    named = re.findall(r"-openings file=(\S+)", examples)
    assert named
    for name in named:
        assert "/" not in name and (name in shipped or f"{name}.epd" in shipped), name


@pytest.mark.slow
def test_the_wheel_holds_the_books(tmp_path):
    # pip builds the wheel of the tracked files in an isolated environment (it fetches the
    # build backend, setuptools>=68, as any `pip install .` does)
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT,
                           check=True).stdout.split()
    source = tmp_path / "src"
    for name in files:
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if (ROOT / name).is_file():
            target.write_bytes((ROOT / name).read_bytes())
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                    "-w", str(tmp_path / "dist"), str(source)], check=True, capture_output=True)
    wheel = next((tmp_path / "dist").glob("*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for book in BOOKS.glob("*.epd"):
        assert f"tournaments/books/{book.name}" in names


def test_the_refereed_antichess_books_load_and_share_no_position():
    books = {name: load(OpeningsSpec(file=str(BOOKS / name)), "antichess")
             for name in ("antichess-balanced.epd", "antichess-balanced-check.epd",
                          "antichess.epd", "antichess-check.epd")}
    assert len(books["antichess-balanced.epd"]) == 200
    assert len(books["antichess-balanced-check.epd"]) == 197
    positions = {name: {" ".join(o.fen.split()[:4]) for o in book} for name, book in books.items()}
    for name, book in books.items():
        assert len(positions[name]) == len(book), name   # no position twice in a book
    names = sorted(positions)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not positions[a] & positions[b], (a, b)
