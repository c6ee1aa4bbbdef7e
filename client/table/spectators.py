"""The host's side of spectators (`skyjo-lan watch`): who watches, and what each is sent.

A spectator dials the host's lobby listener with the link role ``watch`` (`client.net.link`): it
is authenticated like anyone (an ephemeral key; the table's password if it has one), takes no
seat, holds no key share and signs nothing. From the start of the game it is sent the signed
genesis, then every frame of the host's transcript in the host's own order (the order of its
saved file: what `PeerRunner` records), then each new frame in that same order; a live observer
session (`protocol.session.Session(config, None, None)`) checks them as `skyjo-lan verify` does.

It is sent nothing else: no lobby message (names, chat, settings), no private packet beyond what
the transcript holds sealed, no password. Messages (host -> spectator, after ``accepted``):

    table {genesis, gsig}      the agreed table as the host signed it (once per connection)
    frames {from, f: [...]}    transcript frames number `from`, `from + 1`, ...
    watching {n}               how many watch now (also sent to the players)
    dropped {reason}           it fell too far behind: it reconnects with hello ``from``
    end {}                     the host's game is over: nothing more will come

(``accepted`` says ``watch: true`` and the table's name, which mDNS announces anyway.)
    ping {}                    the host is alive (when nothing else was sent for a while)

A spectator sends nothing but ``bye``; anything it sends closes its connection. A slow spectator
never slows the players: each has a bounded queue (`SpectatorQueue`, frames and bytes); past it
the spectator is dropped (told why), and its program reconnects and catches up from the
transcript kept here.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from client.net.framing import encode_frame
from client.net.link import REMOTE_ERRORS, Link
from client.net.linkproto import field, pack

from .framelog import FrameLog

log = logging.getLogger("skyjo_lan.watch")

WATCH_ROLE = "watch"
"""The link role of a spectator's hello (a player's is ``join``)."""
MOST_SPECTATORS = 16
"""How many may watch one table at once by default (`host --spectators N`; 0: none)."""
BATCH_BYTES = 256 * 1024
"""At most this many bytes of frames in one ``frames`` message (well under a link frame)."""
BATCH_FRAMES = 256
"""At most this many frames in one ``frames`` message (msgpack's array limit is 1024)."""


@dataclass(frozen=True)
class SpectatorLimits:
    """What one spectator may cost the host."""

    most: int = MOST_SPECTATORS
    """Spectators at once (0: the table takes none)."""
    queue_frames: int = 4096
    """Frames waiting to be written to one spectator before it is dropped."""
    queue_bytes: int = 8 << 20
    """Bytes of frames waiting for one spectator before it is dropped."""
    ping: float = 5.0
    """Seconds without a message after which the host says ``ping``."""
    drain: float = 10.0
    """Seconds a spectator gets to take its last messages (``dropped``, ``end``)."""


class SpectatorQueue:
    """One spectator's place in the transcript (sans-IO): the frames not yet handed to its writer
    are `transcript[sent:]`. Those that were there when it connected (its catch-up) cost nothing
    more: they are kept for everyone anyway. Those made since are bounded: past `most_frames` or
    `most_bytes` of them waiting, it overflows and the spectator must be dropped."""

    def __init__(self, start: int, backlog: int, most_frames: int, most_bytes: int) -> None:
        self.sent = start
        """The index of the next frame to hand to the writer (`take`)."""
        self.backlog = max(start, backlog)
        """Frames below this index were in the transcript when it connected."""
        self.known = self.backlog
        """Frames of the transcript seen so far (`offer`)."""
        self.waiting_bytes = 0
        """Bytes of the frames from `backlog` on that wait."""
        self.most_frames = most_frames
        self.most_bytes = most_bytes
        self.overflowed = False

    @property
    def waiting(self) -> int:
        """Frames made since it connected that wait for it."""
        return self.known - max(self.sent, self.backlog)

    def offer(self, transcript: Sequence[bytes]) -> bool:
        """The transcript grew: False once too much waits (then it stays overflowed)."""
        while not self.overflowed and self.known < len(transcript):
            self.waiting_bytes += len(transcript[self.known])
            self.known += 1
            if self.waiting > self.most_frames or self.waiting_bytes > self.most_bytes:
                self.overflowed = True
        return not self.overflowed

    def take(
        self, transcript: Sequence[bytes], most_frames: int = BATCH_FRAMES, most_bytes: int = BATCH_BYTES
    ) -> tuple[int, list[bytes]]:
        """The next batch to write: (index of its first frame, frames); empty when none wait.
        One frame bigger than `most_bytes` still goes alone."""
        first = self.sent
        batch: list[bytes] = []
        size = 0
        while self.sent < self.known and len(batch) < most_frames:
            frame = transcript[self.sent]
            if batch and size + len(frame) > most_bytes:
                break
            batch.append(frame)
            size += len(frame)
            if self.sent >= self.backlog:
                self.waiting_bytes -= len(frame)
            self.sent += 1
        return first, batch


class _Spectator:
    """One connected spectator: its link, its queue, and the last word it is due."""

    def __init__(self, link: Link, queue: SpectatorQueue) -> None:
        self.link = link
        self.queue = queue
        self.wake = trio.Event()
        self.told_table = False
        self.last: dict[str, Any] | None = None
        """``dropped`` or ``end``: said once the queue is written, then the link closes."""
        self.count_due = True
        self.scope = trio.CancelScope()
        """Around its writer: given a deadline once dropped (a writer stuck on a stalled stream)."""

    def poke(self) -> None:
        self.wake.set()


class Spectators:
    """The host's spectators: admission, the transcript they follow, and one writer each."""

    def __init__(self, limits: SpectatorLimits | None = None, on_count: Callable[[int], None] | None = None):
        self.limits = limits or SpectatorLimits()
        self.on_count = on_count
        """Told how many watch each time it changes (the lobby and the players are told)."""
        self.frames = FrameLog()
        """The host's transcript so far, in its own order (kept for spectators catching up: on
        disk but for the newest frames, `FrameLog`)."""
        self.table: dict[str, Any] | None = None
        self.ended = False
        self._watching: list[_Spectator] = []
        self._reserved = 0
        """Places given by `admit` to spectators whose handshake is not over yet (`serve` takes
        one, `release` gives one back): counted against the limit with those watching."""

    @property
    def count(self) -> int:
        return len(self._watching)

    def admit(self) -> str | None:
        """None to let one more spectator in (its place is taken at once: `serve` or `release`
        must follow), else why not (sent as the refusal's reason).

        The check and the count are one step, with no await between them: spectators dialling
        at once can never be admitted beyond the limit."""
        if self.limits.most <= 0:
            return "this table takes no spectators"
        taken = self.count + self._reserved
        if taken >= self.limits.most:
            return f"too many spectators already ({taken}/{self.limits.most})"
        if self.ended:
            return "the game is over"
        if self.frames.lost:
            return "the host lost the transcript it keeps for spectators"
        self._reserved += 1
        return None

    def release(self) -> None:
        """A spectator admitted by `admit` never came to `serve` (its handshake failed)."""
        self._reserved = max(0, self._reserved - 1)

    # --- fed by the host ----------------------------------------------------------------------

    def begin(self, genesis: bytes, signature: bytes) -> None:
        """The game starts: its genesis as the host signed it."""
        self.table = {"t": "table", "genesis": genesis, "gsig": signature}
        for spectator in self._watching:
            spectator.poke()

    def append(self, frame: bytes) -> None:
        """One more frame of the host's transcript (in its order); any spectator too far behind
        is dropped."""
        self.frames.append(frame)
        for spectator in list(self._watching):
            try:
                behind = spectator.last is None and not spectator.queue.offer(self.frames)
                reason = (
                    f"too far behind ({spectator.queue.waiting} frames waiting): reconnect to catch up"
                    if behind
                    else ""
                )
            except OSError as exc:  # the frames' file failed (`FrameLog`): the game goes on
                behind, reason = spectator.last is None, "the host cannot read its transcript"
                log.warning("cannot send a spectator the transcript: %s", exc)
            if behind:
                log.info("dropping a spectator: %s", reason)
                spectator.last = {"t": "dropped", "reason": reason}
                spectator.scope.deadline = trio.current_time() + self.limits.drain
            spectator.poke()

    async def finish(self) -> None:
        """The host's game is over: every spectator gets what is left and ``end``, within
        `limits.drain` seconds."""
        self.ended = True
        deadline = trio.current_time() + self.limits.drain
        for spectator in self._watching:
            if spectator.last is None:
                spectator.last = {"t": "end"}
            # a spectator that does not read (stopped, stalled) is cut off after the drain too
            spectator.scope.deadline = min(spectator.scope.deadline, deadline)
            spectator.poke()
        with trio.move_on_after(self.limits.drain):
            while self._watching:
                await trio.sleep(0.05)
        if not self._watching:
            self.frames.close()  # else its finalizer does, once the last writer is cut off

    # --- one spectator's connection -----------------------------------------------------------

    async def serve(self, link: Link, hello: dict[str, Any]) -> None:
        """Serve one admitted spectator (its place taken by `admit`) until it leaves, is
        dropped, or the game is over. Never raises for what the spectator's end of the
        connection does (a reset, a close, garbage): the host's game goes on."""
        self._reserved = max(0, self._reserved - 1)
        start = hello.get("from", 0)
        if not isinstance(start, int) or isinstance(start, bool) or not 0 <= start <= len(self.frames):
            start = 0  # an index we never sent: from the beginning
        limits = self.limits
        queue = SpectatorQueue(start, len(self.frames), limits.queue_frames, limits.queue_bytes)
        spectator = _Spectator(link, queue)
        self._watching.append(spectator)
        if self.ended:
            spectator.last = {"t": "end"}
        self._count_changed()
        try:
            # trio raises what the writer and the reader meet as an exception group (both may
            # meet a reset at once): every network error in it ends this spectator, not the host
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read, spectator, nursery.cancel_scope)
                with spectator.scope:
                    await self._write(spectator)
                nursery.cancel_scope.cancel()
        except* REMOTE_ERRORS as group:
            log.info("spectator link closed: %s", group.exceptions[0])
        finally:
            self._watching.remove(spectator)
            with trio.CancelScope(shield=True):
                await link.aclose()
            self._count_changed()

    def _count_changed(self) -> None:
        for spectator in self._watching:
            spectator.count_due = True
            spectator.poke()
        if self.on_count is not None:
            self.on_count(self.count)

    async def _send(self, spectator: _Spectator, message: dict[str, Any]) -> None:
        await spectator.link.stream.send_all(encode_frame(pack(message)))

    async def _write(self, spectator: _Spectator) -> None:
        """The only task writing to this spectator's stream."""
        limits = self.limits
        while True:
            if spectator.last is not None and spectator.last["t"] == "dropped":
                with trio.move_on_after(limits.drain):
                    await self._send(spectator, spectator.last)
                return
            if spectator.count_due:
                spectator.count_due = False
                await self._send(spectator, {"t": "watching", "n": self.count})
                continue
            if self.table is not None and not spectator.told_table:
                spectator.told_table = True
                await self._send(spectator, self.table)
                continue
            try:
                first, batch = spectator.queue.take(self.frames)
            except (OSError, ValueError) as exc:  # the frames' file failed (or is closed)
                log.warning("cannot send a spectator the transcript: %s", exc)
                spectator.last = {"t": "dropped", "reason": "the host cannot read its transcript"}
                continue
            if batch:
                await self._send(spectator, {"t": "frames", "from": first, "f": batch})
                continue
            if spectator.last is not None:  # "end": everything was written
                with trio.move_on_after(limits.drain):
                    await self._send(spectator, spectator.last)
                    await trio.sleep(0.2)  # let it read before the close
                return
            with trio.move_on_after(limits.ping) as idle:
                await spectator.wake.wait()
            spectator.wake = trio.Event()
            if idle.cancelled_caught:
                await self._send(spectator, {"t": "ping"})

    async def _read(self, spectator: _Spectator, scope: trio.CancelScope) -> None:
        """A spectator only says goodbye: its first message, whatever it is, closes its link (so
        neither a flood nor garbage costs the host more than one read)."""
        with contextlib.suppress(*REMOTE_ERRORS):
            message = await spectator.link.receive()
            if message is not None and message["t"] != "bye":
                log.info("closing a spectator's link: it sent %r (spectators only watch)", message["t"])
        scope.cancel()


def watching_count(message: dict[str, Any]) -> int:
    """The count of a ``watching`` message (checked)."""
    return int(field(message, "n", int, most=1 << 16))
