"""The engine contract (docs/architecture.md, "Layers" and "Plugin hooks").

Every game implements :class:`Game` and :class:`State`; the referee, the bots and the
tests use nothing else. The engine is sans-IO: no clocks, no sockets, no global
random state. Randomness only enters through chance outcomes that the caller samples
(see :func:`engine.sample_chance`) and through the ``rng`` handed to
:meth:`Game.determinize`.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from typing import Any, Final, Literal, Protocol, TypeAlias

from niwa.errors import EngineError

#: The pseudo-seat that moves when chance (a shuffle, a draw, a die) is pending.
CHANCE: Final = -1

#: An action or observation: a small JSON value.
JSON: TypeAlias = Any
Action: TypeAlias = Any


class IllegalAction(EngineError, ValueError):
    """A move that the rules forbid. ``rule`` names the rule: a numbered section of
    docs/games/<game>.md, cited ``<game>.md §N``."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} [{rule}]")
        self.rule = rule
        self.detail = message


class OptionError(EngineError, ValueError):
    """A bad player count or game option, with a message that names the fix."""


class Rng(Protocol):
    """What the engine needs of a random generator (``random.Random`` fits)."""

    def random(self) -> float: ...

    def randrange(self, start: int, stop: int | None = ..., step: int = ...) -> int: ...

    def shuffle(self, x: list[Any]) -> None: ...


OptionKind = Literal["bool", "int", "choice"]


@dataclass(frozen=True)
class Option:
    """One game option: its type, default and allowed values."""

    name: str
    kind: OptionKind
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any) -> Any:
        """Return ``value`` if it is allowed, else raise :class:`OptionError`."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise OptionError(f"option {self.name!r} takes true or false, not {value!r}")
        elif self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {self.name!r} takes a whole number, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise OptionError(f"option {self.name!r} must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise OptionError(f"option {self.name!r} must be at most {self.maximum}")
        elif value not in self.choices:
            allowed = ", ".join(self.choices)
            raise OptionError(f"option {self.name!r} is one of {allowed}, not {value!r}")
        return value

    def to_json(self) -> dict[str, JSON]:
        d: dict[str, JSON] = {
            "name": self.name,
            "type": self.kind,
            "default": self.default,
            "description": self.description,
        }
        if self.choices:
            d["choices"] = list(self.choices)
        if self.minimum is not None:
            d["minimum"] = self.minimum
        if self.maximum is not None:
            d["maximum"] = self.maximum
        return d


@dataclass(frozen=True)
class GameInfo:
    """What a game is: its name, version, player counts and option schema."""

    name: str
    version: str
    min_players: int
    max_players: int
    simultaneous: bool
    chance: bool
    hidden_information: bool
    options: tuple[Option, ...] = field(default_factory=tuple)

    def validate(self, players: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check a player count and options; return the options with defaults filled in."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(f"{self.name}: the number of players must be a whole number")
        if not self.min_players <= players <= self.max_players:
            span = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise OptionError(f"{self.name} is played by {span} players, not {players}")
        given = dict(options or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise OptionError(f"{self.name} has no option {unknown[0]!r} (its options: {names})")
        return {name: o.check(given.get(name, o.default)) for name, o in known.items()}

    def to_json(self) -> dict[str, JSON]:
        return {
            "name": self.name,
            "version": self.version,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "simultaneous": self.simultaneous,
            "chance": self.chance,
            "hidden_information": self.hidden_information,
            "options": [o.to_json() for o in self.options],
        }


@dataclass(frozen=True)
class Result:
    """Final scores and places per seat; place 0 is first, tied seats share a place."""

    scores: tuple[float, ...]
    places: tuple[int, ...]

    def to_json(self) -> dict[str, JSON]:
        return {"scores": list(self.scores), "places": list(self.places)}


def places_from_keys(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranking: higher key is better; equal keys share a place (0, 0, 2)."""
    return tuple(sum(1 for other in keys if other > k) for k in keys)


class State(ABC):
    """A game in progress. Mutable: :meth:`apply` changes it in place."""

    @abstractmethod
    def to_move(self) -> tuple[int, ...]:
        """Seats whose decision is pending: ``(s,)``, several (simultaneous),
        ``(CHANCE,)``, or ``()`` when the game is over."""

    @abstractmethod
    def legal_actions(self, seat: int) -> list[Action]:
        """The actions ``seat`` may take now (empty if it is not to move).

        The list is the caller's, but the actions in it are read-only: a game may hand
        out the same action objects on every call (Bonsai and Sakura do, to list them
        fast), so change a copy (``copy.deepcopy``), never an action itself."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """``(outcome, probability)`` pairs when CHANCE is to move, else ``[]``."""

    @abstractmethod
    def apply(self, joint: Mapping[int, Action]) -> None:
        """Apply one joint move: an entry for every seat in :meth:`to_move`.

        Raises :class:`IllegalAction` and leaves the state unchanged if any entry is
        not legal."""

    @abstractmethod
    def observe(self, seat: int | None) -> dict[str, JSON]:
        """Everything ``seat`` may know, nothing more; ``None`` is the spectator view."""

    def observe_json(self, seat: int | None) -> str:
        """``canonical_json(self.observe(seat))``: the text a bot process is sent. A game
        may spell it directly (it must stay equal), since the referee needs only this."""
        return canonical_json(self.observe(seat))

    def is_over(self) -> bool:
        return not self.to_move()

    def sample_chance(self, rng: Rng) -> Action:
        """A chance outcome drawn with the probabilities :meth:`chance_outcomes` lists,
        from one ``rng.random()``: walks the list. A game whose chance nodes are large
        (a draw from a whole deck) may override it to draw without listing them; changing
        which outcome a given ``rng`` yields is a rules-version change."""
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise ValueError("no chance outcome is pending")
        x = rng.random() * sum(p for _, p in outcomes)
        for action, p in outcomes:
            x -= p
            if x < 0:
                return action
        return outcomes[-1][0]

    @abstractmethod
    def result(self) -> Result:
        """Scores and places; only meaningful when :meth:`is_over`."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    @abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """A full snapshot that :meth:`Game.from_json` turns back into an equal state."""

    def snapshot_text(self) -> str:
        """``canonical_json(self.to_json())``, what :func:`state_hash` digests. A game
        whose snapshot grows over a game may assemble it from kept pieces instead; the
        text must stay byte-identical (replays and golden playthroughs hold its hash)."""
        return canonical_json(self.to_json())

    @abstractmethod
    def render(self, seat: int | None = None) -> str:
        """A text picture of the table as ``seat`` sees it (``None``: spectator)."""

    def describe(self, seat: int, action: Action) -> str:
        """A short human sentence for ``seat`` taking ``action`` (CHANCE included).

        Plugin hook "readable moves": ``niwa play``, ``niwa replay show``, the viewer and
        illegal-move messages show a move through :func:`describe_move`. Fallback: the
        action's canonical JSON."""
        return canonical_json(action)


#: Plugin hook types (docs/adding-a-game.md). A position's value per seat, each in [0, 1].
Evaluation: TypeAlias = Callable[[State], list[float]]
#: A test of a state with chance pending (e.g. "this outcome is hidden from me").
ChanceTest: TypeAlias = Callable[[State], bool]
#: A fresh determinization per call, hidden parts dealt again from the generator.
Dealer: TypeAlias = Callable[[Rng], State]
#: The board parts a seat's legal action touches, from the seat's observation: ids
#: such as ``"hand:3"`` that the game's renderer puts on its SVG as ``data-part``.
BoardParts: TypeAlias = Callable[[Mapping[str, JSON], Action], Sequence[str]]
#: Every decision and every chance outcome a game can list at one player count.
Enumeration: TypeAlias = tuple[Sequence[Action], Sequence[Action]]
#: Each seat's score so far, read from the spectator's observation only (so it can show
#: nothing hidden); None where the game keeps no running score at that point.
ScoreNow: TypeAlias = Callable[[Mapping[str, JSON]], list[float] | None]
#: Whether the step from the first spectator view to the second ended a round (the
#: game's own unit of play, e.g. every seat took a turn), for the ladder's balance
#: figures (lead changes per round, the last round's effect on the ranking).
RoundEnds: TypeAlias = Callable[[Mapping[str, JSON], Mapping[str, JSON]], bool]
#: The end-of-game breakdown of a finished state: ``{"rows": [{"label", "values"}],
#: "tie_rule": str, "tie_break": [sentences]}`` (niwa.engine.scoreboard builds it).
Breakdown: TypeAlias = Callable[[State], dict[str, JSON]]


@dataclass(frozen=True)
class FeatureEncoder:
    """A game's fast observation encoding for learning (plugin hook "feature encoder").

    ``write(observation, row)`` fills ``row``, a zeroed float32 numpy array of ``size``
    entries, from one seat's observation. It reads the observation only, never the
    state, so it can hold nothing the seat may not see. ``version`` names the features'
    meaning: change it whenever they change, since a policy trained on one version
    reads only that one.

    ``write_state(state, seat, row)``, optional, is the fast path: it writes exactly what
    ``write(state.observe(seat), row)`` writes, read from the engine's state without
    building the observation (``niwa.adapters.vector`` uses it when present). The
    conformance suite checks the two agree at every state of its playouts, so the fast
    path holds nothing the seat cannot see either.

    ``groups``, optional, names parts of the row, each a tuple of ``(start, stop)``
    spans: ``niwa train value GAME --without NAME`` fits a learned value that does not
    read that part (a part too detailed to learn from the games there are)."""

    version: str
    size: int
    write: Callable[[Mapping[str, JSON], Any], None]
    write_state: Callable[[State, int, Any], None] | None = None
    groups: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict, hash=False)


def phase_and_mover(
    observation: Mapping[str, JSON], phases: Sequence[object], max_seats: int
) -> list[float]:
    """The start most encoders share: the phase one-hot over ``phases``, then the seat to
    move one-hot over ``max_seats``, counted from the viewer (0 = the viewer itself), all
    zeros while nobody moves. Reads ``phase``, ``current``, ``players`` and ``seat``."""
    obs: Any = observation
    row = [1.0 if obs["phase"] == p else 0.0 for p in phases]
    mover = [0.0] * max_seats
    if obs["current"] is not None:
        mover[(obs["current"] - obs["seat"]) % obs["players"]] = 1.0
    return row + mover


class Game(ABC):
    """A registered game: its info, and the factories for its states.

    Besides the three abstract factories, a game may override the optional *plugin
    hooks* below (docs/architecture.md, "Plugin hooks"; docs/adding-a-game.md). Each
    returns None here, and the caller then uses a generic fallback that works for any
    game; nothing outside the game's own package names the game.

    Typed actions and phases are a convention, not a hook: a game's ``actions.py``
    spells its actions as a ``TypedDict`` union and its phases as an ``enum.StrEnum``
    (a ``StrEnum`` member is a ``str``, so observations and replays keep their JSON).
    """

    info: GameInfo

    @abstractmethod
    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> State:
        """A fresh game; the set-up chance (shuffles, deals) is still pending."""

    @abstractmethod
    def from_json(self, data: Mapping[str, JSON]) -> State:
        """Rebuild a state from :meth:`State.to_json`."""

    @abstractmethod
    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> State:
        """A full state consistent with what ``seat`` saw in ``observation``; the
        hidden parts are sampled with ``rng``."""

    # -- optional plugin hooks: None means "use the generic fallback" --------------

    def renderer_asset(self) -> Traversable | None:
        """The replay viewer's renderer: a JavaScript module shipped as package data of
        the game's package (``importlib.resources.files(__package__) / "viewer.js"``).
        The web server serves it at ``/static/games/<name>.js`` and the viewer
        ``import()``s it; it exports ``draw(view, payload, at)``, which returns the DOM
        node showing ``view``, the observation of seat ``at.seat`` at step ``at.step``.
        Fallback: the generic renderer draws :meth:`State.render`'s text and the
        observation as a tree."""
        return None

    def heuristic(self) -> Evaluation | None:
        """A position evaluation for the built-in bots (greedy picks by it, MCTS values
        its leaves with it). Fallback: random playouts to the end of the game."""
        return None

    def blind_to_chance(self) -> ChanceTest | None:
        """For :meth:`heuristic`'s evaluation: whether the chance pending in a state
        cannot change its value (cards dealt into hands it does not read), so a search
        may value the position as it stands. Fallback: every outcome matters."""
        return None

    def action_space(self, players: int) -> Enumeration | None:
        """``(actions, chance outcomes)``: every action and chance outcome a state of
        this game can list at ``players`` seats with default options, each once, for
        the RL adapters' fixed ``Discrete(n)``. Fallback: the adapters enumerate the
        actions random playouts reach, and log that the space may be incomplete."""
        return None

    def unseen_chance(self, seat: int) -> ChanceTest | None:
        """Whether the chance outcome pending in a state is one ``seat`` will not see (a
        card dealt to another hand, set aside face down). The search then does not
        branch on it. Fallback: every outcome is treated as seen."""
        return None

    def board_parts(self) -> BoardParts | None:
        """For a person playing a seat in the browser (``niwa play --human``): which
        parts of the board each legal action touches, as ids the game's renderer sets
        as ``data-part`` on the SVG elements that draw them, so clicking one offers the
        moves that use it. Fallback: the page offers the readable move list only."""
        return None

    def redealer(self, base: State, seat: int) -> Dealer | None:
        """Fast determinizations like ``base`` (made by :meth:`determinize` for
        ``seat``, never asked for legal actions): each call copies it and deals the
        hidden parts again, with :meth:`determinize`'s distribution. Fallback: the
        search calls :meth:`determinize` per iteration."""
        return None

    def score_now(self) -> ScoreNow | None:
        """The viewer's score chart: each seat's score per step, from the spectator's
        observation. Fallback: no chart."""
        return None

    def round_ends(self) -> RoundEnds | None:
        """The ladder's balance figures: whether a step (from the spectator's view
        before it to the one after) ended a round, so lead changes are counted per round
        with :meth:`score_now`'s scores. Fallback: every decision is a round."""
        return None

    def score_breakdown(self) -> Breakdown | None:
        """The viewer's end-of-game table: the score's parts per seat and the tie-break
        the result applied. Fallback: the result's scores and places only."""
        return None

    def feature_encoder(self, players: int) -> FeatureEncoder | None:
        """A fast fixed-size float32 encoding of a seat's observation at ``players``
        seats, for the vectorised environment (niwa.adapters.vector). Fallback: the
        generic hashed encoding of niwa.adapters.features."""
        return None

    def glossary(self) -> Mapping[str, str] | None:
        """Words for the ids an observation holds (card and tile names from the rules
        data), which the viewer shows instead of the ids. Fallback: the ids."""
        return None


def envelope(
    version: str, seat: int | None, players: int, phase: str, to_move: tuple[int, ...]
) -> dict[str, JSON]:
    """The fields every game's observation starts with, spelled the same in every game:
    ``game`` (name@version), ``seat`` (the viewer, None for the spectator), ``players``,
    ``phase`` and ``to_move`` (-1 is chance)."""
    return {
        "game": version,
        "seat": seat,
        "players": players,
        "phase": phase,
        "to_move": list(to_move),
    }


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
#: _CANONICAL's C encoder, built once (json builds it per call, json.dumps also the
#: JSONEncoder): about half the time for an action. Without json's markers for
#: circular values it keeps no state, so threads may share it; None in a Python
#: without the C accelerator. (``c_make_encoder`` is untyped in typeshed.)
def _c_encoder() -> Any:
    """The C encoder with the canonical settings, or None where the accelerator is
    missing or its (private) signature is not the one CPython 3.11-3.13 have."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        spell = make(
            None, _CANONICAL.default, json.encoder.encode_basestring, None, ":", ",", True,
            False, True,
        )
        ok = "".join(spell({"b": [1, 2.5, None], "a": "é"}, 0)) == _CANONICAL.encode(
            {"b": [1, 2.5, None], "a": "é"}
        )
    except TypeError:
        return None
    return spell if ok else None


_SPELL: Any = _c_encoder()


#: Canonical JSON of values a game shares and never changes, by id, each beside its
#: value: held here, a value is never freed, so its id is never another value's.
_SHARED: dict[int, tuple[JSON, str]] = {}


def share_json(values: Iterable[JSON]) -> None:
    """Spell each of ``values`` once: :func:`canonical_json` then returns that text for
    that very object. Only for values that are never changed and live as long as the
    process: a game's tables of actions and chance outcomes, handed out as they are
    (the referee spells every legal action, chosen action and chance outcome)."""
    for value in values:
        _SHARED[id(value)] = (value, canonical_json(value))


def canonical_json(value: JSON) -> str:
    """The one JSON spelling used on the wire, in replays and for hashes."""
    shared = _SHARED.get(id(value))
    if shared is not None:
        return shared[1]
    if _SPELL is None:
        return _CANONICAL.encode(value)
    try:
        return "".join(_SPELL(value, 0))
    except RecursionError:  # a circular value, or one nested too deep: json's own
        return _CANONICAL.encode(value)  # encoder refuses it as it always has


def describe_move(state: State, seat: int, action: Action) -> str:
    """The readable form of a move wherever one is shown; a game whose
    :meth:`State.describe` fails on an odd action still shows it, as canonical JSON."""
    try:
        return state.describe(seat, action)
    except Exception:  # a description is for people: never let it break the caller
        return canonical_json(action)


def state_hash(state: State) -> str:
    """A short fingerprint of a full state, recorded after every replay line."""
    return hashlib.sha256(state.snapshot_text().encode()).hexdigest()[:16]


def sample_chance(state: State, rng: Rng) -> Action:
    """Pick a chance outcome with the probabilities the state lists
    (:meth:`State.sample_chance`, which a game may make faster than listing them)."""
    return state.sample_chance(rng)
