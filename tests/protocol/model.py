"""A model test of blame (issue 12): honest sessions and one adversary on a simulated clock.

Why a model and not more hand-written attacks: the faults of issue 12 came from *timing*
(a frame five seconds late to one peer and never to another; a peer stopped for 70 s that comes
back), which the table of `harness.Net` cannot show: it has no clock, delivers everything at once
and fires timers only when a test says so. Here every directed link has its own latency (FIFO per
link), every `TimerRequest` runs out at `now + seconds`, bots think for a while before they move,
and one seat, the *adversary*, runs an honest `Session` whose outgoing frames the simulator
rewrites per receiver: it withholds them from some peers (for good, or holds them for a while),
delays them, equivocates (a different validly signed frame with the same sequence number, game
frames or echoes), sends garbage (unsigned or validly signed), stops (no delivery in or out, no
timers) and comes back with its backlog in an arbitrary order, or crashes for good. What it
does is drawn from the run's seed and changes during the run.

At the end the properties every run must keep (the issue's "Required") are checked by
`Run.findings`: no honest seat is ever named (neither by `Blamed` nor as `Halted.culprit`, and
`Halted.absent` names only the adversary), all honest seats end the same way (all finished, or
all halted with the same culprit), a finished session's transcript verifies as valid and
finished, `verify` of a stopped one names no honest seat either, and no exception escapes the
session. Each finding names the seed: `run_model(seed)`
replays that run exactly (the identities, session id, latencies, think times, bots and even the
sessions' cryptographic randomness all come from the seed; nothing reads the real clock).
"""

from __future__ import annotations

import heapq
import importlib
import math
import random
import traceback
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import PROTOCOL_VERSION, TableConfig
from protocol.errors import RemovalRefused
from protocol.events import (
    Blamed,
    FrameRejected,
    Halted,
    Rewound,
    SeatTakenOver,
    SessionEvent,
    Started,
    TimerRequest,
    YourMove,
)
from protocol.loopback import frame_kind
from protocol.messages import KINDS, Ack, Envelope, open_frame, seal
from protocol.quotas import job_of
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes
from skyjo_p2p.bots import make_bot
from skyjo_p2p.core.errors import IllegalMove
from tools.vectors.signature_section import ORDER_2, ORDER_8, L, twisted_sign

STEP_TIMEOUT = 30.0
"""The client's default (client/table/seat.py `session_timeouts`): automatic protocol steps."""
MOVE_TIMEOUT = 300.0
"""The client's default for a move (a person thinks)."""
TIME_LIMIT = 2 * 3600.0
"""Simulated seconds after which a run stops; an honest table settles long before."""
LATENCY = (0.001, 0.05)
"""One-way latency of each directed link, drawn per link per run (seconds)."""
RESTART = 1.0
"""Seconds a crashed program takes to start again (losttail): longer than any latency, so what it
sent before it died has reached the others, as on real links. What its old links still held back
then (a `hold` or a `delay` past the restart) never arrives: a program's new link to a peer closes
the old one, unread bytes and all (client/net/mesh.py `_serve`)."""
THINK = (0.05, 2.0)
"""A bot's think time before each move (seconds): far below both timeouts."""

BENIGN = frozenset(
    {
        "stop",
        "delay",
        "hold",
        "cut",
        "losttail",
        "stepout",
        "cutresume",
        "impatient",
        "kicker",
        "kicker_joined",
        "outage",
        "slowlinks",
    }
)
"""Behaviours that only make a seat late: such a seat runs an honest session that sends every
frame, so it is held to the honest seats' standard (it too must never name an honest seat, and it
must end as they do: a peer stopped for a while that comes back adopts the verdict). Not "twisted"
signatures: an honest program signs deterministically (RFC 8032), and a program that signs one
body twice with different bytes may, once restarted, wrap the other bytes in a frame and so
equivocate on its own (seed 9237): it is then rightly blamed, and not held to the honest seats'
verdict."""

BEHAVIOURS = (
    "withhold",
    "hold",
    "delay",
    "equivocate",
    "lie",
    "garbage",
    "stop",
    "crash",
    "cut",
    "falsevote",
    "losttail",
    "lies",
    "far",
    "stale",
    "stepout",
    "kicker",
    "cutresume",
)
"""What the adversary may do for a while (between these it is honest). withhold: frames to the
targets are dropped for good; hold: kept and sent at the end of the window; delay: each is sent
`delay` seconds late;
equivocate: a game frame goes out to the targets as another validly signed frame with the same
sequence number; lie: the same for a frame with acknowledgements (one digest changed); garbage:
junk goes out besides the real frames; stop: nothing in or out and no timers until the end of the
window; crash: stop for good; cut (issue 25): its links drop both ways but its program runs on (its
own timers run out, so at an insured table it votes about the seats it cannot hear), then the links
heal and both sides get what they missed; falsevote (issue 25): at an insured table, it signs a
valid vote (and an uphold) about a present program, as if its wait had run out; losttail (issue 26):
its program dies and restarts at once from its saved file, whose last 1 to 20 records (at least one
frame of its own the others hold) were lost, and recovers them (PROTOCOL.md 10.10). losttail is drawn
apart from the others (`draw_lost_tail`), so the other behaviours of a seed stay as they were.
The quota attacks of issue 26 are drawn apart too (`draw_quota_attack`): lies: echoes that lie
about a target's frames, sent to that target alone, in waves (each dispute makes the honest peers
relay the disputed frame and the lie, new frames the next wave lies about), with wants, until the
honest relays reach their budget; far: a game frame for a job that cannot exist yet; stale: a
complaint about a frame of a job it has done. stepout (issue 28) is drawn apart as well
(`draw_step_out`): its player presses Ctrl-C, so its program signs a `stepout` (PROTOCOL.md 10.9,
"Stepping out"; at an insured table the others vote at once), ends, and is started again with
`--resume` some seconds to minutes later. kicker (issue 30) is drawn apart too (`draw_kick`): at an
insured table it proposes to remove a program that is there (PROTOCOL.md 10.9, "Removing a
player"), sometimes with a confirmation signed before every agreement is in, and sometimes one
honest player agrees with it; one program at least never does, so nothing may be taken over.
cutresume is drawn apart too (`draw_cut_resume`): its links drop both ways for long (the table may
vote, take its seat over and play on; its program plays on alone, its own moves void, and may stop
itself as cut off), then the program ends and is started again with `--resume` from its saved file
(the fault of CI run 45: the resumed program named the host a cheat for the shares it rebuilt)."""
_WEIGHTS = (10, 8, 10, 8, 8, 8, 10, 3, 8, 8)
"""The weights of the behaviours but the last (losttail, drawn by `draw_lost_tail`)."""
GRACE = 60
"""The grace of an insured table in the model (the client's default): the step timer's two waits
are half of it each, as the client sets them (client/table/seat.py `session_timeouts`)."""

GAME_KINDS = frozenset({"keycommit", "key", "shuffle", "shares", "coincommit", "coin", "move", "roundsig"})


@dataclass
class Deviation:
    """One thing the adversary does, to `targets` (receiver seats), from `start` until `end`.

    With `trigger`, it begins at the adversary's first frame of that kind sent at or after
    `start` (`end` then counts from there: `end - start` is the duration); `count` bounds the
    frames it changes. The regression tests script these; random runs draw them.
    """

    behaviour: str
    targets: tuple[int, ...] = ()
    start: float = 0.0
    end: float = math.inf
    trigger: str | None = None
    count: int | None = None
    delay: float = 0.0
    consistent: bool = True
    """equivocate/lie: the later frames to the targets are re-signed to chain on the forked one."""
    about: int | None = None
    """lie: change the digest the echo gives for a frame of this seat (None: any)."""
    acking: str | None = None
    """lie: only in an echo of a frame of this kind (None: any kind)."""
    began: float | None = None
    used: int = 0

    def live(self, now: float) -> bool:
        if self.began is None or (self.count is not None and self.used >= self.count):
            return False
        return now < self.began + (self.end - self.start)


@dataclass
class Run:
    """What one run did and what it found."""

    seed: int
    game: str
    players: int
    options: dict[str, Any]
    adversary: int
    honest: tuple[int, ...]
    deviations: list[Deviation]
    events: list[list[tuple[float, SessionEvent]]]
    sessions: list[Session]
    config: TableConfig
    clock: float = 0.0
    settled_queue: bool = True
    """False when the run stopped at the time limit with work still queued."""
    errors: list[str] = field(default_factory=list)
    effects: Counter[str] = field(default_factory=Counter)
    """Behaviours that changed at least one frame (or stopped the adversary), and how often."""
    twisted: set[bytes] = field(default_factory=set)
    """The signatures the adversary made with R moved by a point of small order (`TwistedSigner`)."""
    slept: int | None = None
    """An honest seat whose program was asleep for a while (`draw_outage`): it may be named
    absent and its seat played by the table, like any program gone that long; never blamed."""

    @property
    def late_only(self) -> bool:
        """The adversary only ran late (stopped and came back, delayed or held frames)."""
        return "crash" not in self.effects and set(self.effects) <= BENIGN

    @property
    def held(self) -> tuple[int, ...]:
        """The seats the checks apply to: the honest ones, and the adversary if it only ran late."""
        return tuple(range(self.players)) if self.late_only else self.honest

    def outcome(self, seat: int) -> tuple[str, int | None]:
        """("finished", None), ("halted", culprit) or ("pending", None) for one seat."""
        session = self.sessions[seat]
        # the last session's own (a program cut off that stopped itself, then resumed, ended as
        # the resumed one did)
        starts = [i for i, (_, e) in enumerate(self.events[seat]) if isinstance(e, Started)]
        halts = [e for _, e in self.events[seat][starts[-1] if starts else 0 :] if isinstance(e, Halted)]
        if halts or session.halted is not None:
            return ("halted", halts[-1].culprit if halts else None)  # the final verdict
        state = session.state
        if state is not None and state.phase == "game_over" and session.settled:
            return ("finished", None)
        return ("pending", None)

    def findings(self) -> list[str]:
        """Every broken property, each line naming the seed (empty: the run is fine)."""
        tag = f"seed {self.seed} ({self.game}, {self.players} seats, adversary {self.adversary})"
        out = [f"{tag}: {error}" for error in self.errors]
        honest = set(self.honest)
        for seat in self.held:
            for at, event in self.events[seat]:
                if isinstance(event, Blamed) and event.seat in honest:
                    out.append(
                        f"{tag}: at {at:.3f}s seat {seat} blamed honest seat {event.seat}: "
                        f"{event.reason} ({len(event.evidence)} evidence frame(s))"
                    )
                elif isinstance(event, Halted):
                    if event.culprit in honest:
                        out.append(
                            f"{tag}: at {at:.3f}s seat {seat} halted naming honest seat "
                            f"{event.culprit} as culprit: {event.reason}"
                        )
                    wrong = sorted(honest.intersection(event.absent) - {self.slept})
                    # A late adversary (stopped, or its frames held) may itself see an honest
                    # seat as absent: that seat waited for it, and neither can tell a partition
                    # from a player who left. Absent is no blame; only honest seats are held to it.
                    if wrong and seat in honest:
                        out.append(
                            f"{tag}: at {at:.3f}s seat {seat} halted with honest seat(s) {wrong} absent"
                        )
        # Seat insurance (issue 25): the table never plays, so never discloses the cards of, a seat
        # whose program is there: an honest seat is never taken over.
        for seat in self.held:
            for at, event in self.events[seat]:
                if isinstance(event, SeatTakenOver) and event.seat in honest and event.seat != self.slept:
                    out.append(
                        f"{tag}: at {at:.3f}s seat {seat} saw the table take over honest seat "
                        f"{event.seat} ({event.how}, {event.disclosed} card(s) disclosed)"
                    )
        # Issue 30: a removal needs every other program's agreement; in the model one program at
        # least never agrees, so no seat at all is ever removed (the adversary's neither).
        for seat in self.held:
            for at, event in self.events[seat]:
                if isinstance(event, SeatTakenOver) and event.how == "removed":
                    out.append(
                        f"{tag}: at {at:.3f}s seat {seat} saw seat {event.seat} removed although "
                        "one program at least never agreed"
                    )
        # A program that agreed to a removal and vanished before it confirmed is voted out like
        # any vanished program (its answer never comes): the table plays on, never stops for it.
        if self.effects["kicker_crash"]:
            for seat in self.held:
                for at, event in self.events[seat]:
                    if isinstance(event, Halted) and "could not agree on a removal" in event.reason:
                        out.append(f"{tag}: at {at:.3f}s seat {seat} stopped: {event.reason}")
        # Protocol version 6: a signature whose R is off by a point of small order verifies (the
        # cofactored rule, PROTOCOL.md 12.11). Every peer takes the adversary's such frames as any
        # other (none is dropped as unsigned) and a finished transcript holding them verifies.
        if self.twisted:
            refused = f"claiming seat {self.adversary + 1} does not verify"
            for seat in self.held:
                for at, event in self.events[seat]:
                    if (
                        isinstance(event, FrameRejected)
                        and refused in event.reason
                        and not self.effects["garbage"]
                    ):
                        out.append(
                            f"{tag}: at {at:.3f}s seat {seat} refused a twisted signature: {event.reason}"
                        )
            for seat in self.held:
                frames = self.sessions[seat].frames
                if self.outcome(seat)[0] == "finished" and not any(f[-64:] in self.twisted for f in frames):
                    out.append(f"{tag}: seat {seat} finished without any of the adversary's twisted frames")
        outcomes = {seat: self.outcome(seat) for seat in self.held}
        if len(set(outcomes.values())) > 1:
            shown = ", ".join(
                f"seat {s}: {o[0]}" + (f" culprit {o[1]}" if o[0] == "halted" else "")
                for s, o in outcomes.items()
            )
            out.append(f"{tag}: honest seats disagree: {shown}")
        for seat, (kind, _) in outcomes.items():
            if kind == "pending":
                why = "time limit reached" if not self.settled_queue else "nothing left to happen: stalled"
                out.append(f"{tag}: seat {seat} neither finished nor halted ({why}, {self.clock:.0f}s)")
                continue
            verdict = verify_bytes(dump(self.config, self.sessions[seat].frames))
            if kind == "finished" and not (verdict.valid and verdict.finished):
                out.append(
                    f"{tag}: seat {seat} finished but its transcript does not verify: "
                    f"valid={verdict.valid} finished={verdict.finished} fault={verdict.fault}"
                )
            elif verdict.blame is not None and verdict.blame in self.honest:
                # `verify` of an honest seat's file names an honest seat (a stopped game's too)
                blamed = f"blames honest seat {verdict.blame}: {verdict.fault}"
                out.append(f"{tag}: seat {seat}'s transcript {blamed}")
        return out

    def summary(self) -> str:
        outcomes = " ".join(f"{s}:{self.outcome(s)[0]}" for s in self.honest)
        used = ",".join(f"{b}x{n}" for b, n in sorted(self.effects.items())) or "none"
        return (
            f"seed {self.seed}: {self.game} {self.players} seats, adversary {self.adversary}, "
            f"did {used}; {self.clock:.0f}s simulated; {outcomes}"
        )


# --- deterministic randomness for the sessions' cryptography -------------------------------------

_SECRET_USERS = tuple(importlib.import_module(f"protocol.crypto.{n}") for n in ("group", "shuffle", "coins"))
"""The modules that draw from `secrets` when no `rng` is passed (as tools/vectors/common.py lists them)."""


class _SeededSecrets:
    """Stands in for `secrets` during a run, so that a seed replays the run exactly (the deck,
    and so the game, depends on the shuffles). Not secret at all: a test stand-in."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def randbelow(self, n: int) -> int:
        return self.rng.randrange(n)

    def token_bytes(self, k: int) -> bytes:
        return self.rng.randbytes(k)


@contextmanager
def _seeded_secrets(seed: int) -> Iterator[None]:
    saved = [getattr(module, "secrets") for module in _SECRET_USERS]  # noqa: B009 (typed as a module)
    fake = _SeededSecrets(random.Random(f"secrets:{seed}"))
    for module in _SECRET_USERS:
        setattr(module, "secrets", fake)  # noqa: B010
    try:
        yield
    finally:
        for module, original in zip(_SECRET_USERS, saved, strict=True):
            setattr(module, "secrets", original)  # noqa: B010


# --- the table of one run ---------------------------------------------------------------------------


def draw_table(rng: random.Random) -> tuple[str, int, dict[str, Any]]:
    """Game, seats and options of a short game (one round, or a small stock in SKIP-BO)."""
    game = rng.choices(("skyjo", "skip-bo", "skyjo-action"), (7, 2, 1))[0]
    if game == "skyjo":
        players = rng.choices((2, 3, 4, 5), (2, 5, 2, 1))[0]
        return game, players, {"target_score": 1, "setup_reveals": rng.choice((0, 1, 2))}
    if game == "skip-bo":
        return game, rng.choice((2, 3)), {"single_round": True, "stock_size": 5}
    return game, rng.choice((2, 3)), {"target_score": 1, "grid": "3x3"}


def draw_deviations(rng: random.Random, players: int, adversary: int) -> list[Deviation]:
    """A random plan for the adversary: up to five deviations, one after another, each for a
    while, with honest spells between them (and none at all in about one run in ten, a control).
    A game lasts a few simulated minutes, so the plan spreads over the first ten."""
    others = [s for s in range(players) if s != adversary]
    plan: list[Deviation] = []
    clock = 0.0
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 5, 5))):
        if plan and rng.random() < 0.4:  # at the same time as the last one (to other peers, say)
            clock = plan[-1].start
        else:
            clock += rng.choice((0.0, rng.expovariate(1 / 60)))
        behaviour = rng.choices(BEHAVIOURS[: len(_WEIGHTS)], _WEIGHTS)[0]
        targets = tuple(sorted(rng.sample(others, rng.randint(1, len(others)))))
        length = max(0.5, rng.expovariate(1 / 30))
        deviation = Deviation(behaviour, targets, clock, clock + length)
        if behaviour == "delay":
            deviation.delay = rng.choice((rng.uniform(0.1, 5.0), rng.uniform(5.0, 45.0)))
        elif behaviour in ("equivocate", "lie"):
            deviation.count = rng.randint(1, 3)
            deviation.consistent = rng.random() < 0.7
        elif behaviour == "stop":
            deviation.end = clock + rng.choice(
                (rng.uniform(1, 30), rng.uniform(30, 100), rng.uniform(100, 700))
            )
        elif behaviour == "cut":  # during the game, 0.5x to 5x the grace (the fault probes)
            deviation.start = clock = clock + rng.uniform(20.0, 120.0)
            deviation.end = clock + GRACE * rng.choice((0.5, 1.0, 1.5, 2.0, 5.0)) * rng.uniform(0.9, 1.1)
        elif behaviour == "falsevote":
            deviation.start = clock = clock + rng.uniform(10.0, 120.0)
            deviation.end = clock + 1.0
        elif behaviour == "crash":
            deviation.end = math.inf
        plan.append(deviation)
        if behaviour == "crash":
            break
        clock = max(clock, deviation.end if math.isfinite(deviation.end) else clock)
    return plan


def draw_lost_tail(seed: int) -> Deviation | None:
    """In a third of the runs, the adversary's file loses a tail once, at a random time (its own
    random stream: the other draws of the seed are unchanged)."""
    rng = random.Random(f"losttail:{seed}")
    if rng.random() >= 1 / 3:
        return None
    start = rng.uniform(5.0, 200.0)
    deviation = Deviation("losttail", (), start, start + 1.0)
    deviation.count = rng.randint(1, 20)  # records lost
    return deviation


QUOTA_ATTACKS = ("lies", "far", "stale")
UNROUTED = ("stop", "crash", "cut", "cutresume", "falsevote", "stepout", "kicker", *QUOTA_ATTACKS)
"""Behaviours that change no frame on its way (`_adversary_sends`): they act once, or on the program."""


def draw_quota_attack(seed: int, players: int, adversary: int) -> Deviation | None:
    """In a third of the runs, one of the quota attacks of issue 26 (`QUOTA_ATTACKS`), once, at a
    random time (its own random stream: the other draws of the seed are unchanged)."""
    rng = random.Random(f"quotas:{seed}")
    if rng.random() >= 1 / 3:
        return None
    behaviour = rng.choice(QUOTA_ATTACKS)
    start = rng.uniform(5.0, 200.0)
    others = [s for s in range(players) if s != adversary]
    deviation = Deviation(behaviour, (rng.choice(others),), start, start + 1.0)
    deviation.count = rng.choice((300, 1200, 2500))  # lies in all
    return deviation


def draw_step_out(seed: int) -> Deviation | None:
    """In a third of the runs, the adversary's player steps out once (Ctrl-C), at a random time,
    and comes back with `--resume` 1 to 240 s later (its own random stream)."""
    rng = random.Random(f"stepout:{seed}")
    if rng.random() >= 1 / 3:
        return None
    start = rng.uniform(5.0, 200.0)
    return Deviation("stepout", (), start, start + rng.uniform(1.0, 240.0))


def draw_cut_resume(seed: int, players: int, adversary: int) -> Deviation | None:
    """In a quarter of the runs, the adversary's links are cut both ways once, for 1.5 to 14 times
    the grace, its program running on (in half of them from its next move on, and its player then
    plays as the table's bot would not: `consistent`); then the program ends and is started again
    with `--resume` `delay` (1 to 60) seconds later, from its own saved file. In half of those its
    link to one other program (`targets`) comes up `count` (10 to 90) seconds late. Its own random
    stream: the other draws of the seed are unchanged."""
    rng = random.Random(f"cutresume:{seed}")
    if rng.random() >= 1 / 4:
        return None
    start = rng.uniform(10.0, 150.0)
    length = GRACE * rng.choice((1.5, 2.5, 4.0, 10.0, 12.0, 14.0)) * rng.uniform(0.9, 1.1)
    late = rng.choice([s for s in range(players) if s != adversary])
    deviation = Deviation("cutresume", (late,), start, start + length)
    deviation.delay = rng.uniform(1.0, 60.0)
    deviation.consistent = rng.random() < 0.5
    deviation.trigger = "move" if deviation.consistent else None
    deviation.count = rng.randint(10, 90) if rng.random() < 0.5 else 0
    return deviation


def draw_kick(seed: int, players: int, adversary: int) -> Deviation | None:
    """In a third of the runs, the adversary proposes once to remove a program that is there
    (`targets[0]` is a seat of it); with `count` 1, one honest player of another program agrees
    too, leaving at least one that never does (its own random stream). With `count` 2 every
    honest program but the target's agrees, and the adversary's program dies right after its own
    agreement, so it never confirms: the others wait for its answer, then vote that it vanished."""
    rng = random.Random(f"kicker:{seed}")
    if rng.random() >= 1 / 3 or players < 3:
        return None
    start = rng.uniform(10.0, 150.0)
    target = rng.choice([s for s in range(players) if s != adversary])
    deviation = Deviation("kicker", (target,), start, start + 1.0)
    deviation.count = 1 if players >= 4 and rng.random() < 0.5 else 0
    deviation.consistent = rng.random() < 0.5  # (reused) False: also an early confirmation
    if random.Random(f"kickcrash:{seed}").random() < 1 / 3:
        # every other program agrees, and the adversary's program dies right after its own
        # agreement (a closed lid), before it could confirm: the table must play on
        deviation.count, deviation.consistent = 2, True
    return deviation


def draw_vote_after_return(seed: int) -> bool:
    """In a third of the runs, each time the adversary signs a `return` (the table played its
    seat and it is back), it also votes about a program that is there 0.2-3 s later: before its
    next turn, while the table still plays its seat, where such a vote counts at once (PROTOCOL.md
    10.9). Its own random stream: the other draws of the seed are unchanged."""
    return random.Random(f"returnvote:{seed}").random() < 1 / 3


def draw_outage(seed: int, players: int, adversary: int) -> tuple[int, float, float] | None:
    """In a third of the insured runs of four seats or more, an honest program falls asleep once
    (a closed lid: nothing in or out, its timers wait) `delay` seconds after the adversary's first
    `return` (the table played its seat and it came back, before its next turn gives the seat
    back), for `length` seconds, then takes what waited, in order: (seat, delay, length). Two
    programs are then away at once around a return (PROTOCOL.md 10.9). Its own random stream."""
    rng = random.Random(f"outage:{seed}")
    if rng.random() >= 1 / 3 or players < 4:
        return None
    seat = rng.choice([s for s in range(players) if s != adversary])
    return seat, rng.uniform(0.0, 5.0), GRACE * rng.choice((0.3, 1.0, 2.5, 6.0)) * rng.uniform(0.9, 1.1)


def draw_slow_links(seed: int) -> random.Random | None:
    """In a third of the runs, the links of a program started again come up one by one, each up to
    `SLOW_LINKS` seconds after it started (a laptop's Wi-Fi associating again, a handshake behind
    others): until every other program has said how much of its chain it holds, the restored
    session recovers and signs nothing, while its timers run (a `want:` that ran out then was
    lost for good: tests/protocol/test_want_while_recovering.py). The stream the delays are drawn
    from (its own: the run's other draws stay as they were), or None."""
    rng = random.Random(f"links:{seed}")
    return rng if rng.random() < 1 / 3 else None


SLOW_LINKS = 8.0
"""Seconds a restored program's link may take to come up (`draw_slow_links`)."""


def _draw_slow(rng: random.Random) -> tuple[float, float, float] | None:
    """Bots in a third of the runs sometimes think like people (10% of moves take 30-120 s):
    a long silence is when a lie or a withheld frame is found only by a timer."""
    return (0.1, 30.0, 120.0) if rng.random() < 1 / 3 else None


class Model:
    """One run: `players` sessions, seat `adversary` deviating as `deviations` say."""

    def __init__(
        self,
        seed: int,
        *,
        game: str | None = None,
        players: int | None = None,
        options: dict[str, Any] | None = None,
        adversary: int | None = None,
        deviations: list[Deviation] | None = None,
        step_timeout: float = STEP_TIMEOUT,
        move_timeout: float = MOVE_TIMEOUT,
        time_limit: float = TIME_LIMIT,
        slow: tuple[float, float, float] | None = None,
        insured: bool | None = None,
    ) -> None:
        self.seed = seed
        rng = random.Random(seed)
        drawn = draw_table(rng)
        self.game = game or drawn[0]
        self.players = players or drawn[1]
        self.options = dict(drawn[2] if options is None and game is None else options or {})
        self.adversary = rng.randrange(self.players) if adversary is None else adversary
        plan_rng = random.Random(f"plan:{seed}")
        self.deviations = (
            draw_deviations(plan_rng, self.players, self.adversary) if deviations is None else deviations
        )
        if deviations is None:  # the behaviours drawn apart, each from its own stream
            self._add_drawn(draw_lost_tail(seed))
            self._add_drawn(draw_quota_attack(seed, self.players, self.adversary))
            self._add_drawn(draw_step_out(seed))
            self._add_drawn(draw_cut_resume(seed, self.players, self.adversary), not_to_a_control=True)
            self._add_drawn(draw_kick(seed, self.players, self.adversary), not_to_a_control=True)
        self.vote_after_return = deviations is None and draw_vote_after_return(seed)
        self.slow_links = draw_slow_links(seed) if deviations is None else None
        self.outage: tuple[int, float, float] | None = None
        """(seat, delay, length) of an honest program's sleep after the adversary's first return."""
        self._asleep: dict[int, list[tuple[str, Any]]] = {}
        """An asleep honest seat -> what waits for it, in arrival order (frames and calls)."""
        self.slept: int | None = None
        self.rng = random.Random(f"run:{seed}")
        self.slow = slow if slow is not None or deviations is not None else _draw_slow(plan_rng)
        """(probability, shortest, longest): how often an honest player thinks long, and how long
        (a person who thinks past the 30 s step timeout, but within the move timeout)."""
        self.keys = [Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)) for _ in range(self.players)]
        self.insured = (
            insured
            if insured is not None
            else (deviations is None and self.players >= 3 and plan_rng.random() < 0.5)
        )
        """Seat insurance (issue 25): the table votes to play a vanished seat and rebuilds its shares."""
        if self.insured and deviations is None:
            self.outage = draw_outage(seed, self.players, self.adversary)
        self.impatient = self.insured and random.Random(f"impatient:{seed}").random() < 0.5
        """Issue 28 point 3: every player asks to go on without the seats a step waits for as soon
        as they may (`Session.go_on_without`, once the first wait ran out): the early votes must
        never take over a seat whose program is there (drawn from its own stream)."""
        table: dict[str, Any] = {"insured": True, "grace": GRACE} if self.insured else {}
        if self.insured:
            step_timeout = GRACE / 2
        self.config = TableConfig(
            session_id=rng.randbytes(32),
            game=self.game,
            players=self.players,
            identities=tuple(k.public_key().public_bytes_raw() for k in self.keys),
            options=self.options,
            names=tuple(f"p{s}" for s in range(self.players)),
            table=table,
        )
        self.step_timeout, self.move_timeout = step_timeout, move_timeout
        self.sessions = [
            Session(self.config, s, self.keys[s], step_timeout=step_timeout, move_timeout=move_timeout)
            for s in range(self.players)
        ]
        twisting = random.Random(f"twisted:{seed}")
        self.twisted = TwistedSigner(self.keys[self.adversary], twisting)
        """Protocol version 6: in half the runs the adversary's program signs every frame with R
        moved by a point of small order (valid under the cofactored rule; an honest signer never
        does it). Drawn from its own stream: the other draws of the seed are unchanged."""
        self.twisting = deviations is None and twisting.random() < 0.5
        if self.twisting:
            self.sessions[self.adversary]._signer = self.twisted  # type: ignore[assignment]
        self.bots = [make_bot("greedy", self.game, f"model:{seed}:{s}") for s in range(self.players)]
        self.latency = {
            (a, b): self.rng.uniform(*LATENCY)
            for a in range(self.players)
            for b in range(self.players)
            if a != b
        }
        self.time_limit = time_limit
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._order = 0
        self._link_free = dict.fromkeys(self.latency, 0.0)
        self._links_of = [0] * self.players
        """How many times each program started again (`_restore`): its links before are closed."""
        self._thinking = [False] * self.players
        self._timer_asked: Counter[tuple[int, str]] = Counter()
        """Per (seat, timer name), how many times it was asked for: only the last one runs out."""
        self.events: list[list[tuple[float, SessionEvent]]] = [[] for _ in range(self.players)]
        self.errors: list[str] = []
        self.effects: Counter[str] = Counter()
        self.stopped = False
        self.crashed = False
        self.cut = False
        """The adversary's links are down both ways, its program runs on (behaviour "cut")."""
        self.own_way = False
        """(cutresume) While cut off, the adversary's player plays moves the table's bot would not."""
        self._late: tuple[int, float] | None = None
        """(cutresume) After the restart, frames signed by this seat reach the adversary only from
        this time on (its link to that program comes up late; relays by others pass)."""
        self._backlog_in: dict[int, deque[bytes]] = {}
        self._backlog_calls: list[tuple[str, str]] = []
        self._held_out: list[bytes] = []
        self._fork_prev: dict[int, bytes] = {}
        self._alternative: dict[str, Any] | None = None
        self._lied: set[tuple[int, int]] = set()

    def _add_drawn(self, deviation: Deviation | None, not_to_a_control: bool = False) -> None:
        """Add a deviation drawn apart, unless the adversary has crashed for good before it
        starts, or (`not_to_a_control`) the run drew no deviation so far: a control run stays
        honest."""
        if deviation is None or (not_to_a_control and not self.deviations):
            return
        if any(d.behaviour == "crash" and d.start <= deviation.start for d in self.deviations):
            return
        self.deviations.append(deviation)

    # --- the clock --------------------------------------------------------------------------------

    def at(self, when: float, action: Callable[[], None]) -> None:
        self._order += 1
        heapq.heappush(self._heap, (when, self._order, action))

    def run(self) -> Run:
        with _seeded_secrets(self.seed):
            for deviation in self.deviations:
                if deviation.trigger is None:
                    self.at(deviation.start, partial(self._begin, deviation))
            for seat in range(self.players):
                self._call(seat, "start", "")
            while self._heap and self._heap[0][0] <= self.time_limit:
                when, _, action = heapq.heappop(self._heap)
                self.now = max(self.now, when)
                action()
        if self.twisted.made:
            self.effects["twisted"] = len(self.twisted.made)
        return Run(
            self.seed,
            self.game,
            self.players,
            self.options,
            self.adversary,
            tuple(s for s in range(self.players) if s != self.adversary),
            self.deviations,
            self.events,
            self.sessions,
            self.config,
            self.now,
            not self._heap,
            self.errors,
            self.effects,
            self.twisted.made,
            self.slept,
        )

    # --- calls into a session ---------------------------------------------------------------------

    def _call(self, seat: int, what: str, arg: str | bytes) -> None:
        """One call into a session (deferred if it is the stopped adversary), then its output."""
        if seat == self.adversary and self.crashed:
            return
        if seat == self.adversary and self.stopped and not self.cut:
            if what == "frame":
                raise AssertionError("frames for a stopped seat wait in _deliver")
            self._backlog_calls.append((what, str(arg)))
            return
        if seat in self._asleep:
            self._asleep[seat].append((what, arg))
            return
        session = self.sessions[seat]
        try:
            if what == "start":
                session.start()
            elif what == "frame":
                assert isinstance(arg, bytes)
                session.receive_frame(arg)
            elif what == "timer":
                session.timer_expired(str(arg))
                if self.impatient and session.go_on_without():
                    self.effects["impatient"] += 1
            elif what == "think":
                self._thinking[seat] = False
                self._think(seat)
        except Exception:
            self.errors.append(
                f"at {self.now:.3f}s seat {seat} raised in {what}: "
                + traceback.format_exc(limit=3).strip().splitlines()[-1]
            )
        self._collect(seat)

    def _think(self, seat: int) -> None:
        session = self.sessions[seat]
        moves = session.legal_moves()
        if not moves or session.state is None:
            return
        move = self.bots[seat].choose(session.state, seat)
        if seat == self.adversary:
            others = [m for m in moves if m != move]
            alternative = self.rng.choice(others) if others else None
            self._alternative = alternative.to_dict() if alternative is not None else None
            if self.cut and self.own_way and alternative is not None:
                move = alternative  # its player, alone, plays as the table's bot would not
        try:
            session.submit_move(move)
        except IllegalMove as exc:
            self.errors.append(f"at {self.now:.3f}s seat {seat}'s bot chose an illegal move: {exc}")

    def _collect(self, seat: int) -> None:
        session = self.sessions[seat]
        for frame in session.data_to_send():
            if seat == self.adversary:
                if self.vote_after_return and self.insured and frame_kind(frame) == "return":
                    vote = Deviation("returnvote", (), self.now, self.now + 1.0)
                    self.at(self.now + self.rng.uniform(0.2, 3.0), partial(self._vote_after_return, vote))
                if self.outage is not None and self.slept is None and frame_kind(frame) == "return":
                    seat, delay, length = self.outage
                    self.slept = seat
                    self.at(self.now + delay, partial(self._fall_asleep, seat, length))
                self._adversary_sends(frame)
            else:
                for other in range(self.players):
                    if other != seat:
                        self._transmit(seat, other, frame)
        for event in session.next_events():
            self.events[seat].append((self.now, event))
            if isinstance(event, Rewound):
                # as the client does: rebuild the session from its own saved transcript
                self.at(self.now, partial(self._restore, seat))
            if isinstance(event, TimerRequest):
                # as the client does: a new request of a name replaces the one pending
                self._timer_asked[(seat, event.name)] += 1
                asked = self._timer_asked[(seat, event.name)]
                self.at(self.now + event.seconds, partial(self._timer, seat, event.name, asked))
            elif isinstance(event, YourMove) and not self._thinking[seat]:
                self._thinking[seat] = True
                think = self.rng.uniform(*THINK)
                if self.slow is not None and seat != self.adversary and self.rng.random() < self.slow[0]:
                    think = self.rng.uniform(self.slow[1], self.slow[2])
                self.at(self.now + think, partial(self._call, seat, "think", ""))

    def _timer(self, seat: int, name: str, asked: int) -> None:
        """A timer runs out, unless the seat asked for one of that name again since (replaced)."""
        if self._timer_asked[(seat, name)] == asked:
            self._call(seat, "timer", name)

    def _restore(self, seat: int, lose: int = 0, started: bool = False) -> None:
        """Rebuild `seat`'s session from its saved file, as `--resume` does (recovering: PROTOCOL.md
        10.10); with `lose`, the file lost its last `lose` records (at least one frame of its own).
        `started`: a new program (after a crash or a Ctrl-C): its links are new ones, and the old
        links' frames still on their way never arrive (see `RESTART`); a program that rebuilds
        its session after a `Rewound` keeps its links."""
        if seat == self.adversary and (self.crashed or (self.stopped and not self.cut)):
            self.at(self.now + 1.0, partial(self._restore, seat, lose, started))
            return
        old = self.sessions[seat]
        if started:
            self._links_of[seat] += 1
            for other in range(self.players):
                if other != seat:
                    self._link_free[(seat, other)] = self.now
        frames = list(old.frames)
        if lose:
            own = [i for i, f in enumerate(frames) if open_frame(f, self.config).seat == seat]
            if len(own) > 1:
                frames = frames[: max(own[0] + 1, min(len(frames) - lose, own[-1]))]
        restored = self.sessions[seat] = Session.restore(
            self.config,
            seat,
            self.keys[seat],
            old.secrets(),
            frames,
            recover=True,
            # after a `Rewound`, as the client does: the decisions the old session reached
            decided=None if started else old.insurance.decisions_about_us(),
            step_timeout=self.step_timeout,
            move_timeout=self.move_timeout,
        )
        if self.twisting and seat == self.adversary:
            restored._signer = self.twisted  # type: ignore[assignment]
        self._thinking[seat] = False
        self._collect(seat)
        # the links' `resend` at the reconnection, one link at a time, each after its latency
        for other in range(self.players):
            if other == seat or (other == self.adversary and self.crashed):
                continue
            links = self._links_of[seat]
            delay = self.latency[(other, seat)]
            if self.slow_links is not None:
                delay += self.slow_links.uniform(0.0, SLOW_LINKS)
                self.effects["slowlinks"] += 1
            self.at(self.now + delay, partial(self._hello, other, seat, links))

    def _hello(self, other: int, seat: int, links: int) -> None:
        """`other`'s link to the restored `seat` is up: `other` says how much of the restored chain
        it holds (it is asked for the rest: `mine`) and resends what the restored chain lacks of its
        own. A program asleep or stopped does that once it runs again: meanwhile the restored
        session recovers, and its timers run (`draw_slow_links`; the real programs of
        tests/client/test_lan_back_waits.py lost a `want:` then)."""
        if links != self._links_of[seat] or (other == self.adversary and self.crashed):
            return  # restarted again since, or dead: the new program's own links say it
        stopped = self.stopped and self.adversary in (other, seat)
        if stopped or other in self._asleep or seat in self._asleep:
            self.at(self.now + 0.5, partial(self._hello, other, seat, links))
            return
        restored = self.sessions[seat]
        restored.peer_holds(other, self.sessions[other].next_seq_of(seat))
        start = restored.missing_own()
        if start is not None:
            for frame in self.sessions[other].chain_frames(seat, start):
                self._transmit(other, seat, frame)
        for frame in self.sessions[other].own_frames_from(restored.next_seq_of(other)):
            self._transmit(other, seat, frame)
        # and the other way (the restored end's answer to `other`'s `resend`): its own frames
        # `other` lacks, such as the moves a program cut off played alone
        for frame in restored.own_frames_from(self.sessions[other].next_seq_of(seat)):
            self._transmit(seat, other, frame)
        self._collect(seat)

    def _transmit(self, sender: int, receiver: int, frame: bytes, extra: float = 0.0) -> None:
        """Put a frame on a link: it arrives after the link's latency (plus `extra`), never
        before a frame sent earlier on the same link."""
        link = (sender, receiver)
        when = max(self.now + self.latency[link] + extra, self._link_free[link])
        self._link_free[link] = when
        self.at(when, partial(self._deliver, sender, receiver, frame, self._links_of[sender]))

    def _deliver(self, sender: int, receiver: int, frame: bytes, links: int | None = None) -> None:
        if links is not None and links != self._links_of[sender]:
            return  # sent on a link its program's restart closed (see `RESTART`)
        if receiver == self.adversary and self.crashed:
            return
        if receiver == self.adversary and self.stopped:
            self._backlog_in.setdefault(sender, deque()).append(frame)
            return
        if receiver in self._asleep:
            self._asleep[receiver].append(("frame", frame))
            return
        if receiver == self.adversary and self._late is not None and self.now < self._late[1]:
            late, until = self._late
            try:
                signer = open_frame(frame, self.config).seat
            except Exception:
                signer = None
            if signer == late:  # its link to that program is not up yet (relays pass)
                self.at(until, partial(self._deliver, sender, receiver, frame, links))
                return
        self._call(receiver, "frame", frame)

    # --- the adversary --------------------------------------------------------------------------

    def _begin(self, deviation: Deviation) -> None:
        if deviation.began is not None:
            return
        deviation.began = self.now
        if deviation.behaviour == "stop" and not self.crashed:
            self.effects["stop"] += 1
            self.stopped = True
            self.at(self.now + (deviation.end - deviation.start), self._resume)
        elif deviation.behaviour == "cut" and not self.crashed and not self.stopped:
            self.effects["cut"] += 1
            self.stopped = self.cut = True
            self.at(self.now + (deviation.end - deviation.start), self._resume)
        elif deviation.behaviour == "falsevote" and self.insured and not (self.crashed or self.stopped):
            self._false_vote(deviation)
        elif deviation.behaviour == "losttail" and not (self.crashed or self.stopped):
            self.effects["losttail"] += 1
            # the program dies; it is started again once what it had sent has arrived (a new
            # program takes a second to start and reconnect, and a dead program's last bytes
            # reach the others before its links close: `RESTART` is longer than any latency)
            self._program_ends()
            self.at(self.now + RESTART, partial(self._started_again, lose=deviation.count or 1))
        elif deviation.behaviour in QUOTA_ATTACKS and not self.crashed:
            self._quota_attack(deviation)
        elif deviation.behaviour == "stepout" and not (self.crashed or self.stopped):
            self._step_out(deviation)
        elif deviation.behaviour == "cutresume" and not (self.crashed or self.stopped):
            self.effects["cutresume"] += 1
            self.stopped = self.cut = True
            self.own_way = deviation.consistent
            ends = partial(self._end_cut_by_restart, deviation)
            self.at(self.now + (deviation.end - deviation.start), ends)
        elif deviation.behaviour == "kicker" and self.insured and not (self.crashed or self.stopped):
            self._kick(deviation)
        elif deviation.behaviour == "crash":
            self.effects["crash"] += 1
            self._program_ends()

    def _program_ends(self) -> None:
        """The adversary's program is gone (killed, crashed, ended): nothing reaches it or leaves
        it, and what its links held, both ways, is lost."""
        self.crashed = True
        self._backlog_in.clear()
        self._backlog_calls.clear()
        self._held_out.clear()

    def _started_again(self, lose: int = 0, late: tuple[int, float] | None = None) -> None:
        """The adversary's program is started again, from its saved file (`_restore`), on new
        links: its file lost its last `lose` records; `late`: (seat, seconds) its link to that
        seat's program comes up late (`_late`)."""
        self.crashed = False
        if late is not None:
            self._late = (late[0], self.now + late[1])
        self._restore(self.adversary, lose=lose, started=True)

    def _step_out(self, deviation: Deviation) -> None:
        """Ctrl-C: the program signs its `stepout` (if the table may play its seat), sends it and
        ends; it comes back with `--resume` (its saved file) when the deviation ends."""
        self.effects["stepout"] += 1
        self.sessions[self.adversary].step_out()
        self._collect(self.adversary)
        self._program_ends()
        self.at(self.now + (deviation.end - deviation.start), self._started_again)

    def _end_cut_by_restart(self, deviation: Deviation) -> None:
        """The end of a `cutresume`: the program cut off ends (its player quits, or it stopped
        itself as cut off); what its dead links held is lost both ways. It starts again with
        `--resume` from its saved file `delay` seconds later, on new links."""
        if self.crashed or not self.cut:
            return
        self.stopped = self.cut = self.own_way = False
        self._program_ends()
        late = None
        if deviation.targets and deviation.count:
            late = (deviation.targets[0], float(deviation.count))
        self.at(self.now + deviation.delay, partial(self._started_again, late=late))

    def _resume(self) -> None:
        """The stopped adversary continues: it first writes what it had produced, then takes its
        backlog (frames per link in order, timers and moves anywhere among them) in an order
        drawn from the run's random stream."""
        if self.crashed or not self.stopped:
            return
        self.stopped = self.cut = False
        held, self._held_out = self._held_out, []
        for frame in held:
            self._adversary_sends(frame)
        calls, self._backlog_calls = self._backlog_calls, []
        inbox, self._backlog_in = self._backlog_in, {}
        sources: list[int | None] = [s for s in sorted(inbox) for _ in inbox[s]] + [None] * len(calls)
        self.rng.shuffle(sources)
        self.rng.shuffle(calls)
        for source in sources:
            if self.stopped or self.crashed:  # a triggered stop may begin again meanwhile
                break
            if source is None:
                what, arg = calls.pop()
                self._call(self.adversary, what, arg)
            else:
                self._call(self.adversary, "frame", inbox[source].popleft())
        if self.stopped:  # keep what was not taken for the next resume
            for what, arg in calls:
                self._backlog_calls.append((what, arg))
            for sender in sorted(inbox):
                self._backlog_in.setdefault(sender, deque()).extend(inbox[sender])

    def _fall_asleep(self, seat: int, length: float) -> None:
        """An honest program's lid closes: what reaches it waits (`_call`, `_deliver`)."""
        self.effects["outage"] += 1
        self._asleep[seat] = []
        self.at(self.now + length, partial(self._wake, seat))

    def _wake(self, seat: int) -> None:
        """The lid opens: the program takes what waited, in the order it came."""
        waiting = self._asleep.pop(seat, [])
        for what, arg in waiting:
            self._call(seat, what, arg)

    def _vote_after_return(self, deviation: Deviation) -> None:
        if not (self.crashed or self.stopped):
            self._false_vote(deviation)

    def _false_vote(self, deviation: Deviation) -> None:
        """A valid vote (and an uphold) about a program that is there, signed by the adversary's
        own session as if its wait had run out."""
        session = self.sessions[self.adversary]
        owners = self.config.owners
        programs = sorted({owners[s] for s in range(self.players) if owners[s] != owners[self.adversary]})
        if not programs or session.state is None or session.halted:
            return
        owner = programs[0] if deviation.targets == () else owners[deviation.targets[0]]
        attempt = session.insurance.ballots.attempt(owner).number
        seats = [s for s in range(self.players) if owners[s] == owner]
        held = [[s, session.next_seq_of(s), session.chains[s].last_digest] for s in seats]
        try:
            session._emit("vacate", {"owner": owner, "held": held, "attempt": attempt})
            session._emit("uphold", {"owner": owner, "attempt": attempt})
        except Exception:
            self.errors.append(f"at {self.now:.3f}s the false vote could not be signed")
            return
        self.effects[deviation.behaviour] += 1
        self._collect(self.adversary)

    def _kick(self, deviation: Deviation) -> None:
        """A proposal to remove a program that is there, by fewer than every other program: the
        adversary agrees (and, unless `consistent`, signs its confirmation at once, before every
        agreement is in); with `count` 1 one honest player of a third program agrees too."""
        owners = self.config.owners
        owner = owners[deviation.targets[0]]
        session = self.sessions[self.adversary]
        try:
            session.remove_player(owner)
        except RemovalRefused:
            return  # the game is not running, or the table plays that program already
        self.effects["kicker"] += 1
        if deviation.count == 2:
            self._collect(self.adversary)
            self._unanimous_then_gone(owner)
            return
        if not deviation.consistent:  # a confirmation before every agreement is in: it waits on
            attempt = session.insurance.removals.tally.proposal(owner).number
            session._emit("remove", {"owner": owner, "attempt": attempt, "say": "confirm", "held": []})
            self.effects["kicker_confirm"] += 1
        self._collect(self.adversary)
        joining = [
            s
            for s in range(self.players)
            if s != self.adversary and owners[s] not in (owner, owners[self.adversary])
        ]
        if deviation.count and len({owners[s] for s in joining}) >= 2:
            seat = joining[0]
            try:
                self.sessions[seat].remove_player(owner)
            except RemovalRefused:
                return
            self.effects["kicker_joined"] += 1
            self._collect(seat)

    def _unanimous_then_gone(self, owner: int) -> None:
        """The adversary's program dies right after its agreement went out; every honest program
        but `owner`'s agrees on its player's word: every agreement is in, one answer never comes."""
        self.effects["kicker_crash"] += 1
        self._program_ends()
        owners = self.config.owners
        for program in sorted({owners[s] for s in range(self.players)} - {owner, owners[self.adversary]}):
            try:
                self.sessions[program].remove_player(owner)
            except RemovalRefused:
                continue
            self._collect(program)

    def _signed(self, kind: str, data: dict[str, Any], acks: list[Ack] | None = None) -> bytes:
        """A frame the adversary's session would never sign, next in its chain (its session goes
        on from there)."""
        session = self.sessions[self.adversary]
        chain = session.chains[self.adversary]
        pending = session.acks.pending() if acks is None else acks
        envelope = seal(
            self.config,
            self.keys[self.adversary],
            self.adversary,
            chain.next_seq,
            chain.last_digest,
            kind,
            data,
            pending,
        )
        if acks is None:
            session.acks.sent(envelope, pending)
        chain.frames[envelope.seq] = envelope
        chain.next_seq += 1
        chain.last_digest = envelope.digest
        session.frames.append(envelope.frame)
        return envelope.frame

    def _quota_attack(self, deviation: Deviation) -> None:
        """One of issue 26's attacks on the quotas (see BEHAVIOURS); lies go on in waves."""
        session = self.sessions[self.adversary]
        if self.stopped and not self.crashed:  # it attacks once it runs again
            self.at(self.now + 5.0, partial(self._quota_attack, deviation))
            return
        if self.crashed or session.state is None or session.final:
            return
        behaviour = deviation.behaviour
        if behaviour == "far":
            self._adversary_sends(self._signed("shares", {"job": 10**6, "batch": [], "private": []}))
        elif behaviour == "stale":
            done = session.quotas.last_job[self.adversary]
            disputed = [
                e
                for s, chain in enumerate(session.chains)
                if s != self.adversary
                for e in chain.frames.values()
                if e.kind in ("shares", "escrow") and job_of(e) < done
            ]
            if not disputed:
                return
            zero = bytes(32)
            data = {"frame": disputed[0].frame, "key": zero, "proof": [zero, zero]}
            self._adversary_sends(self._signed("complaint", data))
        else:
            target = deviation.targets[0]
            budget = (deviation.count or 0) - len(self._lied)
            sent = 0
            for seq in range(session.chains[target].next_seq):
                if sent >= budget:
                    break
                if (target, seq) not in self._lied:
                    self._lied.add((target, seq))
                    self._adversary_sends(
                        self._signed("echo", {}, [(target, seq, self.rng.randbytes(32))]), (target,)
                    )
                    sent += 1
            if not sent:
                return
            self._adversary_sends(self._signed("want", {"seat": target, "from": 0}), (target,))
            self.at(self.now + 0.5, partial(self._quota_attack, deviation))
        self.effects[behaviour] += 1

    def _adversary_sends(self, frame: bytes, only: tuple[int, ...] | None = None) -> None:
        """Route one frame of the adversary to each peer (or to `only`), through the deviations
        live now."""
        if self.crashed:
            return
        envelope = open_frame(frame, self.config)
        for deviation in self.deviations:
            if deviation.trigger == envelope.kind and deviation.began is None and self.now >= deviation.start:
                self._begin(deviation)
        if self.stopped:
            self._held_out.append(frame)
            return
        live = [d for d in self.deviations if d.live(self.now) and d.behaviour not in UNROUTED]
        touched: set[int] = set()
        for receiver in range(self.players):
            if receiver == self.adversary or (only is not None and receiver not in only):
                continue
            out = envelope
            if receiver in self._fork_prev:
                out = self._reseal(out, prev=self._fork_prev[receiver])
                self._fork_prev[receiver] = out.digest
            extra = 0.0
            send = True
            junk: list[bytes] = []
            for index, deviation in enumerate(live):
                if receiver not in deviation.targets:
                    continue
                behaviour = deviation.behaviour
                if behaviour == "withhold":
                    send = False
                elif behaviour == "hold":
                    until = (deviation.began or 0.0) + (deviation.end - deviation.start)
                    extra = max(extra, until - self.now)
                elif behaviour == "delay":
                    extra += deviation.delay
                elif behaviour in ("equivocate", "lie"):
                    changed = self._equivocate(out, deviation)
                    if changed is None:
                        continue
                    out = changed
                    if deviation.consistent:
                        self._fork_prev[receiver] = out.digest
                    else:
                        self._fork_prev.pop(receiver, None)
                elif behaviour == "garbage":
                    if self.rng.random() < 0.3:
                        junk.append(self._garbage(envelope))
                    else:
                        continue
                touched.add(index)
                self.effects[behaviour] += 1
            for piece in junk:
                self._transmit(self.adversary, receiver, piece, extra)
            if send:
                self._transmit(self.adversary, receiver, out.frame, extra)
        for index in touched:
            live[index].used += 1

    def _reseal(
        self,
        envelope: Envelope,
        *,
        prev: bytes | None = None,
        data: dict[str, Any] | None = None,
        acks: list[Ack] | None = None,
    ) -> Envelope:
        return seal(
            self.config,
            self.keys[self.adversary],
            envelope.seat,
            envelope.seq,
            envelope.prev if prev is None else prev,
            envelope.kind,
            envelope.data if data is None else data,
            envelope.acks if acks is None else acks,
        )

    def _equivocate(self, envelope: Envelope, deviation: Deviation) -> Envelope | None:
        """Another validly signed frame with this one's sequence number, with plausible contents
        (None if this frame is not one the deviation changes)."""
        data = dict(envelope.data)
        kind = envelope.kind
        rng = self.rng
        if deviation.behaviour == "lie":
            if not envelope.acks:  # every frame carries acknowledgements; this one none
                return None
            acks = [list(a) for a in envelope.acks]
            chains = self.sessions[self.adversary].chains
            choices = [
                i
                for i, (seat, seq, _) in enumerate(acks)
                if (deviation.about is None or seat == deviation.about)
                and (deviation.acking is None or chains[seat].frames[seq].kind == deviation.acking)
            ]
            if not choices:
                return None
            acks[rng.choice(choices)][2] = rng.randbytes(32)
            return self._reseal(envelope, acks=[(s, q, d) for s, q, d in acks])
        elif kind not in GAME_KINDS:
            return None
        elif kind in ("keycommit", "coincommit"):
            data["commit"] = rng.randbytes(32)
        elif kind == "key":
            data["proof"] = [rng.randbytes(32), rng.randbytes(32)]
        elif kind == "coin":
            data["reveal"] = [rng.randbytes(32), rng.randbytes(32)]
        elif kind == "roundsig":
            data["hash"] = rng.randbytes(32)
        elif kind == "shuffle":
            deck = list(data["deck"])
            if len(deck) < 2:
                return None
            deck[0], deck[1] = deck[1], deck[0]
            data["deck"] = deck
        elif kind == "shares":
            if not isinstance(data.get("batch"), list) or len(data["batch"]) != 4:
                return None  # (the far attack's frame carries no batch: nothing to fork)
            shares, commit_a, commit_b, response = data["batch"]  # protocol 5: commitment form
            data["batch"] = [shares, commit_b, commit_a, response]
        elif kind == "move":
            if self._alternative is None:
                return None
            data["move"] = self._alternative
        return self._reseal(envelope, data=data)

    def _garbage(self, envelope: Envelope) -> bytes:
        """Junk: random bytes, a frame whose signature does not verify, or a validly signed frame
        whose contents are malformed (attributable to the adversary)."""
        rng = self.rng
        choice = rng.randrange(3)
        if choice == 0:
            return rng.randbytes(rng.randint(1, 300))
        if choice == 1:
            flipped = bytearray(envelope.frame)
            flipped[-1] ^= 0x01
            return bytes(flipped)
        body = msgpack.packb(
            [
                PROTOCOL_VERSION,
                self.config.session_id,
                self.adversary,
                envelope.seq,
                envelope.prev,
                KINDS.index("move"),
                [],
                [rng.randbytes(8)],
            ],
            use_bin_type=True,
        )
        return bytes(msgpack.packb([body, self.keys[self.adversary].sign(body)], use_bin_type=True))


class TwistedSigner:
    """Signs as the key's holder may under protocol version 6's rule but an honest signer never
    does: R moved by a point of order 8 or 2 (tools/vectors/signature_section.py), the nonce from
    the run's own stream. Stands for the session's `FrameSigner`."""

    def __init__(self, key: Ed25519PrivateKey, rng: random.Random) -> None:
        self.key = key
        self.rng = rng
        self.public = key.public_key().public_bytes_raw()
        self.made: set[bytes] = set()

    def sign(self, data: bytes) -> bytes:
        signature = twisted_sign(
            self.key, data, self.rng.randrange(1, L), self.rng.choice((ORDER_8, ORDER_2))
        )
        self.made.add(signature)
        return signature


def run_model(seed: int, **overrides: Any) -> Run:
    """Play the run of `seed` (see `Model` for what can be overridden) and return it."""
    return Model(seed, **overrides).run()


def check(seed: int, **overrides: Any) -> list[str]:
    """The findings of one run."""
    return run_model(seed, **overrides).findings()


__all__ = [
    "BEHAVIOURS",
    "MOVE_TIMEOUT",
    "STEP_TIMEOUT",
    "Deviation",
    "Model",
    "Run",
    "check",
    "run_model",
]
