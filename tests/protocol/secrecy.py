"""The secrecy property of the mental-poker deck, checked over whole random games (issue 12).

**The property.** At every point of a game played through the protocol:

* an *observer* (a peer with no seat and no key share: what anyone holding the transcript is) can
  decrypt exactly the cards the rules have made public (``seen[h]`` has every seat's bit), and
  what it decrypts is the public value its own state holds;
* each *seat* s can decrypt exactly the cards its own view holds (bit s of ``seen[h]``): with the
  shares published in the clear, the shares it received privately and its own share (it has its
  key share, so it can always make that one), and what it decrypts is its state's value;
* a saved transcript read by a fresh observer opens exactly the cards the live observer opens.

"Can decrypt" is measured, not assumed: a viewer holds shares of all N seats for a card, and
combining them gives a point of the card's deck. Counting shares is what makes the test
independent of how the session decides who publishes what (the code under test); the decryption
itself then checks that the shares are the right ones.

**Why whole games.** The flaw of issue 12 (two seats look privately at the same card; the second
reveal makes the first seat publish its share, and then every share is public) only shows when
one private reveal follows another of the same card. Such sequences come from the rules (peeks,
swaps, draws, reshuffles, round ends) of three games and their variants, so the checker drives
real games with bots and looks at every state change of every peer.

**Determinism.** A game is a function of its `GameSpec` (seed included): `seeded_randomness`
replaces the `secrets` module in the protocol's crypto modules and the identity keys of the test
table by a `random.Random` seeded from the spec for the duration of the game. That randomness is
not cryptographic and exists only in tests; it makes every finding reproducible from its seed.

Used by tests/protocol/test_secrecy_property.py (bounded, CI) and benchmarks/secrecy_property.py
(long runs).
"""

from __future__ import annotations

import hashlib
import random
import secrets
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol import crypto, loopback
from protocol.config import TableConfig
from protocol.session import Session
from skyjo_p2p.action.cards import DEFAULT_COUNTS, KIND_NAMES, NUMBERS, PEEK_LINE, STAR
from skyjo_p2p.action.options import ActionOptions
from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.base import Bot
from skyjo_p2p.core.errors import OptionError
from skyjo_p2p.core.events import DealRequest, Moved, RevealRequest, ShuffleRequest
from skyjo_p2p.core.events import Event as EngineEvent
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import legal_moves, new_game, rules_for
from skyjo_p2p.skipbo.options import max_stock_size
from tests.protocol.harness import Net

GAMES = ("skyjo", "skyjo-action", "skip-bo")
MAX_SEATS = {"skyjo": 8, "skyjo-action": 8, "skip-bo": 6}


class SecrecyViolation(AssertionError):
    """A viewer can decrypt a card the rules keep from it, or cannot decrypt one they show it."""


# --- determinism --------------------------------------------------------------------------------


class _SeededSecrets:
    """The part of the `secrets` module the protocol uses, drawn from a seeded `random.Random`."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def randbelow(self, n: int) -> int:
        return self._rng.randrange(n)

    def token_bytes(self, n: int | None = None) -> bytes:
        return self._rng.randbytes(32 if n is None else n)

    def choice(self, seq: Sequence[Any]) -> Any:
        return self._rng.choice(seq)


class _SeededIdentities:
    """Stands in for `Ed25519PrivateKey` in the loopback: `generate()` from the seeded stream."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def generate(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self._rng.randbytes(32))


@contextmanager
def seeded_randomness(seed: int) -> Iterator[None]:
    """Make every random choice of a test table come from `seed` while the block runs.

    Every loaded module of `protocol` that uses `secrets` (key shares, shuffles, proofs, coins,
    private-share packets, and `protocol.loopback`'s session id) and the loopback's identity keys
    get the seeded stand-in;
    the originals are put back afterwards. Nothing outside tests ever runs this.
    """
    rng = random.Random(seed)
    stand_in = _SeededSecrets(rng)
    patched: list[tuple[Any, str, Any]] = []
    for name, module in list(sys.modules.items()):
        ours = name == "protocol" or name.startswith("protocol.")
        if ours and getattr(module, "secrets", None) is secrets:
            patched.append((module, "secrets", secrets))
    patched.append((loopback, "Ed25519PrivateKey", loopback.Ed25519PrivateKey))
    try:
        for module, attribute, _ in patched:
            replacement: Any = _SeededIdentities(rng) if attribute == "Ed25519PrivateKey" else stand_in
            setattr(module, attribute, replacement)
        yield
    finally:
        for module, attribute, original in patched:
            setattr(module, attribute, original)


# --- what a game is -----------------------------------------------------------------------------


@dataclass(frozen=True)
class GameSpec:
    """One game of the property run: everything needed to replay it exactly."""

    game: str
    players: int
    options: tuple[tuple[str, Any], ...]
    bots: tuple[str, ...]
    seed: int
    policy: str = ""
    """"" (the bots as they are), "peek" (peek-line at one shared column whenever possible: the
    case of issue 12), "stall" (draw and replace face-up cards until a pile is reshuffled)."""

    @property
    def variant(self) -> str:
        """The family a run is counted under: the game, its variant and its notable options."""
        opts = dict(self.options)
        parts = [self.game]
        if self.game == "skyjo-action":
            parts.append(str(opts.get("variant", "standard")))
            parts.append(str(opts.get("grid", "3x4")))
        elif self.game == "skip-bo" and opts.get("teams"):
            parts.append("teams")
        elif self.game == "skyjo" and opts.get("rows"):
            parts.append("rows")
        if self.policy:
            parts.append(f"policy={self.policy}")
        return " ".join(parts)

    def describe(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options)
        policy = f" policy={self.policy}" if self.policy else ""
        return (
            f"{self.game} with {self.players} seats, options {{{opts}}}, bots {list(self.bots)}"
            f"{policy}, seed {self.seed}"
        )


def _players(rng: random.Random, low: int, high: int, max_players: int) -> int:
    """A seat count in [low, min(high, max_players)], small counts more often (they are cheap)."""
    high = min(high, max_players)
    counts = list(range(low, high + 1))
    weights = [1.0 / (1 + n - low) for n in counts]
    return rng.choices(counts, weights)[0]


_KIND_NAMES = tuple(str(name) for name in KIND_NAMES.values())
_KIND_SETS = (
    "all",
    "peek-line",
    "peek-line,remove-from-each,draw-three",
    "swap-own,swap-with-others,steal-and-play,replay-discard",
    "peek-line,swap-own,swap-with-others",
)


def _action_options(rng: random.Random, players: int | None, max_players: int) -> tuple[dict[str, Any], int]:
    variant = rng.choice(("standard", "standard", "action-in-deck", "stars-only", "numbers-only"))
    grid = rng.choice(("3x4", "3x3"))
    options: dict[str, Any] = {"target_score": 1, "variant": variant, "grid": grid}
    low, high = ActionOptions.parse(options).player_range()
    seats = players if players is not None else _players(rng, max(2, low), high, max_players)
    size = 9 if grid == "3x3" else 12
    uses_actions = variant in ("standard", "action-in-deck")
    counts: dict[str, int] = {}
    if uses_actions:
        kinds = rng.choice(_KIND_SETS)
        if rng.random() < 0.3:
            kinds = ",".join(rng.sample(_KIND_NAMES, rng.randint(1, 4)))
        options["action_kinds"] = kinds
        if "peek-line" in kinds.split(",") or kinds == "all":
            counts["peek-line"] = rng.choice((3, 6, 10))
        if variant == "action-in-deck":
            chosen = len(kinds.split(",")) if kinds != "all" else len(_KIND_NAMES)
            pool = 3 * chosen + (counts.get("peek-line", 3) - 3 if "peek" in kinds or kinds == "all" else 0)
            options["deck_actions"] = rng.randint(5, max(5, min(10, pool)))
    if rng.random() < 0.5:  # a small playing deck: draw piles run out, discards are reshuffled
        _shrink_deck(rng, counts, seats * size + 2 + rng.randint(4, 24), variant != "numbers-only")
    if counts:
        options["card_counts"] = ",".join(f"{k}:{v}" for k, v in counts.items())
    reveals = rng.choice((None, None, 0, 1, 2, 3, 5))
    if reveals is not None:
        options["setup_reveals"] = min(reveals, size - 1)
    options["wild_min_numbers"] = rng.choice((1, 2))
    return options, seats


def _shrink_deck(rng: random.Random, counts: dict[str, int], floor: int, stars: bool) -> None:
    """Leave some number values out of the playing deck, keeping at least `floor` playing cards.

    Written as few ``VALUE:0`` entries as possible: an option travels as text of at most 64
    characters (protocol.config), so the whole composition cannot be listed.
    """
    total = sum(DEFAULT_COUNTS[v] for v in NUMBERS) + (DEFAULT_COUNTS[STAR] if stars else 0)
    for value in rng.sample([v for v in NUMBERS if v != 12], len(NUMBERS) - 1):  # 12 stays: R-A1
        if total - DEFAULT_COUNTS[value] < floor or len(counts) >= 8:
            continue
        counts[str(value)] = 0
        total -= DEFAULT_COUNTS[value]


def sample_spec(
    seed: int, game: str | None = None, players: int | None = None, max_players: int = 8
) -> GameSpec:
    """A legal game drawn from `seed` alone (of `game` and with `players` seats if given).

    One round per game (a target score of 1; SKIP-BO plays a single round with small stocks)
    keeps games short; options are varied where they change which cards get revealed how. A
    drawn combination the game refuses (`OptionError`) is drawn again from the same stream.
    """
    rng = random.Random(seed)
    game = game or rng.choice(GAMES)
    for _ in range(100):
        spec = _draw_spec(rng, seed, game, players, max_players)
        try:
            new_game(spec.game, spec.players, dict(spec.options))
        except OptionError:
            continue
        if all(len(v) <= 64 for _, v in spec.options if isinstance(v, str)):  # protocol.config
            return spec
    raise ValueError(f"no legal {game} game drawn from seed {seed}")


def _draw_spec(rng: random.Random, seed: int, game: str, players: int | None, max_players: int) -> GameSpec:
    policy = ""
    options: dict[str, Any]
    if game == "skyjo":
        seats = players if players is not None else _players(rng, 2, 8, max_players)
        options = {
            "target_score": 1,
            "setup_reveals": rng.choice((0, 1, 2, 2, 4, 8, 10, 11)),
            "rows": rng.random() < 0.3,
            "ender_multiplier": rng.choice((1, 2, 3)),
        }
        if seats <= 3 and rng.random() < 0.25:
            policy = "stall"
    elif game == "skyjo-action":
        options, seats = _action_options(rng, players, max_players)
        kinds = str(options.get("action_kinds", ""))
        peeks = options["variant"] in ("standard", "action-in-deck") and (
            kinds == "all" or "peek-line" in kinds.split(",")
        )
        roll = rng.random()
        if peeks and roll < 0.4:
            policy = "peek"
        elif roll > 0.8 and seats <= 4:
            policy = "stall"
    elif game == "skip-bo":
        seats = players if players is not None else _players(rng, 2, 6, max_players)
        options = {
            "single_round": True,
            "stock_size": rng.randint(5, min(10, max_stock_size(seats))),
            "discard_wilds": rng.random() < 0.8,
            "teams": seats in (4, 6) and rng.random() < 0.5,
        }
    else:
        raise ValueError(f"unknown game {game!r}")
    bots = tuple(rng.choice(("random", "greedy")) for _ in range(seats))
    return GameSpec(game, seats, tuple(sorted(options.items())), bots, seed, policy)


def peek_spec(seed: int, players: int = 3) -> GameSpec:
    """SKYJO ACTION in which every seat but the last peeks the last seat's column 0 (issue 12).

    Only peek-line cards are in play (and many of them), so the seats take and play them early,
    while most of that column is still face down.
    """
    options = {
        "target_score": 1,
        "action_kinds": "peek-line",
        "card_counts": "peek-line:12",
        "setup_reveals": 1,
    }
    return GameSpec(
        "skyjo-action", players, tuple(sorted(options.items())), ("greedy",) * players, seed, "peek"
    )


# --- policies -----------------------------------------------------------------------------------


POLICY_LIMITS = {"peek": 40, "stall": 300}
"""Preferred moves a policy bot makes before it leaves every choice to its bot: a policy alone
can keep a round from ending (peeking forever, or swapping cards with a one-card discard pile)."""

MOVE_LIMIT = 5000
"""Moves after which a game counts as stuck (a finding: it would check less than it claims)."""


class PolicyBot:
    """A bot that prefers some moves (see `GameSpec.policy`) and leaves the rest to `inner`.

    Random and greedy bots reach the interesting reveal sequences too rarely for a bounded test:
    two seats peeking the same line, or a draw pile running out. The preferences are legal moves
    only, chosen from the seat's own view, so the games stay honest games.
    """

    def __init__(self, policy: str, inner: Bot) -> None:
        self.policy = policy
        self.inner = inner
        self.name = f"{policy}+{inner.name}"
        self._round_handles: dict[int, int] = {}
        self._preferred = 0

    def choose(self, view: TableState, seat: int) -> Move:
        if self._preferred >= POLICY_LIMITS[self.policy]:
            return self.inner.choose(view, seat)
        moves = legal_moves(view, seat)
        preferred = self._peek(view, seat, moves) if self.policy == "peek" else self._stall(view, seat, moves)
        if preferred is None:
            return self.inner.choose(view, seat)
        self._preferred += 1
        return preferred

    def _peek(self, view: TableState, seat: int, moves: list[Move]) -> Move | None:
        target = view.players - 1 if seat != view.players - 1 else 0
        held = getattr(view, "held", None)
        for move in moves:
            if move.kind == "peek" and move.target == target and move.line == "column" and move.index == 0:
                return move
        market = getattr(view, "market", None)
        for kind, cards in (("play", held[seat] if held is not None else None), ("take", market)):
            for move in moves:
                if move.kind != kind or cards is None or move.index is None:
                    continue
                if kind == "take" and move.source != "market":
                    continue
                if view.values[cards[move.index]] == PEEK_LINE:
                    return move
        return None

    def _stall(self, view: TableState, seat: int, moves: list[Move]) -> Move | None:
        """Keep the round going (draw from the deck, replace face-up cards) until a reshuffle."""
        first = self._round_handles.setdefault(view.round, len(view.seen))
        if len(view.seen) > first:
            return None  # a pile was reshuffled this round: play on normally
        face_down = set(view.face_down_slots(seat)) if hasattr(view, "face_down_slots") else set()
        for move in moves:
            if move.kind == "draw" and move.source == "deck":
                return move
        for move in moves:
            if move.kind == "replace" and move.slot is not None and move.slot not in face_down:
                return move
        return None


def make_bots(spec: GameSpec) -> list[Bot]:
    bots: list[Bot] = []
    for seat, level in enumerate(spec.bots):
        bot: Bot = make_bot(level, spec.game, f"secrecy:{spec.seed}:{seat}")
        bots.append(PolicyBot(spec.policy, bot) if spec.policy else bot)
    return bots


# --- the observer that counts reveal paths ------------------------------------------------------


class RecordingObserver(Session):
    """An observer session that also names every reveal the engine asks for (its reveal *path*).

    A path is "public" or "private", the move that caused it (``auto`` when an answer did: a deal,
    a reveal, a reshuffle), where the card lies, and two flags that matter for secrecy:
    ``+seen-by-other`` (a private reveal of a card another seat already knows privately: the case
    of issue 12) and ``+privately-seen`` (a public reveal of a card some seats know privately).
    Only public knowledge is used, as any observer could.
    """

    def __init__(self, config: TableConfig, paths: Counter[str]) -> None:
        super().__init__(config, None, None)
        self.paths = paths

    def after_engine(self, events: Iterable[EngineEvent]) -> None:
        facts = tuple(events)
        if self.state is not None:
            _count_paths(self.state, facts, self.paths)
        super().after_engine(facts)


def _count_paths(state: TableState, facts: tuple[EngineEvent, ...], paths: Counter[str]) -> None:
    moved = [f.move.kind for f in facts if isinstance(f, Moved)]
    trigger = moved[-1] if moved else "auto"
    if state.phase == "scoring":
        trigger = "round-end"
    locations_of = getattr(state, "locations", None)
    locations: dict[int, str] = locations_of() if locations_of is not None and facts else {}
    everyone = state.everyone
    for fact in facts:
        if isinstance(fact, RevealRequest):
            seen = state.seen[fact.handle]
            where = locations.get(fact.handle, "?").split(":")[0]
            if fact.to is None:
                flag = " +privately-seen" if seen not in (0, everyone) else ""
                paths[f"public {trigger} @{where}{flag}"] += 1
            else:
                flag = " +seen-by-other" if seen & ~(1 << fact.to) else ""
                paths[f"private {trigger} @{where}{flag}"] += 1
        elif isinstance(fact, ShuffleRequest):
            private = sum(1 for h in fact.handles if state.seen[h] not in (0, everyone))
            flag = " +privately-seen" if private else ""
            paths[f"reshuffle {fact.deck}{flag}"] += 1
        elif isinstance(fact, DealRequest):
            paths[f"deal {fact.deck}"] += 1


# --- the check ----------------------------------------------------------------------------------


def _mask(players: int, seen: int) -> str:
    seats = [s for s in range(players) if seen >> s & 1]
    return "nobody" if not seats else "everyone" if len(seats) == players else f"seats {seats}"


class SecrecyChecker:
    """Checks the property for every viewer of a `Net` (its seats and its first observer)."""

    def __init__(self, net: Net, spec: GameSpec) -> None:
        self.net = net
        self.spec = spec
        self.players = net.config.players
        self.rules = rules_for(net.config.game)
        self._cache: dict[tuple[int, int, crypto.Ciphertext], int | None] = {}
        self._last: dict[int, TableState | None] = {}
        self.checks = 0
        self.opened: Counter[str] = Counter()
        """How many (viewer, card) decryptions the check did, by viewer kind."""

    def viewers(self) -> list[tuple[int, Session]]:
        """(viewer id, session): seats by seat number, the observer as -1."""
        out: list[tuple[int, Session]] = list(enumerate(self.net.sessions))
        if self.net.observers:
            out.append((-1, self.net.observers[0]))
        return out

    def poll(self) -> bool:
        """`Net.pump`'s `until`: check each viewer whose state changed since it was last checked."""
        if self.net.moves > MOVE_LIMIT:
            self._fail(f"the game did not end within {MOVE_LIMIT} moves")
        for viewer, session in self.viewers():
            if session.state is not self._last.get(viewer):
                self.check(viewer, session)
        return False

    def check_all(self) -> None:
        for viewer, session in self.viewers():
            self.check(viewer, session)

    def check(self, viewer: int, session: Session) -> None:
        state = session.state
        self._last[viewer] = state
        if state is None or any(isinstance(r, DealRequest) for r in state.pending):
            return  # no cards yet, or a new round's deal: the card store still holds the old round
        self.checks += 1
        cards = session.cards
        players = self.players
        everyone = (1 << players) - 1
        due = _due(state)
        for handle, ciphertext in cards.ciphertexts.items():
            if handle >= len(state.seen):
                continue  # a handle the engine has not allocated (cannot happen mid-round)
            seen = state.seen[handle]
            holders = set(cards.shares.get(handle, ()))
            if viewer >= 0:
                holders |= set(cards.private.get(handle, ()))
                holders.add(viewer)
                knows = bool(seen >> viewer & 1)
            else:
                knows = seen == everyone
            may = knows or (handle, None) in due or (viewer >= 0 and (handle, viewer) in due)
            can = len(holders) == players
            if can and knows:
                self._compare(viewer, session, handle, ciphertext)
            elif can and not may:
                self._fail(
                    f"{_who(viewer)} can decrypt card {handle} ({cards.deck_of.get(handle)}, "
                    f"{_location(state, handle)}) although only {_mask(players, seen)} may know it "
                    f"(it holds shares of every seat: published {sorted(cards.shares.get(handle, {}))}"
                    + (f", private {sorted(cards.private.get(handle, {}))}" if viewer >= 0 else "")
                    + ")"
                )
            elif knows and not can:
                missing = sorted(set(range(players)) - holders)
                self._fail(
                    f"{_who(viewer)} cannot decrypt card {handle} ({cards.deck_of.get(handle)}, "
                    f"{_location(state, handle)}) although {_mask(players, seen)} may know it "
                    f"(it lacks the shares of seats {missing})"
                )

    def _compare(self, viewer: int, session: Session, handle: int, ciphertext: crypto.Ciphertext) -> None:
        state = session.state
        assert state is not None
        key = (viewer, handle, ciphertext)
        if key not in self._cache:
            self._cache[key] = self.decrypt(session, handle, viewer)
            self.opened["observer" if viewer < 0 else "seat"] += 1
        value = self._cache[key]
        who = _who(viewer)
        if value is None:
            self._fail(f"{who} holds every share of card {handle} but they do not decrypt to a card")
        if state.values[handle] != value:
            self._fail(
                f"{who} decrypts card {handle} ({_location(state, handle)}) as {value} but its state "
                f"holds {state.values[handle]} (seen by {_mask(self.players, state.seen[handle])})"
            )

    def decrypt(self, session: Session, handle: int, viewer: int) -> int | None:
        """The card's value from the shares `viewer` holds (None: they do not make a card)."""
        cards = session.cards
        state = session.state
        assert state is not None
        ciphertext = cards.ciphertexts[handle]
        shares = dict(cards.shares.get(handle, {}))
        if viewer >= 0:
            shares.update(cards.private.get(handle, {}))
            assert session.secret is not None
            shares[viewer] = crypto.decryption_share(session.secret, ciphertext)
        deck = cards.deck_of[handle]
        composition = self.rules.composition(state, deck)
        book = cards.codebook(deck, len(composition))
        try:
            return int(composition[book.index_of(crypto.combine_shares(ciphertext, shares.values()))])
        except crypto.CryptoError:
            return None

    def observer_opens(self, session: Session) -> dict[int, int | None]:
        """Every card an observer `session` can decrypt, with its value."""
        return {
            handle: self.decrypt(session, handle, -1)
            for handle in session.cards.ciphertexts
            if len(session.cards.shares.get(handle, {})) == self.players
        }

    def _fail(self, message: str) -> None:
        raise SecrecyViolation(f"{message}; in {self.spec.describe()}")


def _who(viewer: int) -> str:
    return "the observer" if viewer < 0 else f"seat {viewer}"


def _due(state: TableState) -> set[tuple[int, int | None]]:
    """(handle, to) of the reveals the rules have asked for and that are still being answered.

    A reveal job consumes one seat's shares at a time, so between two deliveries a card whose
    public reveal is under way can already be open to everyone: that is the rules' decision
    being carried out, not a leak. A reveal to one seat likewise lets that seat (only) read it.
    """
    return {(r.handle, r.to) for r in state.pending if isinstance(r, RevealRequest)}


def _location(state: TableState, handle: int) -> str:
    locations_of = getattr(state, "locations", None)
    if locations_of is None:
        return "?"
    return str(locations_of().get(handle, "not live"))


# --- a whole game -------------------------------------------------------------------------------


@dataclass
class GameReport:
    spec: GameSpec
    paths: Counter[str] = field(default_factory=Counter)
    checks: int = 0
    opened: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    frames: int = 0
    digest: str = ""
    """SHA-256 of seat 0's transcript: two plays of one spec give the same one (determinism)."""


def play(spec: GameSpec, *, transcript: bool = True) -> GameReport:
    """Play `spec` to the end through the protocol, checking the property at every state change.

    Raises `SecrecyViolation` at the first viewer that can decrypt too much or too little (or if
    the game cannot be finished: an unfinished game would check less than it claims).
    """
    report = GameReport(spec)
    with seeded_randomness(spec.seed):
        net = Net(spec.game, spec.players, dict(spec.options), bots=list(spec.bots))
        net.observers = [RecordingObserver(net.config, report.paths)]
        net.observer_events = [[]]
        net.bots = make_bots(spec)
        checker = SecrecyChecker(net, spec)
        try:
            net.start(until=checker.poll)
            net.pump(until=checker.poll)
        except SecrecyViolation:
            raise
        except Exception as exc:  # a peer's engine failed: report it with the seed
            raise SecrecyViolation(
                f"the game broke down: {type(exc).__name__}: {exc}; in {spec.describe()}"
            ) from exc
        checker.check_all()
        report.checks, report.opened = checker.checks, checker.opened
        report.moves, report.frames = net.moves, net.delivered
        report.digest = hashlib.sha256(b"".join(net.sessions[0].frames)).hexdigest()
        for viewer, session in checker.viewers():
            if session.halted or session.state is None or session.state.phase != "game_over":
                who = "the observer" if viewer < 0 else f"seat {viewer}"
                phase = session.state.phase if session.state else None
                raise SecrecyViolation(
                    f"{who} did not finish the game (phase {phase}, halted: {session.halted}); "
                    f"in {spec.describe()}"
                )
        if transcript:
            _check_transcript(net, checker, spec)
    return report


def _check_transcript(net: Net, checker: SecrecyChecker, spec: GameSpec) -> None:
    """A fresh observer fed one seat's saved frames opens exactly what the live observer opens."""
    replay = Session(net.config, None, None)
    replay.start()
    for frame in net.sessions[0].frames:
        replay.receive_frame(frame)
    live = checker.observer_opens(net.observers[0])
    saved = checker.observer_opens(replay)
    if saved != live:
        extra = sorted(set(saved) - set(live))
        lacking = sorted(set(live) - set(saved))
        raise SecrecyViolation(
            f"the saved transcript opens other cards than the live observer (more: {extra}, fewer: "
            f"{lacking}); in {spec.describe()}"
        )
    live_state = net.observers[0].state
    if replay.state is None or live_state is None or replay.state.state_hash() != live_state.state_hash():
        raise SecrecyViolation(
            f"the saved transcript does not replay to the same state; in {spec.describe()}"
        )
    checker.check(-2, replay)  # the transcript reader is an observer too: the same property holds


__all__ = [
    "GAMES",
    "MAX_SEATS",
    "STAR",
    "GameReport",
    "GameSpec",
    "PolicyBot",
    "RecordingObserver",
    "SecrecyChecker",
    "SecrecyViolation",
    "peek_spec",
    "play",
    "sample_spec",
    "seeded_randomness",
]
