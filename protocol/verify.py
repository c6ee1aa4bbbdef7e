"""Offline verification of a saved game: `skyjo-lan verify FILE`.

First a survey of the file: every frame is opened against the file's genesis and placed in its
signer's chain. A genesis that does not match the signed frames (no seat's frame #0 starts from
its hash, or a frame signed for another session) means the file is *not this game's transcript*:
nobody is blamed. Two different frames with one (seat, sequence number) are equivocation by that
seat; a frame that is missing while later frames of its seat are present is a hole (a deleted
frame proves nothing against its seat).

Then an observer session (no seat, no secrets) is fed every frame in an order that depends only
on the set of frames (by sequence number, then seat), never on the file's order: the session
re-derives the game's order from the chains. It takes the frames as the survey opened them (each
signature is checked once) and checks each hash chain, every key proof, shuffle proof and
decryption share (the share proofs and the shuffle chains' sums of the whole file in a few large
sums, see `verify_stream`), every move against the rules, every joint coin, and that every seat signed
the same transcript hash at each round's end; the engine recomputes the
scores from the publicly revealed cards. Whatever it could not consume (frames behind a gap,
game messages after the end of the game, frames after the check stopped) is reported.

The verdict is one of three kinds (protocol/PROTOCOL.md, section 11):

* ``finished``: valid, the game is over and every round is signed; `totals` and `winners`;
* ``unfinished``: valid as far as it goes; `stops_at` says which step waits for which seat, or
  that a seat left the table (`left`: it signed a leave; not a fault);
* ``invalid``: the first fault; `blame` names a seat only when that seat signed the evidence.
"""

from __future__ import annotations

import bisect
import gc
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .config import TableConfig
from .crypto.signatures import SignatureBatch
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame
from .events import (
    AwayChanged,
    Blamed,
    FrameRejected,
    Halted,
    Left,
    RemovalChanged,
    RoundSigned,
    SeatReturned,
    SeatTakenOver,
    SessionEvent,
    SteppedOut,
    Updated,
)
from .intake import NOT_THE_SAME_GAME
from .jobs.deferred import deferred_checks
from .messages import Envelope, open_frame, verifiers_for
from .session import Session
from .transcript import MAX_TRANSCRIPT, Read, Records, reader

VerdictKind = Literal["finished", "unfinished", "invalid"]

_WHAT = {
    "keycommit": "key commitment",
    "key": "key and its proof",
    "shuffle": "shuffle",
    "shares": "decryption shares",
    "commit": "coin commitment",
    "reveal": "coin reveal",
    "move": "move",
    "roundsig": "round signature",
}


@dataclass
class Verdict:
    """What `verify_bytes` concluded about a transcript.

    `kind` is "finished", "unfinished" or "invalid"; `valid` is True for the first two and
    `finished` for the first only. `fault` is the first fault of an invalid file and `blame` the
    seat that signed its evidence (None when no seat provably did). `not_this_game` marks a file
    whose genesis does not match its signed frames. `stops_at` says where an unfinished game
    stops; `unconsumed` lists the frames the check could not use (none in a finished game).
    """

    valid: bool
    game: str = ""
    players: int = 0
    names: tuple[str, ...] = ()
    frames: int = 0
    rounds_signed: int = 0
    finished: bool = False
    round: int = 0
    totals: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    fault: str | None = None
    blame: int | None = None
    truncated: bool = False
    rejected: list[str] = field(default_factory=list)
    kind: VerdictKind = "finished"
    stops_at: str | None = None
    unconsumed: list[str] = field(default_factory=list)
    not_this_game: bool = False
    left: int | None = None
    """The seat that left the table, if its signed leave stopped the game (one sent before the
    keys were agreed: the table could not play the seat)."""
    taken_over: dict[int, str] = field(default_factory=dict)
    """Seats the table played with the common bot at the end, and why ("left", "vanished")."""
    seat_events: list[str] = field(default_factory=list)
    """Leaves, takeovers, returns and autopilot, in the order the check met them."""
    duplicates: int = 0
    """Records that repeat a frame the file already holds (same bytes or same signed body): not
    frames of the game, so not in `frames`; they change nothing else (PROTOCOL.md 11)."""
    unconfirmed: list[str] = field(default_factory=list)
    """Chats no acknowledgement in the file covers (a seat's closing words): authentic, but the
    table never confirmed them, so another player may have been shown a different version
    (PROTOCOL.md 11, final side frames). Not a fault: the result does not rest on them."""

    def as_dict(self) -> dict[str, Any]:
        """The verdict as JSON-ready data (`skyjo-lan verify --json`)."""
        return {
            "valid": self.valid,
            "kind": self.kind,
            "game": self.game,
            "players": self.players,
            "names": list(self.names),
            "frames": self.frames,
            "duplicates": self.duplicates,
            "rounds_signed": self.rounds_signed,
            "finished": self.finished,
            "round": self.round,
            "totals": self.totals,
            "winners": self.winners,
            "fault": self.fault,
            "truncated": self.truncated,
            "blame": self.blame,
            "not_this_game": self.not_this_game,
            "stops_at": self.stops_at,
            "left": self.left,
            "taken_over": {str(seat + 1): how for seat, how in sorted(self.taken_over.items())},
            "seat_events": self.seat_events,
            "unconsumed": self.unconsumed,
            "unconfirmed_chats": self.unconfirmed,
            "rejected_frames": self.rejected,
        }

    def _invalid(self, fault: str, blame: int | None = None) -> None:
        self.valid = False
        self.finished = False
        self.kind = "invalid"
        self.fault = fault
        self.blame = blame


# --- the survey -------------------------------------------------------------------------------


_SAMPLE = 20
"""Reasons kept of the records that are no frame of the table (the count is kept in full)."""


@dataclass
class _Survey:
    """The file's frames, opened and placed in their signers' chains (before any game check).

    Built record by record as the file is read (`add`): what it keeps grows with the distinct
    frames the table's seats signed, never with copies or with unsigned junk."""

    config: TableConfig | None = None
    """The file's table (None only for a survey filled by hand)."""
    keys: dict[int, Ed25519PublicKey] = field(default_factory=dict)
    versions: dict[tuple[int, int], dict[bytes, Envelope]] = field(default_factory=dict)
    """(seat, seq) -> body digest -> the frame: two entries are equivocation."""
    garbage: tuple[int, str, bytes] | None = None
    """The first (by seat, then bytes) signed frame whose contents are malformed: (signer,
    reason, frame)."""
    rejected: list[str] = field(default_factory=list)
    """The first `_SAMPLE` reasons (sorted) of the records that are no frame of this table."""
    rejected_count: int = 0
    other_session: int | None = None
    """A seat of this table that signed a frame of another session found in the file."""
    records: int = 0
    duplicates: int = 0
    """Records that repeat a frame already in the file (the same bytes, or the same signed body):
    not frames of the game, counted apart (PROTOCOL.md 11)."""
    order: list[Envelope | bytes] | None = None
    """When kept (`replay`): each distinct frame in the file's order, opened, and the first
    malformed signed frame where it was (bytes)."""
    strict_keys: dict[int, Ed25519PublicKey] | None = None
    """Keys that check at once, for the rare frames of another session (`_signer_elsewhere`),
    when `keys` only collect the signatures into a batch (`verify_stream`). None: `keys`."""
    kept: list[bytes] | None = None
    """When kept: each record whose signature `keys` took (opened, or signed garbage), in the
    file's order, to survey again with checking keys if the batch does not hold."""
    copies: dict[bytes, int] = field(default_factory=dict)
    """With `kept`: how many records repeated each kept record's very bytes (counted in
    `duplicates`; a survey again decides what each copy is)."""
    _seen: set[bytes] = field(default_factory=set)

    def seqs(self, seat: int) -> list[int]:
        return sorted(seq for s, seq in self.versions if s == seat)

    def all_seqs(self, players: int) -> list[list[int]]:
        """`seqs(seat)` of every seat, in one pass over the frames."""
        out: list[list[int]] = [[] for _ in range(players)]
        for seat, seq in self.versions:
            if 0 <= seat < players:
                out[seat].append(seq)
        for seqs in out:
            seqs.sort()
        return out

    def add(self, frame: bytes) -> None:
        """Place one record of the file."""
        assert self.config is not None, "a survey of a file knows its table"
        self.records += 1
        # the frame's own bytes are the mark (their hash is cached by Python; the frames are kept
        # anyway by their envelopes): a SHA-256 of every frame bought nothing more
        mark = frame if type(frame) is bytes else bytes(frame)
        if mark in self._seen:  # a copy: nothing to open again
            self.duplicates += 1
            if self.kept is not None:
                self.copies[mark] = self.copies.get(mark, 0) + 1
            return
        try:
            envelope = open_frame(frame, self.config, self.keys)
        except MalformedSignedFrame as exc:
            self._seen.add(mark)
            if self.kept is not None:
                self.kept.append(mark)
            found = (exc.seat, exc.reason, exc.frame)
            if self.garbage is None:
                if self.order is not None:
                    self.order.append(frame)
                self.garbage = found
            elif (found[0], found[2]) < (self.garbage[0], self.garbage[2]):
                self.garbage = found
            return
        except (MalformedMessage, BadSignature) as exc:
            checking = self.keys if self.strict_keys is None else self.strict_keys
            signer = _signer_elsewhere(frame, self.config, checking)
            if signer is not None and self.other_session is None:
                self.other_session = signer
            self.rejected_count += 1
            # the verdict must not depend on the file's order: the least reasons are kept
            if len(self.rejected) < _SAMPLE or exc.reason < self.rejected[-1]:
                bisect.insort(self.rejected, exc.reason)
                del self.rejected[_SAMPLE:]
            return
        self._seen.add(mark)
        if self.kept is not None:
            self.kept.append(mark)
        key = (envelope.seat, envelope.seq)
        versions = self.versions.get(key)
        if versions is None:
            self.versions[key] = {envelope.digest: envelope}
        elif envelope.digest in versions:  # the same signed body in other bytes
            self.duplicates += 1
            return
        else:
            versions[envelope.digest] = envelope
        if self.order is not None:
            self.order.append(envelope)


def _survey_again(first: _Survey, keys: dict[int, Ed25519PublicKey]) -> _Survey:
    """`first` (whose keys collected the signatures) redone with `keys`, which check them: the
    survey a check of each signature on arrival makes. The records `first` did not keep were
    refused before their signature counted (or checked by `strict_keys`): they are taken as
    they are. Each kept record is surveyed again with its copies (a copy of a frame whose
    signature fails is refused again, as on arrival; the verdict does not depend on the order)."""
    assert first.kept is not None
    again = _Survey(first.config, keys, order=[] if first.order is not None else None)
    again.rejected, again.rejected_count = list(first.rejected), first.rejected_count
    again.other_session = first.other_session
    copies = first.copies
    again.records = first.records - len(first.kept) - sum(copies.values())
    for frame in first.kept:
        for _ in range(1 + copies.get(frame, 0)):
            again.add(frame)
    return again


def _signer_elsewhere(frame: bytes, config: TableConfig, keys: dict[int, Ed25519PublicKey]) -> int | None:
    """The seat whose key signed `frame` if it is a frame of another session id, else None."""
    try:
        body, signature = msgpack.unpackb(frame, raw=False)
        head = msgpack.unpackb(body, raw=False)
        seat, sid = head[2], head[1]
    except Exception:  # anything undecodable is not a signed frame of anyone
        return None
    if sid == config.session_id or type(seat) is not int or seat not in keys:
        return None
    if not isinstance(body, bytes) or not isinstance(signature, bytes):
        return None
    try:
        keys[seat].verify(signature, body)
    except InvalidSignature:
        return None
    return seat


def _not_this_game(config: TableConfig, survey: _Survey, count: int) -> str | None:
    """Why the file's genesis does not match its signed frames (None if it does)."""
    if survey.other_session is not None:
        return (
            f"it holds a frame seat {survey.other_session + 1} signed in another session: its genesis "
            "does not match the signed frames"
        )
    firsts = [e for (_, seq), versions in survey.versions.items() if seq == 0 for e in versions.values()]
    genesis = config.genesis_hash
    if firsts and all(e.prev != genesis for e in firsts):
        # A seat's frame #0 names the genesis hash it started from. When some seat's does match,
        # the genesis is this game's and a seat whose frame #0 does not is blamed (broken chain).
        return "its genesis does not match the signed frames (no chain starts from its hash)"
    if count and not survey.versions and survey.garbage is None:
        return "no frame in it is signed by a seat of its table"
    return None


def _equivocation(survey: _Survey) -> tuple[int, str, tuple[bytes, ...]] | None:
    """The first (seat, seq) with two different signed frames, as (seat, reason, both frames)."""
    forked = [(seq, seat) for (seat, seq), versions in survey.versions.items() if len(versions) > 1]
    if not forked:
        return None
    seq, seat = min(forked)
    versions = survey.versions[(seat, seq)]
    first, second = (versions[d].frame for d in sorted(versions)[:2])
    return seat, f"equivocation: seat {seat + 1} signed two different frames #{seq}", (first, second)


def _holes(survey: _Survey, players: int, every: list[list[int]] | None = None) -> list[str]:
    """For each seat with a missing frame before later ones: which, and what it hides (`every`:
    `survey.all_seqs(players)`, if the caller has it)."""
    every = survey.all_seqs(players) if every is None else every
    out: list[str] = []
    for seat in range(players):
        seqs = every[seat]
        if not seqs:
            continue
        present = set(seqs)
        missing = next((k for k in range(seqs[-1] + 1) if k not in present), None)
        if missing is not None:
            hidden = sum(1 for q in seqs if q > missing)
            out.append(
                f"frame #{missing} of seat {seat + 1} is missing from the file: its {hidden} later "
                "frame(s) could not be checked"
            )
    return out


def _feeding_order(survey: _Survey) -> list[Envelope]:
    """One version of each frame, each after what its sender had seen: the same for any file order.

    Each seat's frames go in their chain's order, and a frame goes only after the frames it
    acknowledges (PROTOCOL.md 9: every frame names the latest game frame its sender held of the
    others, the chain covering the earlier ones) when the file holds them. Among the frames
    ready, the lowest (sequence number, seat) goes first. So the observer meets the frames in an
    order their senders could have met them in: a player's `leave` signed after the game's last
    move comes after that move, as it did for everyone at the table, and the result stands
    (sorting by sequence number alone put it before the other seat's later-numbered last frames).
    Acknowledgements that no order can satisfy (a forged cycle) fall back to that sort.

    The frames are handed over opened (`Session.receive_opened`): the survey already checked
    each one's signature and schema against this table, so the observer does not again."""
    chosen = {key: versions[min(versions)] for key, versions in survey.versions.items()}
    pending: dict[int, deque[int]] = {}
    for seat, seq in sorted(chosen):
        pending.setdefault(seat, deque()).append(seq)
    last_fed = dict.fromkeys(pending, -1)
    ready: set[int] = set()
    """Seats whose next frame is ready: it stays so until fed (`last_fed` only grows)."""
    waits: dict[int, tuple[int, int]] = {}
    """Seat -> a frame its next frame acknowledges that is not fed yet: no need to look again
    before that one is."""

    order: list[Envelope] = []
    heads = {seat: chosen[(seat, seqs[0])] for seat, seqs in pending.items()}
    while heads:
        head: Envelope | None = None
        lowest_seq = lowest_seat = 0  # of `head`
        for seat, envelope in heads.items():
            if seat not in ready:
                wait = waits.get(seat)
                if wait is not None and last_fed[wait[0]] < wait[1]:
                    continue
                # the first frame it acknowledges that is in the file, not fed yet (most
                # acknowledge a frame fed already: that test first, no key built for it)
                wait = None
                for s, q, _ in envelope.acks:
                    if last_fed.get(s, -1) < q and (s, q) in chosen:
                        wait = s, q
                        break
                if wait is not None:
                    waits[seat] = wait
                    continue
                ready.add(seat)
            seq = envelope.seq
            if head is None or seq < lowest_seq or (seq == lowest_seq and seat < lowest_seat):
                head, lowest_seq, lowest_seat = envelope, seq, seat
        if head is None:  # no order satisfies the acknowledgements: the lowest frame goes first
            head = min(heads.values(), key=lambda e: (e.seq, e.seat))
        order.append(head)
        seat = head.seat
        last_fed[seat] = head.seq
        ready.discard(seat)
        waits.pop(seat, None)
        seqs = pending[seat]
        seqs.popleft()
        if seqs:
            heads[seat] = chosen[(seat, seqs[0])]
        else:
            del heads[seat]
    return order


def unconfirmed_chats(frames: Iterable[Envelope | bytes]) -> list[Envelope]:
    """The chats among `frames` that no acknowledgement covers, in (seat, seq) order.

    Another seat acknowledges a seat's game frames only (PROTOCOL.md 9); an acknowledgement of
    frame (s, q) covers every earlier frame of s through the hash chain. A chat of s with a number
    above every acknowledgement of s by another seat (a closing chat after the last round
    signature, or after a stop) was therefore confirmed by nobody: the frame is authentic, but
    nothing shows the others were shown that version (PROTOCOL.md 11, final side frames)."""
    acked: dict[int, int] = {}
    chats: list[Envelope] = []
    for frame in frames:
        if isinstance(frame, bytes):
            continue
        signer = frame.seat
        for seat, seq, _ in frame.acks:
            if seat != signer and seq > acked.get(seat, -1):
                acked[seat] = seq
        if frame.kind == "chat":
            chats.append(frame)
    late = [e for e in chats if e.seq > acked.get(e.seat, -1)]
    return sorted(late, key=lambda e: (e.seat, e.seq))


# --- the observer's report --------------------------------------------------------------------


def _signer(frame: bytes, config: TableConfig, keys: dict[int, Ed25519PublicKey]) -> int | None:
    try:
        return open_frame(frame, config, keys).seat
    except MalformedSignedFrame as exc:
        return exc.seat
    except (MalformedMessage, BadSignature):
        return None


@dataclass
class _Report:
    """The first fault the observer reported, and whom its evidence names."""

    config: TableConfig
    keys: dict[int, Ed25519PublicKey]
    fault: str | None = None
    accused: int | None = None
    blame: int | None = None
    stopped: str | None = None
    """Why the game was stopped, when the stop proves nothing against anyone."""
    left: int | None = None
    """The seat whose signed leave stopped the game."""
    taken_over: dict[int, str] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)
    rounds_signed: int = 0
    rejected: list[str] = field(default_factory=list)

    def take(self, events: list[SessionEvent]) -> None:
        for event in events:
            if type(event) is Updated:  # (most events: the engine's news, nothing to note here)
                continue
            if isinstance(event, RoundSigned):
                self.rounds_signed += 1
            elif isinstance(event, FrameRejected):
                self.rejected.append(event.reason)
            elif isinstance(event, Left):
                said = "" if event.reason == "left the table" else f": {event.reason!r}"
                self.events.append(f"seat {event.seat + 1} left the table{said}")
            elif isinstance(event, SeatTakenOver):
                self.taken_over[event.seat] = event.how
                shown = f", {event.disclosed} of its cards made public" if event.disclosed else ""
                self.events.append(
                    f"the table plays seat {event.seat + 1} with the common bot ({event.how}{shown})"
                )
            elif isinstance(event, SeatReturned):
                self.taken_over.pop(event.seat, None)
                self.events.append(f"seat {event.seat + 1} came back and plays its seat again")
            elif isinstance(event, AwayChanged):
                self.events.append(
                    f"seat {event.seat + 1} is {'away (its own bot plays)' if event.away else 'back'}"
                )
            elif isinstance(event, SteppedOut):
                self.events.append(f"seat {event.seat + 1} stepped out (its player ended the program)")
            elif isinstance(event, RemovalChanged) and event.outcome == "removed":
                voters = ", ".join(str(s + 1) for s in event.needed)
                self.events.append(
                    f"seats {voters} removed program {event.owner + 1} from the game (all agreed)"
                )
            elif isinstance(event, Blamed) and self.fault is None:
                self.accused = event.seat
                # The seat signed the evidence: one frame of it is the seat's, and every frame is
                # signed by a seat of this table (a complaint proves a fault with the accused's
                # frame and the accuser's; section 10).
                signers = [_signer(f, self.config, self.keys) for f in event.evidence]
                signed = event.seat in signers and None not in signers
                if signed:
                    self.fault, self.blame = event.reason, event.seat
                else:
                    self.fault = (
                        f"{event.reason} (the check names seat {event.seat + 1}, but no frame signed "
                        "by it in the file proves it)"
                    )
            elif isinstance(event, Halted):
                if event.left is not None and self.left is None and self.stopped is None:
                    self.left = event.left
                if event.culprit is None and event.reason.startswith(NOT_THE_SAME_GAME):
                    # a chain that starts from another genesis: the file mixes two tables; it is
                    # invalid, and nothing signed names anyone (PROTOCOL.md 6)
                    self.fault = self.fault or event.reason
                    continue
                if event.culprit is None:
                    # a stop that proves nothing against anyone (a seat left, a timeout, a halt
                    # another seat sent): the game is unfinished, not invalid
                    self.stopped = self.stopped or event.reason
                    continue
                if self.fault is None:
                    self.fault = event.reason
                culprit = event.culprit
                if culprit is not None and self.blame is None and self.accused in (None, culprit):
                    self.accused = self.blame = culprit


def _queued(observer: Session) -> list[Envelope]:
    """Game messages accepted into their chains that no job consumed (in chain order per seat)."""
    return observer.queued()


def unconsumed(observer: Session) -> list[str]:
    """Why frames that were received could not be used, one line each (empty: none).

    Frames waiting behind a gap in their sender's chain, and game messages accepted into a chain
    that no job consumed (sent after the end of the game, or out of the game's order while the
    session waits). A complete, valid transcript leaves nothing here once the session is
    `settled`; `verify` reports anything left as a fault.
    """
    out: list[str] = []
    for seat, chain in enumerate(observer.chains):
        if chain.ahead:
            first = min(chain.ahead)
            out.append(
                f"{len(chain.ahead)} frame(s) of seat {seat + 1} from #{first} wait behind a gap "
                f"(frame #{chain.next_seq} is missing)"
            )
        queue = observer.counted_queue(seat)
        if queue:
            head = queue[0]
            out.append(
                f"{len(queue)} game message(s) of seat {seat + 1} from #{head.seq} ({head.kind}) "
                "were never consumed"
            )
    return out


def _blocked(observer: Session) -> tuple[int, str, tuple[int, ...]] | None:
    """(job number, what it waits for, the seats it waits on) if the observer waits for a step."""
    waiting = observer.waiting_for()
    if waiting is None:
        return None
    name, seats = waiting
    parts = name.split(":")
    if len(parts) != 4 or parts[0] != "job" or not parts[1].isdigit():
        return None
    return int(parts[1]), parts[2], seats


def _seat(verdict: Verdict, seat: int) -> str:
    return f"seat {seat + 1} ({verdict.names[seat]})" if seat < len(verdict.names) else f"seat {seat + 1}"


def _seat_from_one(verdict: Verdict, seat: int) -> str:
    """A seat as people count them, from 1: Anna (seat 2)."""
    name = verdict.names[seat] if seat < len(verdict.names) else "?"
    return f"{name} (seat {seat + 1})"


def _after_the_end(observer: Session) -> list[str]:
    """Game messages of a game that is over that no job will ever consume (empty if none)."""
    state = observer.state
    if state is None or state.phase != "game_over":
        return []
    step = None if observer.settled else _blocked(observer)
    job = step[0] if step is not None and step[1] == "roundsig" else None
    late = [e for e in _queued(observer) if not (e.kind == "roundsig" and e.data.get("job") == job)]
    return [
        f"seat {e.seat + 1} sent game message #{e.seq} ({e.kind}) after the end of the game" for e in late
    ]


def _stops_at(verdict: Verdict, observer: Session) -> str:
    """Where and why a valid, unfinished game stops."""
    state = observer.state
    where = "before the game starts" if state is None else f"in round {state.round}"
    if state is not None and state.phase == "game_over":
        where = "after the last round"
    step = _blocked(observer)
    if step is None:
        return f"{where}: the file ends before the game does"
    job, what, seats = step
    who = ", ".join(_seat(verdict, s) for s in seats)
    text = (
        f"{where}, at job {job}: waits for the {_WHAT.get(what, what)} of {who}, which the file does not hold"
    )
    waiting = [e for e in _queued(observer) if e.seat not in seats]
    if waiting:
        others = ", ".join(f"{_seat(verdict, e.seat)} #{e.seq} ({e.kind})" for e in waiting[:4])
        more = f" and {len(waiting) - 4} more" if len(waiting) > 4 else ""
        text += f"; later messages wait for it, unchecked: {others}{more}"
    return text


# --- the verdict ------------------------------------------------------------------------------


@dataclass
class Verified:
    """What `verify_stream` read and concluded: the file's table and the verdict, and (when
    asked, for `replay`) its distinct frames in the file's order (`_Survey.order`)."""

    config: TableConfig
    verdict: Verdict
    order: list[Envelope | bytes] = field(default_factory=list)


YOUNG_COLLECTION_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation while a file is checked (the
interpreter's default is 700; see `_fewer_collections`)."""


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Within this block, the cyclic garbage collector runs its youngest generation about 70 times
    less often (the process's setting, restored after). A check keeps what it builds (the file's
    frames, the game's state) until its verdict, so each collection of the default schedule
    scanned objects that all survive: about 4 % of `verify`'s time, measured. Reference counting
    frees everything else at once as before; only cycles wait a little longer."""
    before = gc.get_threshold()
    raised = before[0] != 0 and before[0] < YOUNG_COLLECTION_THRESHOLD
    if raised:
        gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        # put back unless someone changed it meanwhile (another check still running keeps it)
        if raised and gc.get_threshold()[0] == YOUNG_COLLECTION_THRESHOLD:
            gc.set_threshold(*before)


def verify_bytes(data: bytes) -> Verdict:
    """Check a transcript file's contents. Raises `MalformedMessage` if it is not a transcript."""
    return verify_stream(reader(data), limit=None).verdict


Progress = Callable[[int, int], None]
"""`progress(checked, total)`: frames replayed so far out of those to replay (`verify_stream`)."""

PROGRESS_EVERY = 100
"""Frames between two calls of a `Progress`."""


def verify_stream(
    read: Read,
    *,
    size: int | None = None,
    limit: int | None = MAX_TRANSCRIPT,
    keep_order: bool = False,
    progress: Progress | None = None,
    surveyed: Callable[[TableConfig, list[Envelope | bytes]], None] | None = None,
) -> Verified:
    """Check a transcript read as a stream (`protocol.transcript.Records`: `read` is a binary
    file's read; `size` its size when known, refused over `limit`). Raises `MalformedMessage`
    at the first record that proves it is not a transcript, having read no further. The file is
    read once; memory holds one record at a time plus the distinct frames of the game (copies
    of a frame are counted, not kept: `Verdict.duplicates`). `progress`, if given, is called every
    `PROGRESS_EVERY` frames of the replay and once at its end. `surveyed(config, order)`, if
    given (with `keep_order`), is called once the file is read and its signatures checked, with
    the frames in the order they will be replayed, before the replay that gives the verdict
    (`skyjo-lan replay` shows the game from there while the check goes on)."""
    with _fewer_collections():
        return _verify_stream(read, size, limit, keep_order, progress, surveyed)


def _verify_stream(
    read: Read,
    size: int | None,
    limit: int | None,
    keep_order: bool,
    progress: Progress | None,
    surveyed: Callable[[TableConfig, list[Envelope | bytes]], None] | None,
) -> Verified:
    stream = Records(read, size=size, limit=limit)
    config = stream.config
    keys = verifiers_for(config)
    # Every frame's signature is checked in one sum at the end of the survey (protocol version 6's
    # rule makes a sum that holds mean that each signature holds: crypto/signatures.py); when it
    # does not hold, the frames are surveyed again, each signature checked as a live peer checks
    # it, so that exactly the forged frames are refused.
    batch = SignatureBatch()
    collecting: dict[int, Ed25519PublicKey] = {seat: batch.collecting(key) for seat, key in keys.items()}
    survey = _Survey(config, collecting, order=[] if keep_order else None, strict_keys=keys, kept=[])
    for frame in stream:
        survey.add(frame)
    if not batch.holds():
        survey = _survey_again(survey, keys)
    if surveyed is not None:
        surveyed(config, survey.order or [])
    # Every decryption-share proof and every shuffle chain's sum of the file is checked in a few
    # large sums (a passing sum means each proof holds, so the verdict is the one checking each at
    # once gives); when a sum fails, the file is checked again with each job's proofs checked as
    # a live peer checks them, which names the seat of the first bad proof (`jobs.deferred`).
    with deferred_checks() as deferred:
        verdict = _judge(config, keys, survey, stream.truncated, progress)
    if not deferred.verify():
        verdict = _judge(config, keys, survey, stream.truncated, progress)
    return Verified(config, verdict, survey.order or [])


def _judge(
    config: TableConfig,
    keys: dict[int, Ed25519PublicKey],
    survey: _Survey,
    truncated: bool,
    progress: Progress | None = None,
) -> Verdict:
    """The verdict on a surveyed file."""
    verdict = Verdict(
        True,
        config.game,
        config.players,
        tuple(config.names),
        survey.records - survey.duplicates,
        truncated=truncated,
        duplicates=survey.duplicates,
    )
    verdict.rejected = list(survey.rejected)
    foreign = _not_this_game(config, survey, survey.records)
    if foreign is not None:
        verdict._invalid(f"not this game's transcript: {foreign}")
        verdict.not_this_game = True
        return verdict

    observer = Session(config, None, None)
    observer.max_ahead_frames = observer.max_ahead_bytes = 1 << 62  # the whole file is here: no quota
    observer.start()
    report = _Report(config, keys)
    report.take(observer.next_events())
    order = _feeding_order(survey)
    observer.foresee(order)
    fed = 0
    for envelope in order:
        if observer.culprit is not None or (observer.halted and not observer.keeps_checking):
            break  # a proven verdict; a stop without proof goes on checking (a proof may follow)
        observer.receive_opened(envelope)
        fed += 1
        events = observer.next_events()
        if events:  # (most frames report nothing)
            report.take(events)
        if progress is not None and fed % PROGRESS_EVERY == 0:
            progress(fed, len(order))
    if progress is not None:
        progress(fed, len(order))
    observer.check_postponed()  # a transcript may stop after a bad shuffle whose check was put off
    report.take(observer.next_events())
    verdict.rounds_signed = report.rounds_signed
    verdict.taken_over, verdict.seat_events = dict(report.taken_over), list(report.events)
    verdict.rejected.extend(report.rejected)
    state = observer.state
    if state is not None:
        verdict.round = state.round
        verdict.totals = list(state.totals)
        verdict.winners = list(state.winners)
    verdict.unconsumed = unconsumed(observer)
    verdict.unconfirmed = [
        f"{_seat_from_one(verdict, e.seat)}, frame #{e.seq}: {e.data['text']!r}"
        for e in unconfirmed_chats(v for versions in survey.versions.values() for v in versions.values())
    ]
    if fed < len(order):
        verdict.unconsumed.append(
            f"{len(order) - fed} frame(s) were not checked: the check stops at the first fault"
        )

    # The first fault, most conclusive first: what a seat signed, then what nobody signed.
    equivocation = _equivocation(survey)
    seqs = survey.all_seqs(config.players)
    holes = _holes(survey, config.players, seqs)
    gaps = [
        f"seat {s + 1}'s frames stop being checked at #{observer.next_seq_of(s)}"
        for s in range(config.players)
        if seqs[s] and observer.next_seq_of(s) <= seqs[s][-1] and not observer.halted
    ]
    after_end = [] if observer.halted else _after_the_end(observer)
    if survey.garbage is not None:
        seat, reason, _ = survey.garbage
        verdict._invalid(reason, seat)
    elif equivocation is not None:
        verdict._invalid(equivocation[1], equivocation[0])
    elif report.fault is not None:
        verdict._invalid(report.fault, report.blame)
    elif observer.disputes:  # live, a timer decides; offline, nothing can
        seat, seq = observer.disputes[0]
        verdict._invalid(
            f"an echo disagrees with frame #{seq} of seat {seat + 1} and no signed frame in the "
            "transcript settles it"
        )
    elif verdict.rejected:
        count = survey.rejected_count + len(report.rejected)
        verdict._invalid(f"{count} frame(s) are not valid frames of this game: {verdict.rejected[0]}")
    elif holes:
        verdict._invalid(holes[0])
    elif gaps:
        verdict._invalid(f"{gaps[0]}: {'; '.join(verdict.unconsumed) or 'a frame is missing'}")
    elif after_end:
        more = f" (and {len(after_end) - 1} more)" if len(after_end) > 1 else ""
        verdict._invalid(f"{after_end[0]}{more}: no step of the game consumes it, so nothing checked it")
    elif report.left is not None:
        verdict.kind, verdict.finished, verdict.left = "unfinished", False, report.left
        verdict.stops_at = f"stopped: {_seat_from_one(verdict, report.left)} left the table"
    elif report.stopped is not None:
        verdict.kind, verdict.finished = "unfinished", False
        # a seat's halt frame already says who stopped it: "Anna (seat 1) stopped the game: ..."
        stopped = " stopped the game: " in report.stopped
        verdict.stops_at = report.stopped if stopped else f"the game was stopped: {report.stopped}"
    elif state is not None and state.phase == "game_over" and observer.settled:
        verdict.kind, verdict.finished = "finished", True
    else:
        verdict.kind, verdict.finished = "unfinished", False
        verdict.stops_at = _stops_at(verdict, observer)
    return verdict


__all__ = [
    "MalformedMessage",
    "Verdict",
    "VerdictKind",
    "Verified",
    "unconfirmed_chats",
    "verify_bytes",
    "verify_stream",
]
