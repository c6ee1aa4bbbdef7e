"""Flood benchmark: one seat floods one channel for a whole game; what does it cost the others?

    python benchmarks/flood.py              # every channel, whole 3-seat SKYJO games (one round)
    python benchmarks/flood.py --quick      # fewer flooded windows, smaller bursts
    python benchmarks/flood.py --only evidence --players 4 --repeats 3

Issue 12: a peer must not be able to make the others hold memory (or disk) without bound, and
crossing a quota must blame it, with evidence, at every honest peer. The session's quotas
(protocol/session.py): frames ahead of a gap, at most MAX_BUFFERED frames / MAX_BUFFERED_BYTES
per sender, dropped beyond (nobody blamed); echo claims kept only within CLAIM_WINDOW of what is
held, pruned once settled; side frames of one seat between two of its game frames (a *window*),
at most SIDE_WINDOW_FRAMES / SIDE_WINDOW_BYTES, and MAX_CHAT chat messages per game, crossing one
blames the seat; each frame relayed at most MAX_SERVED times in answer to `want`s.

The table is the harness's in-memory `Net` (tests/protocol/harness.py): every peer in this
process, greedy bots. The flooder is a `Flooder` session: it plays its seat honestly and, right
after each of its own game frames (so once per window), sends a burst on one channel, signed with
its own key (it can sign anything). Channels:

* **ahead**: validly signed frames numbered far past its next one (they sit ahead of a gap that
  never closes): big evidence-size ones (1 MiB) and many small ones.
* **echo**: stand-alone acknowledgements (echo frames) acknowledging, for every other seat, a
  sequence number far past anything that exists (an acknowledgement of a seat that does not
  exist is a malformed frame: blamed).
* **chat**: chat messages of 500 four-byte characters.
* **evidence**: the biggest valid frame it has (another seat's shuffle, 31 KB) wrapped as evidence,
  again and again.
* **want**: `want`s for every frame of every honest seat, again and again (amplification).
* **halt**: halt frames with junk evidence (8 frames of junk, 100 KB each).
* **relay** (issue 26): relays driven to their budget. Once the first move is due, the flooder
  sends seat 0 alone echoes that lie about seat 0's own frames (2,048 of them), one lie per
  frame, in waves: each dispute makes seat 0 (and seat 2, which gets the lie in seat 0's relay)
  relay the disputed frame and the lie, new frames the next wave lies about; and `want`s for every
  frame of the honest seats. Honest relays must stay within their budget (frames and bytes), so
  no honest seat is blamed; the disputes stop the game without proof (nobody blamed).
* **far** (issue 26): 48 `shares` frames of 1 MiB for jobs 10^6 + i (jobs that cannot exist
  yet): the first is blamed, by every honest peer, with that frame.
* **stale** (issue 26): on an insured table, complaints about another seat's escrow (the keys'
  job) sent after the flooder's later messages (200 of them): the first can no longer be judged
  and is blamed, none is kept.

Each channel runs in two modes: *under* (the burst stays below the per-window quotas: the game
must finish, nobody blamed) and *over* (one burst crosses a quota: every honest peer must blame
the flooder, and only it). Only the channels with a blaming quota (chat, evidence, echo, halt)
have an *over* mode; ahead-of-gap frames are dropped, never blamed, and wants only amplify.

**Memory** is the size of each honest `Session` object graph (a deep `sys.getsizeof` walk that
counts every object reachable from the session once, skipping classes, modules and functions),
taken before the first frame, at every 8th of the flooder's game frames and at its round
signature (the peak of those samples: the others compact a round once it is signed)
and at the end. That is exactly what the session holds; the process's resident memory would mix
in the flooder and the frames in transit (every peer lives in this process). The driver does what
client/table/peer.py does with the transcript: if the session can release frames to disk
(`Session.release_frames`), it releases them as they come (the *disk* column counts those bytes).
Figures are the median over `--repeats` runs (memory barely varies between runs; CPU is not a
figure here).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
import types
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.acks import Acknowledgements
from protocol.chains import MAX_BUFFERED, MAX_BUFFERED_BYTES
from protocol.config import TableConfig
from protocol.events import Blamed, SessionEvent, TimerRequest
from protocol.messages import MAX_FRAME, SIDE_KINDS, Ack, Envelope, seal
from protocol.quotas import MAX_CHAT, SIDE_WINDOW_BYTES, SIDE_WINDOW_FRAMES, Quotas
from protocol.relays import MAX_SERVED
from protocol.session import Session
from tests.protocol.harness import Net, frame_kind

CHANNELS = ("ahead", "echo", "chat", "evidence", "want", "halt", "relay", "far", "stale")
MiB = 1 << 20
FAR = 1 << 39
"""Sequence numbers from here on never exist in a game (a chain has a few hundred frames)."""
BIG_AHEAD = MAX_FRAME - 400
"""Junk bytes in a 1 MiB ahead-of-gap frame (the frame itself is just under MAX_FRAME)."""
CHAT_TEXT = "\U0001d11e" * 500
"""The longest chat text in bytes: 500 characters of 4 bytes (2,000 bytes, the unpack cap)."""


@dataclass
class Plan:
    """What the flooder sends in each window (after each of its game frames)."""

    channel: str
    over: bool = False
    """Cross the quota in one window (expect blame) instead of staying just under it."""
    windows: int | None = None
    """Flood only the first `windows` windows (None: the whole game)."""
    burst_bytes: int = 4 * MiB
    """Bytes per window in the *under* mode (at most 90 % of SIDE_WINDOW_BYTES)."""
    after_blame: int = 0
    """Bursts sent once the game has stopped (the flooder keeps going after being blamed)."""
    lies: int = 2048
    """relay: the lying echoes in all."""


class _FloodQuotas(Quotas):
    """The flooder sends what it likes: its own side frames are never held back (an honest
    session sends echoes and wants only within its share of the quotas)."""

    def may_send(self, size: int) -> bool:
        return True


class _FloodAcks(Acknowledgements):
    """The flooder's acknowledgements: the ones it forces (lies), else its honest ones."""

    def __init__(self, session: Flooder) -> None:
        super().__init__(session)
        self.flooder = session

    def pending(self) -> list[Ack]:
        forced = self.flooder._forced_acks
        return list(forced) if forced is not None else super().pending()


class Flooder(Session):
    """The flooding seat: an honest player that adds a burst on one channel to every window.

    The burst goes out right after each of its own game frames, through its own chain (`_emit`:
    validly signed, correctly chained side frames, so nothing but the quotas can stop them),
    except for ahead-of-gap frames, which are signed with numbers the chain never reaches.
    """

    def __init__(self, config: TableConfig, seat: int, identity: Ed25519PrivateKey, plan: Plan) -> None:
        super().__init__(config, seat, identity)
        self.plan = plan
        self.windows = 0
        self.flood_frames = 0
        self.flood_bytes = 0
        self.biggest = b""
        """The biggest frame of another seat it received (what it wraps as evidence)."""
        self._bursting = False
        self._ahead_seq = FAR
        self._forced_acks: list[Ack] | None = None
        self._chats = 0
        self.acks = _FloodAcks(self)
        self.quotas = _FloodQuotas(self.players, seat)
        self.only_to: dict[bytes, tuple[int, ...]] = {}
        """Frames sent to these seats only (the relay channel's lies)."""
        self.lied: set[tuple[int, int]] = set()
        self.on_window: list[Any] = []
        """Callbacks run before the burst of every 8th window and of its round signature (just
        before the others compact the round): the benchmark samples memory there (a deep walk
        of a session holding a flood of echoes takes a while, so not at every window)."""

    def receive_frame(self, frame: bytes) -> None:
        if len(frame) > len(self.biggest) and frame_kind(frame) not in SIDE_KINDS:
            self.biggest = frame
        super().receive_frame(frame)

    def _emit(self, kind: str, data: dict[str, Any]) -> Envelope | None:
        envelope = super()._emit(kind, data)
        if envelope is not None and kind not in SIDE_KINDS and not self._bursting:
            self.windows += 1
            if kind == "roundsig" or self.windows % 8 == 0:
                for callback in self.on_window:
                    callback()
            if self.plan.windows is None or self.windows <= self.plan.windows:
                self.burst()
        return envelope

    def burst(self) -> None:
        """One window's worth of flood on the plan's channel."""
        self._bursting = True
        try:
            getattr(self, f"_burst_{self.plan.channel}")()
        finally:
            self._bursting = False

    def _side(self, kind: str, data: dict[str, Any]) -> None:
        envelope = super()._emit(kind, data)
        assert envelope is not None
        self.flood_frames += 1
        self.flood_bytes += len(envelope.frame)

    def _budget(self) -> tuple[int, int]:
        """(frames, bytes) one burst may use: 90 % of the window quotas, or past them if `over`.

        The flooder's own honest side frames (echoes, a few relays) share the window: the 10 %
        left is for them."""
        if self.plan.over:
            return SIDE_WINDOW_FRAMES + 1, SIDE_WINDOW_BYTES + MiB
        return SIDE_WINDOW_FRAMES * 9 // 10, min(self.plan.burst_bytes, SIDE_WINDOW_BYTES * 9 // 10)

    def _burst_ahead(self) -> None:
        # 20 frames of 1 MiB (past the bytes cap) in the first two windows, then one, and
        # MAX_BUFFERED small ones (the frame cap) in every window.
        assert self._key is not None and self.me is not None
        big = 20 if self.windows <= 2 else 1
        for count, size in ((big, BIG_AHEAD), (MAX_BUFFERED, 64)):
            for _ in range(count):
                self._ahead_seq += 1
                envelope = seal(
                    self.config,
                    self._key,
                    self.me,
                    self._ahead_seq,
                    os.urandom(32),
                    "evidence",
                    {"frame": os.urandom(size)},
                )
                self._out.append(envelope.frame)
                self.flood_frames += 1
                self.flood_bytes += len(envelope.frame)

    def _burst_echo(self) -> None:
        frames, room = self._budget()
        others = [s for s in range(self.players) if s != self.me]
        n = 0
        sent = 0
        while n < frames and sent < room:
            # for every other seat, a frame far past anything it will ever sign
            self._forced_acks = [(seat, FAR + n, os.urandom(32)) for seat in others]
            before = self.flood_bytes
            acked = list(self.acks.acked)
            try:
                self._side("echo", {})
            finally:
                self._forced_acks, self.acks.acked = None, acked
            sent += self.flood_bytes - before
            n += 1

    def _burst_chat(self) -> None:
        # Under: exactly MAX_CHAT messages in the game, spread over the first windows.
        # Over: MAX_CHAT + 1, the last one in the second window.
        per_window = MAX_CHAT // 2 if self.plan.over else MAX_CHAT // 4
        limit = MAX_CHAT + 1 if self.plan.over else MAX_CHAT
        for _ in range(per_window + (1 if self.plan.over and self.windows == 2 else 0)):
            if self._chats >= limit:
                return
            self._chats += 1
            self._side("chat", {"text": CHAT_TEXT})

    def _burst_evidence(self) -> None:
        if not self.biggest:
            return
        frames, room = self._budget()
        n = sent = 0
        while n < frames and sent < room:
            before = self.flood_bytes
            self._side("evidence", {"frame": self.biggest})
            sent += self.flood_bytes - before
            n += 1

    def _burst_want(self) -> None:
        # Every frame of every honest seat, 64 at a time (one `want` is answered with up to 64).
        for seat in range(self.players):
            if seat == self.me:
                continue
            for start in range(0, self.chains[seat].next_seq, 64):
                self._side("want", {"seat": seat, "from": start})

    def _burst_relay(self) -> None:
        pass  # driven in waves once the first move is due (`wave`)

    def wave(self, target: int) -> int:
        """relay: lie to `target` alone about each of its frames we hold and have not lied about
        (within the plan's `lies`), and want every frame of every other seat; the frames sent."""
        sent = 0
        for seq in range(self.chains[target].next_seq):
            if len(self.lied) >= self.plan.lies:
                break
            if (target, seq) in self.lied:
                continue
            self.lied.add((target, seq))
            self._forced_acks = [(target, seq, os.urandom(32))]
            try:
                envelope = super()._emit("echo", {})
            finally:
                self._forced_acks = None
            assert envelope is not None
            self.only_to[envelope.frame] = (target,)
            self.flood_frames += 1
            self.flood_bytes += len(envelope.frame)
            sent += 1
        if sent:
            for seat in range(self.players):
                if seat != self.me:
                    self._side("want", {"seat": seat, "from": 0})
        return sent

    def _chained(self, kind: str, data: dict[str, Any]) -> None:
        """A game frame of ours, next in our chain, that our own jobs never see (not queued)."""
        assert self._key is not None and self.me is not None
        chain = self.chains[self.me]
        acks = self.acks.pending()
        envelope = seal(self.config, self._key, self.me, chain.next_seq, chain.last_digest, kind, data, acks)
        self.acks.sent(envelope, acks)
        chain.frames[envelope.seq] = envelope
        chain.next_seq += 1
        chain.last_digest = envelope.digest
        self.frames.append(envelope.frame)
        self._out.append(envelope.frame)
        self.flood_frames += 1
        self.flood_bytes += len(envelope.frame)

    def _burst_far(self) -> None:
        for i in range(48):
            self._chained("shares", {"job": 10**6 + i, "batch": [os.urandom(BIG_AHEAD)], "private": []})

    def _burst_stale(self) -> None:
        if self.windows != 8:
            return  # once, after our messages for later jobs than the keys' (the deal)
        other = next(s for s in range(self.players) if s != self.me)
        escrow = next((e for e in self.chains[other].frames.values() if e.kind == "escrow"), None)
        if escrow is None:
            return
        zero = bytes(32)
        for _ in range(200):
            self._side("complaint", {"frame": escrow.frame, "key": zero, "proof": [zero, zero]})

    def _burst_halt(self) -> None:
        victim = (self.me or 0) + 1 if (self.me or 0) + 1 < self.players else 0
        junk = [os.urandom(100_000) for _ in range(8)]
        for _ in range(4):
            self._side("halt", {"reason": "flood", "culprit": [victim], "absent": [], "evidence": junk})


def deep_size(root: object, skip: set[int]) -> int:
    """Bytes of every object reachable from `root` (each counted once), but classes, modules,
    functions and the objects in `skip` (shared by every peer: the table config)."""
    seen: set[int] = set(skip)
    total = 0
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(
            obj, type | types.ModuleType | types.FunctionType | types.BuiltinFunctionType | types.MethodType
        ):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, bytes | str | int | float | bool):
            continue
        stack.extend(gc.get_referents(obj))
    return total


@dataclass
class Result:
    """One flood run, as printed (sizes in bytes)."""

    channel: str
    mode: str
    players: int
    flooder: int
    windows: int = 0
    flood_frames: int = 0
    flood_bytes: int = 0
    start: list[int] = field(default_factory=list)
    peak: list[int] = field(default_factory=list)
    end: list[int] = field(default_factory=list)
    disk: list[int] = field(default_factory=list)
    blamed_by: dict[int, list[int]] = field(default_factory=dict)
    """honest seat -> the seats it blamed."""
    blamed_after: dict[int, int] = field(default_factory=dict)
    """honest seat -> flood bytes the flooder had sent when that seat first blamed it."""
    finished: bool = False
    halted: list[str | None] = field(default_factory=list)
    served_bytes: int = 0
    """Bytes of evidence frames the honest peers sent (answers to wants, in the want channel)."""
    ahead_held: list[int] = field(default_factory=list)
    claims_held: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def growth(self) -> int:
        """The largest growth of an honest peer's state over the run (peak - start)."""
        return max(p - s for p, s in zip(self.peak, self.start, strict=True))


class FloodNet(Net):
    """`Net` whose driver keeps no copy of the frames (only counts) and, as a real peer does,
    hands each session's transcript to disk (`release_frames`) so the session may forget it."""

    def __init__(self, players: int, options: dict[str, Any], plan: Plan, flooder: int) -> None:
        def factory(config: TableConfig, seat: int, key: Ed25519PrivateKey) -> Session:
            return Flooder(config, seat, key, plan) if seat == flooder else Session(config, seat, key)

        table = {"insured": True, "grace": 60} if plan.channel == "stale" else None
        super().__init__("skyjo", players, options, session_factory=factory, table=table)
        self.flooder = flooder
        self.disk = [0] * players
        self.sent_by_kind: list[dict[str, int]] = [{} for _ in range(players)]
        self.first_blame: dict[int, int] = {}

    def send(self, seat: int, frame: bytes) -> None:
        kind = frame_kind(frame)
        self.sent_by_kind[seat][kind] = self.sent_by_kind[seat].get(kind, 0) + len(frame)
        flooder = self.sessions[self.flooder]
        assert isinstance(flooder, Flooder)
        only = flooder.only_to.pop(frame, None) if seat == self.flooder else None
        for other in range(len(self.sessions)):
            if other != seat and (only is None or other in only):
                self.put(seat, other, frame)

    def on_event(self, seat: int, event: SessionEvent) -> None:
        flooder = self.sessions[self.flooder]
        assert isinstance(flooder, Flooder)
        if isinstance(event, TimerRequest):
            self.timers[seat].append(event)
        elif isinstance(event, Blamed) and seat not in self.first_blame:
            self.first_blame[seat] = flooder.flood_bytes
        if not _noise(event):
            self.events[seat].append(event)

    def collected(self, seat: int) -> None:
        session = self.sessions[seat]
        release = getattr(session, "release_frames", None)
        if release is not None and seat != self.flooder:
            self.disk[seat] += sum(map(len, session.frames))
            release(session.frame_count)


def _noise(event: object) -> bool:
    """Events the bots do not need kept (a flood of chat makes thousands)."""
    return type(event).__name__ in ("ChatReceived", "FrameRejected", "Updated")


def honest_state(session: Session) -> tuple[int, int]:
    """(frames held ahead of gaps, echo claims kept) in an honest session."""
    ahead = sum(len(chain.ahead) for chain in session.chains)
    return ahead, sum(len(v) for v in session.acks.claims.values())


def run(plan: Plan, players: int = 3, options: dict[str, Any] | None = None, flooder: int = 1) -> Result:
    """Play one game with `flooder` flooding per `plan`; measure the honest peers."""
    net = FloodNet(players, options or {"target_score": 1}, plan, flooder)
    honest = [s for s in range(players) if s != flooder]
    skip = {id(net.config), *map(id, net.config.identities)}
    result = Result(plan.channel, "over" if plan.over else "under", players, flooder)
    result.start = [deep_size(net.sessions[s], skip) for s in honest]
    result.peak = list(result.start)
    flood = net.sessions[flooder]
    assert isinstance(flood, Flooder)

    def sample() -> None:
        for i, seat in enumerate(honest):
            result.peak[i] = max(result.peak[i], deep_size(net.sessions[seat], skip))

    flood.on_window.append(sample)
    began = time.process_time()
    if plan.channel != "relay":
        net.run_game()
    else:  # up to the first move (nobody moves while a dispute is open)
        net.start()
        net.pump(play=False)
        target = honest[0]
        for _ in range(64):
            sent = flood.wave(target)
            net.pump(play=False)
            if not sent:
                break
        sample()
        net.fire_timers(honest)  # the disputes' timers: a stop without proof
    for _ in range(plan.after_blame):
        flood.burst()
        net.pump(play=False)
    sample()
    result.seconds = time.process_time() - began
    result.windows = flood.windows
    result.flood_frames = flood.flood_frames
    result.flood_bytes = flood.flood_bytes
    result.end = [deep_size(net.sessions[s], skip) for s in honest]
    result.disk = [net.disk[s] for s in honest]
    for seat in honest:
        session = net.sessions[seat]
        result.blamed_by[seat] = sorted({b.seat for b in net.blamed(seat)})
        if seat in net.first_blame:
            result.blamed_after[seat] = net.first_blame[seat]
        result.halted.append(session.halted)
        ahead, claims = honest_state(session)
        result.ahead_held.append(ahead)
        result.claims_held.append(claims)
        result.served_bytes += net.sent_by_kind[seat].get("evidence", 0)
    result.finished = all(
        net.sessions[s].settled and net.sessions[s].halted is None and net.sessions[s].state is not None
        for s in honest
    )
    return result


def plans(quick: bool) -> list[Plan]:
    """The runs of the table: each channel under its quotas for the whole game, and over them.

    The *under* evidence and echo floods send a fixed burst per window (4 MiB, 1 MiB in --quick);
    `evidence max` sends 90 % of SIDE_WINDOW_BYTES in each of the first windows (the most that
    is never blamed), to show what the window quota alone lets one seat make another hold.
    """
    burst = MiB if quick else 4 * MiB
    echo_burst = 256 << 10 if quick else MiB
    max_windows = 3 if quick else 12
    return [
        Plan("ahead", burst_bytes=burst * 4),
        Plan("echo", burst_bytes=echo_burst),
        Plan("echo", over=True, windows=1),
        Plan("chat"),
        Plan("chat", over=True),
        Plan("evidence", burst_bytes=burst),
        Plan("evidence", burst_bytes=SIDE_WINDOW_BYTES, windows=max_windows),
        Plan("evidence", over=True, after_blame=2 if quick else 8),
        Plan("want"),
        Plan("halt", windows=1, after_blame=5 if quick else 20),
        Plan("relay", windows=0),
        Plan("far", windows=1),
        Plan("stale"),
    ]


def describe(plan: Plan) -> str:
    if plan.channel == "relay":
        return f"relay ({plan.lies} lies, wants)"
    if plan.channel in ("far", "stale"):
        return {"far": "far (48 x 1 MiB)", "stale": "stale complaints"}[plan.channel]
    if plan.channel == "evidence" and plan.burst_bytes >= SIDE_WINDOW_BYTES:
        return f"evidence max x{plan.windows}"
    name = f"{plan.channel} {'over' if plan.over else 'under'}"
    if plan.after_blame:
        name += f" +{plan.after_blame} after"
    return name


def mib(n: float) -> str:
    return f"{n / MiB:.1f}"


def table(rows: list[tuple[Plan, Result]], baseline: Result) -> str:
    lines = [
        "| channel | windows | flood sent (MiB) | honest state start / peak / end (MiB) "
        "| growth vs honest game (MiB) | disk (MiB) | blamed by -> whom (at flood MiB) | game "
        "| ahead / claims kept |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    base = baseline.growth
    for plan, r in [(Plan("none"), baseline), *rows]:
        blame = (
            ", ".join(
                f"{seat}->{r.blamed_by[seat]} ({mib(r.blamed_after.get(seat, 0))})"
                for seat in r.blamed_by
                if r.blamed_by[seat]
            )
            or "nobody"
        )
        game = "finished" if r.finished else ("halted" if any(r.halted) else "stuck")
        if plan.channel == "want":
            game += f"; served {mib(r.served_bytes)} MiB = {r.served_bytes / max(1, r.flood_bytes):.0f}x"
        lines.append(
            f"| {describe(plan) if plan.channel != 'none' else 'none (honest game)'} | {r.windows} "
            f"| {mib(r.flood_bytes)} | {mib(max(r.start))} / {mib(max(r.peak))} / {mib(max(r.end))} "
            f"| {mib(r.growth - base)} | {mib(max(r.disk))} | {blame} | {game} "
            f"| {max(r.ahead_held)} / {max(r.claims_held)} |"
        )
    return "\n".join(lines)


def median_result(results: list[Result]) -> Result:
    """The run whose peak growth is the median (memory barely varies; this picks a real run)."""
    ordered = sorted(results, key=lambda r: r.growth)
    return ordered[len(ordered) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer, smaller bursts")
    parser.add_argument("--only", choices=CHANNELS, help="one channel")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    options = {"target_score": 1}
    baseline = median_result(
        [run(Plan("none", windows=0), args.players, options) for _ in range(args.repeats)]
    )
    rows: list[tuple[Plan, Result]] = []
    for plan in plans(args.quick):
        if args.only and plan.channel != args.only:
            continue
        result = median_result([run(plan, args.players, options) for _ in range(args.repeats)])
        rows.append((plan, result))
        print(f"{describe(plan)}: {result.seconds:.1f} s CPU", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps([asdict(r) for _, r in rows], indent=1))
        return
    print(
        f"{args.players} seats, SKYJO one round, flooder seat 1; quotas: ahead {MAX_BUFFERED} frames / "
        f"{MAX_BUFFERED_BYTES >> 20} MiB, window {SIDE_WINDOW_FRAMES} frames / {SIDE_WINDOW_BYTES >> 20} "
        f"MiB, {MAX_CHAT} chats, {MAX_SERVED} relays per frame"
    )
    print(table(rows, baseline))


if __name__ == "__main__":
    main()
