"""Every rules citation in the repository names a section that exists in the repository.

The citation form is ``<game>.md §N`` (``§N`` alone once the game is known from the text
before it or from the file's path), where ``N`` is a numbered heading of the rules
reference in ``docs/games/<game>.md``; ``§6 #14`` and ``§5.3 P4`` name a numbered item of
that section. Links to ``docs/...md`` pages (with an optional ``#anchor``) must resolve,
and nothing may cite the rules files that live outside the repository. The scan covers
the packages' code and data, the docs, and the ``rule`` of every ``IllegalAction`` the
games raise for illegal moves.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from niwa import engine
from niwa.engine import CHANCE, IllegalAction, State

ROOT = Path(__file__).resolve().parents[2]
GAMES = tuple(engine.games())
SCANNED = ("niwa", "docs", "README.md", "CHANGES.md")
#: Scanned only for citations of the project's own notes and issues (which users cannot
#: see): the rest of what the repository ships, tests included.
SHIPPED = (*SCANNED, "tests", "examples", "kits", "deploy", "proto", ".ci")
SUFFIXES = {".py", ".md", ".json", ".proto", ".toml", ".txt", ".js", ".cpp", ".go", ".java",
            ".yml", ".yaml", ".service", ".conf", ""}

_HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)
_ITEM = re.compile(r"\*\*(#\d+|P\d+)\b")
_TOKEN = re.compile(
    r"(?P<game>\b[a-z][\w-]*\.md\b)"
    r"|§\s*(?P<section>\d+(?:\.\d+)*)(?P<items>(?:\s*(?:,|and|-|–)?\s*(?:#\d+|P\d+)\b)*)"
)
_ITEM_REF = re.compile(r"#\d+|P\d+")
_DOC_LINK = re.compile(r"(?P<path>(?:docs/)?[\w./-]*\.md)#(?P<anchor>[\w-]+)")
_PAGE_LINK = re.compile(r"\]\(#(?P<anchor>[\w-]+)\)")
_DOC_PATH = re.compile(r"\bdocs/(?:[\w-]+/)*[\w-]+\.md\b")
# The rules texts and rules data live outside the repository: users cannot open them.
_OUTSIDE = re.compile(
    r"shared/rules|/work/shared|[\w-]+-(?:rulebook|rulesheet|gamehelp)[\w-]*\.txt"
)

# The builders' design notes and issue tracker are not in the repository either.
_UNSEEN = re.compile(r"\bDESIGN\.md\b|\b[Ii]ssues?\s+#?\d+\b")


@dataclass(frozen=True)
class Sections:
    """The numbered headings of one rules reference, each with the items it numbers."""

    items: dict[str, frozenset[str]]


Lookup = Callable[[str], "Sections | None"]


@dataclass(frozen=True)
class Broken:
    where: str
    citation: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.citation!r}: {self.why}"


def sections_of(markdown: str) -> Sections:
    """Numbered headings (``## 6.`` or ``### 5.3``) and the ``**#n**``/``**Pn**`` items
    in the text that follows each, up to the next numbered heading."""
    found = list(_HEADING.finditer(markdown))
    items: dict[str, frozenset[str]] = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(markdown)
        items[m.group(1)] = frozenset(_ITEM.findall(markdown[m.end() : end]))
    return Sections(items)


@cache
def game_sections(game: str) -> Sections | None:
    page = ROOT / "docs" / "games" / f"{game}.md"
    return sections_of(page.read_text("utf-8")) if page.is_file() else None


def game_of_path(path: str) -> str | None:
    """The game a file is about, from its path (``niwa/engine/rulesets/sakura/...``)."""
    for game in GAMES:
        if re.search(rf"(?:^|/){game}(?:/|\.md$|\.py$)", path):
            return game
    return None


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces -> '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors_of(markdown: str) -> set[str]:
    return {github_anchor(h) for h in re.findall(r"^#{1,6}\s+(.+)$", markdown, re.MULTILINE)}


def check_text(text: str, where: str, default_game: str | None, sections: Lookup) -> list[Broken]:
    """Every broken citation in ``text``; ``where`` names the file, ``sections`` gives a
    game's rules reference (None: ``docs/games/<game>.md`` does not exist)."""
    broken: list[Broken] = []
    anchors = anchors_of(text) if where.endswith(".md") else set()
    for lineno, line in enumerate(text.splitlines(), 1):
        here = f"{where}:{lineno}"
        for m in _OUTSIDE.finditer(line):
            broken.append(Broken(here, m.group(0), "points outside the repository"))
        for m in _DOC_PATH.finditer(line):
            if not (ROOT / m.group(0)).is_file():
                broken.append(Broken(here, m.group(0), "no such page"))
        for m in _PAGE_LINK.finditer(line):
            if where.endswith(".md") and m.group("anchor") not in anchors:
                broken.append(Broken(here, m.group(0), "no such heading on this page"))
        for m in _DOC_LINK.finditer(line):
            broken.extend(_check_link(m, where, here))
    game = default_game
    for m in _TOKEN.finditer(text):
        here = f"{where}:{text.count(chr(10), 0, m.start()) + 1}"
        if m.group("game"):
            game = m.group("game")[: -len(".md")]
            continue
        section, cited = m.group("section"), m.group(0).strip()
        if game is None:
            broken.append(Broken(here, cited, "no game named before it or in the file path"))
            continue
        known = sections(game)
        if known is None:
            broken.append(Broken(here, cited, f"docs/games/{game}.md does not exist"))
        elif section not in known.items:
            broken.append(
                Broken(here, f"{game}.md {cited}", f"no heading {section} in docs/games/{game}.md")
            )
        else:
            for item in _ITEM_REF.findall(m.group("items")):
                if item not in known.items[section]:
                    broken.append(
                        Broken(here, f"{game}.md {cited}", f"§{section} numbers no item {item}")
                    )
    return broken


def _check_link(m: re.Match[str], where: str, here: str) -> list[Broken]:
    raw = m.group("path")
    base = ROOT / Path(where).parent
    target = (ROOT / raw) if raw.startswith("docs/") else (base / raw)
    if not target.is_file():
        return [Broken(here, m.group(0), "no such page")]
    if m.group("anchor") not in anchors_of(target.read_text("utf-8")):
        return [Broken(here, m.group(0), "no such heading on that page")]
    return []


def repository_files(names: tuple[str, ...] = SCANNED) -> Iterator[Path]:
    for name in names:
        top = ROOT / name
        paths = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in paths:
            caches = [part for part in path.parts if part.endswith("_cache")]  # tools' own
            if path.is_file() and path.suffix in SUFFIXES and not caches:
                yield path


def unseen_citations(text: str, where: str) -> list[Broken]:
    """Citations of the design notes or of an issue by number: not in the repository."""
    return [
        Broken(f"{where}:{lineno}", m.group(0), "cites what is not in the repository")
        for lineno, line in enumerate(text.splitlines(), 1)
        for m in _UNSEEN.finditer(line)
    ]


def check_file(path: Path) -> list[Broken]:
    where = path.relative_to(ROOT).as_posix()
    return check_text(path.read_text("utf-8"), where, game_of_path(where), game_sections)


# --- the checker itself ------------------------------------------------------------------

PAGE = """# Game
## 1. Setup
## 6. Round
- **#14 Reaching a sakura.** text
### 6.2 Detail
"""


def page(markdown: str) -> Lookup:
    return {"sakura": sections_of(markdown)}.get


def test_a_citation_of_an_existing_heading_passes() -> None:
    assert check_text("see sakura.md §6 and §6.2, §1", "x.py", None, page(PAGE)) == []


def test_a_citation_of_a_missing_heading_is_named_with_file_and_line() -> None:
    broken = check_text('"""Intro.\n\nRound (sakura.md §7)."""', "engine/x.py", None, page(PAGE))
    assert [(b.where, b.why) for b in broken] == [
        ("engine/x.py:3", "no heading 7 in docs/games/sakura.md")
    ]


def test_a_bare_section_takes_the_game_of_the_file_path() -> None:
    broken = check_text("# (§9)", "niwa/engine/rulesets/sakura/state.py", "sakura", page(PAGE))
    assert [b.why for b in broken] == ["no heading 9 in docs/games/sakura.md"]


def test_a_bare_section_with_no_game_to_resolve_it_is_broken() -> None:
    broken = check_text("rule §2", "niwa/cli.py", None, page(PAGE))
    assert [b.why for b in broken] == ["no game named before it or in the file path"]


def test_a_numbered_item_must_exist_in_its_section() -> None:
    ok = check_text("sakura.md §6 #14", "x.py", None, page(PAGE))
    bad = check_text("sakura.md §6 #14, #15", "x.py", None, page(PAGE))
    assert ok == []
    assert [b.why for b in bad] == ["§6 numbers no item #15"]


def test_a_section_of_a_game_without_a_page_is_broken() -> None:
    broken = check_text("chess.md §1", "x.py", None, page(PAGE))
    assert [b.why for b in broken] == ["docs/games/chess.md does not exist"]


def test_citing_the_rules_files_outside_the_repository_is_broken() -> None:
    text = "source: shared/rules/blossom.md and blossom-rulesheet.txt"
    broken = check_text(text, "niwa/engine/rulesets/blossom/data/rules.json", None, page(PAGE))
    assert [b.citation for b in broken if b.why == "points outside the repository"] == [
        "shared/rules",
        "blossom-rulesheet.txt",
    ]


def test_citing_the_design_notes_or_an_issue_number_is_broken() -> None:
    text = "as DESIGN.md says (issue 14), and issue #26 too; an issue with no number is fine"
    assert [b.citation for b in unseen_citations(text, "docs/x.md")] == [
        "DESIGN.md",
        "issue 14",
        "issue #26",
    ]


def test_a_link_to_a_missing_page_or_heading_is_broken() -> None:
    broken = check_text(
        "see docs/games/nowhere.md and [x](protocol.md#no-such-heading)",
        "docs/writing-a-bot.md",
        None,
        page(PAGE),
    )
    assert sorted(b.why for b in broken) == ["no such heading on that page", "no such page"]


def test_a_link_to_a_missing_heading_of_the_same_page_is_broken() -> None:
    text = "# Page\n## 0. Configuration values\nsee [0](#0-configuration-values), [x](#nowhere)\n"
    broken = check_text(text, "docs/games/x.md", None, page(PAGE))
    assert [(b.where, b.why) for b in broken] == [
        ("docs/games/x.md:3", "no such heading on this page")
    ]


def test_a_planted_bad_citation_in_a_file_is_caught(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('raise IllegalAction("bonsai.md §12.3", "no such rule")\n', "utf-8")
    broken = check_text(planted.read_text("utf-8"), "engine/planted.py", None, game_sections)
    assert [str(b) for b in broken] == [
        "engine/planted.py:1: 'bonsai.md §12.3': no heading 12.3 in docs/games/bonsai.md"
    ]


# --- the repository ----------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_numbered_rules_reference(game: str) -> None:
    sections = game_sections(game)
    assert sections is not None and len(sections.items) >= 8, f"docs/games/{game}.md"


def test_every_citation_in_code_data_and_docs_resolves() -> None:
    broken = [str(b) for path in repository_files() for b in check_file(path)]
    assert broken == [], "\n".join(broken)


def test_nothing_shipped_cites_the_design_notes_or_an_issue_number() -> None:
    this = Path(__file__).resolve()
    broken = [
        str(b)
        for path in repository_files(SHIPPED)
        if path.resolve() != this
        for b in unseen_citations(path.read_text("utf-8"), path.relative_to(ROOT).as_posix())
    ]
    assert broken == [], "\n".join(broken)


def _refusals(state: State, rng: random.Random) -> Iterator[IllegalAction]:
    """Illegal moves tried on ``state``: junk, a wrong seat, a wrong step, a bent action."""
    seats = state.to_move()
    others = [s for s in range(8) if s not in seats]
    tries: list[dict[int, object]] = [{others[0]: {"type": "pass"}}]
    if seats:
        tries.append({s: {"type": "nonsense"} for s in seats})
        tries.append({s: {} for s in seats})
    if seats and seats != (CHANCE,):
        legal = state.legal_actions(seats[0])
        if legal and isinstance(legal[0], dict):
            bent = dict(legal[0])
            for key, value in bent.items():
                if key == "type":
                    continue
                bent[key] = [] if isinstance(value, int) else 99
                break
            tries.append({s: bent for s in seats})
        tries.append({CHANCE: {"type": "draw", "card": 0}})
    for joint in tries:
        try:
            state.clone().apply(joint)
        except IllegalAction as refusal:
            yield refusal


def illegal_action_rules(game_name: str, seeds: range) -> list[str]:
    """The ``rule`` of every refusal met when trying illegal moves along random games."""
    game = engine.load(game_name)
    rules: list[str] = []
    for players in range(game.info.min_players, game.info.max_players + 1):
        for seed in seeds:
            rng = random.Random(seed)
            state = game.new_game(players, {})
            step = 0
            while not state.is_over() and step < 400:
                if step % 7 == 0:
                    rules.extend(r.rule for r in _refusals(state, rng))
                seats = state.to_move()
                if seats == (CHANCE,):
                    joint: dict[int, object] = {CHANCE: engine.sample_chance(state, rng)}
                else:
                    joint = {s: rng.choice(state.legal_actions(s)) for s in seats}
                state.apply(joint)
                step += 1
            rules.extend(r.rule for r in _refusals(state, rng))
    return rules


@pytest.mark.parametrize("game", GAMES)
def test_every_illegal_action_message_cites_an_existing_section(game: str) -> None:
    rules = illegal_action_rules(game, range(2))
    assert rules, f"no illegal move of {game} was refused"
    broken = [
        str(b)
        for rule in set(rules)
        for b in check_text(rule, f"IllegalAction of {game}", None, game_sections)
    ]
    assert all(f"{game}.md §" in rule for rule in rules), sorted(set(rules))
    assert broken == [], "\n".join(broken)
