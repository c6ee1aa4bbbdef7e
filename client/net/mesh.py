"""The full mesh of one peer during a game: an authenticated link to every other seat.

Only the lower seat dials (one link per pair). A link that breaks is re-dialled with capped
exponential backoff and jitter; while it is down the other seat shows as "reconnecting" with a
countdown. When a link (re)connects, each side asks for the other's frames from the sequence
number it expects next, so nothing sent during the gap is lost (the session ignores
duplicates). Heartbeats every `heartbeat` seconds keep quiet links alive; a link silent for
`dead_after` seconds is closed and re-dialled. Timeouts that blame a seat are the session's
business (its `step_timeout`), not the links'.

A seat that listens on another port than the table's address for it (a resumed program whose
port another program took meanwhile) tells each lower seat where: it dials the lower seat, which
notes the port from the authenticated handshake, refuses the link ("the lower seat dials") and
dials it there at once. Only a seat's own key moves where that seat is dialled.

Every link binds the whole genesis (`link.TableClaim`). A seat that holds another genesis for the
same session id is refused at its link, never re-dialled, and the game stops for this peer
before any game frame: the two chains could never agree. Nobody is blamed, unless the other seat
shows its genesis signed by the host (seat 0) just as ours is: two different tables signed by
the host for one session are proof that the host split the table, and the host is named.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import trio
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from protocol.config import TableConfig, seat_names
from protocol.errors import MalformedMessage

from .framing import FramingError
from .guard import Admission, source_key
from .link import (
    REMOTE_ERRORS,
    GenesisDiffers,
    Handshake,
    Link,
    LinkError,
    Proof,
    Refused,
    TableClaim,
    accept,
    dial,
    serve,
)
from .linkproto import PeerIdentity, field

log = logging.getLogger("skyjo_lan.mesh")

_SETTLED = ("blamed", "left", "absent")
"""Link states the session decided (a cheat, a leave, a timeout): a closed link keeps them."""
CATCH_UP_WAIT = 60.0
"""Seconds a finished game's programs wait for a program back at a seat the table played, still
catching up, to say goodbye (`Mesh._wait_for_returning`): a resumed program checks the whole game
again, which takes seconds on a slow laptop."""
GENESIS_SIGNATURE_LABEL = b"skyjo-lan/v1/genesis-signature"
HOST_SEAT = 0
PORT_NOTED = "noted: the lower seat dials you at port"
"""A lower seat's refusal of a higher seat's link that told it a new port."""
MOVES_PER_SEAT = 16
"""How many new ports one seat may tell a lower seat in a game (a resumed program tells one; the
cap bounds the saves of the .resume file a seat telling ports in a loop could cause)."""


def sign_genesis(host: Ed25519PrivateKey, config: TableConfig) -> bytes:
    """The host's signature of the whole genesis it hands out (64 bytes)."""
    return host.sign(GENESIS_SIGNATURE_LABEL + config.genesis_hash)


def genesis_signed_by(key: bytes, config: TableConfig, signature: bytes) -> bool:
    """Whether `signature` is `key`'s signature of exactly this genesis."""
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(
            signature, GENESIS_SIGNATURE_LABEL + config.genesis_hash
        )
    except (InvalidSignature, ValueError):
        return False
    return True


def split_by_host(ours: TableConfig, our_signature: bytes, theirs: bytes, proof: Proof | None) -> bool:
    """Whether `proof` and our own signed genesis prove that our host (seat 0) signed two
    different tables for one session id. `theirs` is the genesis hash the other seat bound in
    its handshake; the proof must be that genesis."""
    if proof is None or not our_signature:
        return False
    data, signature = proof
    try:
        other = TableConfig.decode(data)
    except (MalformedMessage, TypeError, ValueError):
        return False
    host = ours.identities[HOST_SEAT]
    return (
        other.genesis_hash == theirs != ours.genesis_hash
        and other.session_id == ours.session_id
        and genesis_signed_by(host, other, signature)
        and genesis_signed_by(host, ours, our_signature)
    )


@dataclass
class LinkState:
    """How this peer sees another seat's link, for the status line."""

    status: str = "connecting"  # connecting | connected | reconnecting | blamed | gone | local
    retry_in: float | None = None
    reason: str | None = None


class _Finished(Protocol):
    @property
    def finished(self) -> bool: ...


class MeshRunner(Protocol):
    """What the mesh needs of the peer whose frames it carries (`client.table.peer.PeerRunner`):
    the network does not import the table, the table imports the network."""

    links: dict[int, LinkState]

    def notify(self) -> None:
        """Wake whoever waits for the table to change (a link came, went or is retried)."""

    @property
    def config(self) -> TableConfig: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def status(self) -> _Finished: ...

    async def run(
        self,
        broadcast: Callable[[bytes], Awaitable[None]],
        *,
        task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
    ) -> None: ...
    async def wait_done(self) -> None: ...
    def close(self) -> None: ...
    async def stop(self, reason: str, culprit: int | None = None) -> None: ...
    async def next_seq_of(self, seat: int) -> int: ...
    async def own_frames_from(self, seq: int) -> list[bytes]: ...
    async def peer_holds(self, seat: int, count: int) -> int | None: ...
    async def chain_frames(self, seat: int, start: int) -> list[bytes]: ...
    def deliver(self, frame: bytes) -> None: ...
    def set_watching(self, count: int) -> None: ...
    @property
    def watching(self) -> int: ...
    @property
    def taken_over(self) -> dict[int, str]: ...
    def behind(self) -> list[int]:
        """The other seats that may lack frames we hold (their acknowledgements fall short)."""

    def stepped_out(self) -> set[int]:
        """The seats whose player stepped out (Ctrl-C: a signed `stepout` the table counted)."""

    def tell_end_wait(self, text: str) -> None:
        """Tell the player about the end-of-game wait (a line of the table's log)."""


class Mesh:
    def __init__(
        self,
        runner: MeshRunner,
        identity: Ed25519PrivateKey,
        addresses: list[tuple[str, int]],
        listener: trio.SocketListener,
        *,
        heartbeat: float = 2.0,
        dead_after: float = 10.0,
        backoff: tuple[float, float] = (0.25, 8.0),
        linger: float = 3.0,
        catch_up: float = CATCH_UP_WAIT,
        genesis_signature: bytes = b"",
        on_moved: Callable[[], None] | None = None,
    ) -> None:
        assert runner.seat is not None
        self.runner = runner
        self.config: TableConfig = runner.config
        self.seat: int = runner.seat
        self.identity = identity
        self.addresses = addresses
        self.listener = listener
        self.heartbeat = heartbeat
        self.dead_after = dead_after
        self.backoff = backoff
        self.linger = linger
        self.catch_up = catch_up
        self.links: dict[int, Link] = {}
        self.said_bye: set[int] = set()
        """Seats whose program said goodbye (its game is over for it: `run`'s end)."""
        self.left_elsewhere: set[int] = set()
        """Seats whose program said goodbye to another seat, as that seat told us (`resend`)."""
        self.lost_at: dict[int, float] = {}
        """Per seat, when its last link to us closed (trio's clock)."""
        self.genesis_signature = genesis_signature
        proof = (self.config.encode(), genesis_signature) if genesis_signature else None
        self.claim = TableClaim(self.config.genesis_hash, proof)
        self.split: set[int] = set()
        """Seats that hold another genesis: refused for good."""
        self._rng = random.Random()
        self.admission = Admission()
        """Handshake caps on our listener (shared by the process: see `guard.process_caps`)."""
        self.on_moved = on_moved
        """Called when a seat told us its new port (`addresses` changed: the caller saves it)."""
        self._moves: dict[int, int] = {}
        """Per higher seat, how many new ports it told us (at most MOVES_PER_SEAT)."""
        self._dialling: dict[int, trio.CancelScope] = {}
        """Per higher seat, its dial loop's attempt or backoff (cancelled when it moves)."""
        self.watching: dict[str, Any] | None = None
        """The host's last ``watching`` side message (how many spectators), told to every link."""
        if self.seat == HOST_SEAT and runner.watching:
            self.watching = {"t": "watching", "n": runner.watching}
        for seat in range(self.config.players):
            if seat != self.seat:
                runner.links[seat] = LinkState("connecting")

    @property
    def name(self) -> str:
        names = self.config.names
        return names[self.seat] if names else f"seat {self.seat + 1}"

    async def run(self) -> None:
        """Run until the game is over for this peer (then linger briefly for late frames)."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._accept_loop)
            for seat in range(self.seat + 1, self.config.players):
                nursery.start_soon(self._dial_loop, seat)
            if self.moved:
                for seat in range(self.seat):
                    nursery.start_soon(self._tell_port, seat)
            nursery.start_soon(self._heartbeats)
            await nursery.start(self.runner.run, self.broadcast)
            await self.runner.wait_done()
            with trio.move_on_after(self.linger):  # answer slower peers' last frames and resends
                await self._quiet()
            await self._wait_for_returning()
            for link in list(self.links.values()):
                link.send({"t": "bye"})
            await trio.sleep(0.1)
            self.runner.close()
            nursery.cancel_scope.cancel()

    @property
    def port(self) -> int:
        """The port we listen on."""
        return int(self.listener.socket.getsockname()[1])

    @property
    def moved(self) -> bool:
        """Whether we listen on another port than the table's address for our seat."""
        return self.port != self.addresses[self.seat][1]

    async def _quiet(self) -> None:
        """Return once every other seat has said goodbye or gone away."""
        while self.links:
            await trio.sleep(0.1)

    async def _wait_for_returning(self) -> None:
        """After the game: wait (at most `catch_up` seconds) for the programs that may not have
        its end yet, or may not know that we have it, to say goodbye. Four kinds:

        - a program back at a seat the table plays, linked to us at the end: it came back while
          the table played its seat and may still be catching up with the game (thousands of
          frames and their proofs, after a resume); it says goodbye once it has the end, and
          is waited for even if its link drops meanwhile;
        - after a finished game, a program whose seat the table plays because it vanished (not
          a player who stepped out or left), and whose link to us dropped less than `catch_up`
          seconds ago: a lid closed, or a Wi-Fi gone, on the last turns; waited for until that
          long after its link dropped (or, back, as above);
        - after a finished game, a program at a seat the table does not play whose
          acknowledgements do not reach the end (`behind`), linked or not: its link dropped as
          the game ended, and its program waits for the others' last frames; when its link
          comes back, each program sends it its own frames from where it is (`resend`). The
          wait for it ends when it has acknowledged the end;
        - after a finished game, a program at a seat the table does not play that is not linked
          to us: it may be waiting for us as above, not knowing we have the end (we are the one
          whose link dropped, and got the end from another seat). The wait for it ends when its
          link is back: it then gets our frames, acknowledgements included, and our goodbye.

        A goodbye to another seat counts too (`resend` tells us). Leaving after the short
        `linger`, as at an ordinary end, left such a program with part of the end and nobody to
        ask for the rest: it stopped "cut off" minutes later with an unfinished game (the fault
        soaks, seeds 16 to 20). A program gone for good costs the others this wait, which they
        spend on the game-over screen."""
        late: set[int] = set()
        catching, unlinked = self._waited(late)
        if not catching and not unlinked:
            return
        names = seat_names(self.config)

        def who(seats: list[int]) -> str:
            return ", ".join(f"{names[seat]} (seat {seat + 1})" for seat in seats)

        wait = f"waiting up to {self.catch_up:.0f} s"
        if catching:
            self.runner.tell_end_wait(f"{wait} for {who(catching)} to catch up with the end of the game")
        if unlinked:
            self.runner.tell_end_wait(
                f"{wait} for the link to {who(unlinked)}, to tell it this program has the end"
            )
        log.info("game over: waiting up to %.0f s for seats %s", self.catch_up, [*catching, *unlinked])
        with trio.move_on_after(self.catch_up) as scope:
            while any(self._waited(late)):
                await trio.sleep(0.1)
        if scope.cancelled_caught:
            left = sorted(seat for seats in self._waited(late) for seat in seats)
            self.runner.tell_end_wait(
                f"{who(left)}: no goodbye within {self.catch_up:.0f} s; leaving the table"
            )
            log.info("game over: seats %s did not say goodbye within %.0f s", left, self.catch_up)

    def _waited(self, late: set[int]) -> tuple[list[int], list[int]]:
        """The seats `_wait_for_returning` waits for now: (those that may not have the end, those
        not linked to us that may not know we have it), goodbyes known left out. `late` gathers
        the seats the table plays seen linked to us (a program back, maybe still catching up):
        waited for until their goodbye, even if their link drops meanwhile."""
        taken, gone = self.runner.taken_over, self.said_bye | self.left_elsewhere
        finished = self.runner.status.finished  # else the game stopped: nothing more to sign
        late.update(seat for seat in self.links if seat in taken)
        behind = set(self.runner.behind()) if finished else set()
        now = trio.current_time()
        catching: list[int] = []
        unlinked: list[int] = []
        for seat in range(self.config.players):
            if seat == self.seat or seat in gone:
                continue
            lost = self.lost_at.get(seat)
            if seat in late:
                catching.append(seat)
            elif seat in taken:
                lately = lost is not None and now - lost < self.catch_up
                if (
                    finished
                    and lately
                    and taken[seat] == "vanished"
                    and seat not in self.runner.stepped_out()
                ):
                    catching.append(seat)
            elif finished and seat in behind:
                catching.append(seat)
            elif finished and seat not in self.links:
                unlinked.append(seat)
        return catching, unlinked

    async def broadcast(self, frame: bytes) -> None:
        for link in list(self.links.values()):
            link.send({"t": "frame", "f": frame})

    async def drain(self) -> None:
        """Wait until what we queued on every link is written (bound it with a deadline)."""
        for link in list(self.links.values()):
            await link.drain()

    def tell_watching(self, count: int) -> None:
        """The host: how many spectators watch, to every seat (a link message, not a frame)."""
        self.watching = {"t": "watching", "n": count}
        for link in list(self.links.values()):
            link.send(self.watching)

    # --- incoming links (from lower seats) ------------------------------------------------------

    async def _accept_loop(self) -> None:
        # the seats' own addresses are not bound by the total cap: a flood from elsewhere must not
        # keep a seat from re-dialling us (each address is still capped on its own)
        seat_hosts = {
            source_key(host) for seat, (host, _port) in enumerate(self.addresses) if seat != self.seat
        }

        async def handle(stream: trio.SocketStream, handshake: Handshake) -> None:
            seat_of = {key: seat for seat, key in enumerate(self.config.identities)}

            def admit(peer: PeerIdentity, hello: dict[str, Any]) -> str | None:
                seat = seat_of.get(peer.key)
                if seat is None:
                    return "you are not seated at this table"
                if seat > self.seat and peer.port:  # a higher seat tells us its new port
                    return self._note_port(seat, peer.port)
                if seat >= self.seat:
                    return "the lower seat dials"
                return None

            try:
                link, _hello = await accept(
                    stream,
                    self.identity,
                    name=self.name,
                    table=self.config.session_id,
                    password=None,
                    admit=admit,
                    accepted=lambda peer, hello: {"seat": self.seat},
                    claim=self.claim,
                )
            except GenesisDiffers as exc:
                handshake.done()
                with trio.move_on_after(1):
                    await stream.aclose()
                await self._table_split(seat_of[exc.peer.key], exc)
                return
            except (LinkError, FramingError, trio.TooSlowError, trio.BrokenResourceError, OSError) as exc:
                log.info("refused an incoming connection: %s", exc)
                with trio.move_on_after(1):
                    await stream.aclose()
                return
            handshake.done()
            await self._serve(seat_of[link.peer.key], link)

        await serve(
            self.listener,
            handle,
            self.admission,
            what=f"{self.name} (seat {self.seat + 1}) game port",
            expected=lambda source: source_key(source) in seat_hosts,
        )

    def _note_port(self, seat: int, port: int) -> str:
        """`seat` (authenticated) listens on `port` now: dial it there, at once. The refusal to
        send it (a higher seat is never linked through its own dial)."""
        host, old = self.addresses[seat]
        if port != old:
            moves = self._moves[seat] = self._moves.get(seat, 0) + 1
            if moves > MOVES_PER_SEAT:
                if moves == MOVES_PER_SEAT + 1:
                    log.warning("seat %s told new ports too often: its next are not noted", seat)
                return f"the lower seat dials you at port {old}: too many port changes"
            self.addresses[seat] = (host, port)
            if self.on_moved is not None:
                self.on_moved()
            log.warning("seat %s listens on port %d now (it was %d)", seat, port, old)
            if (attempt := self._dialling.get(seat)) is not None:
                attempt.cancel()
        return f"{PORT_NOTED} {port}"

    async def _tell_port(self, seat: int) -> None:
        """Tell the lower `seat` our new port (see `moved`), until its link to us is up: a
        handshake it refuses once it has noted the port. Repeated with the dial loop's backoff
        (it may be away, or busy dialling our old port)."""
        low, high = self.backoff
        delay = low
        while seat not in self.links and not self.runner.status.finished:
            host, port = self.addresses[seat]
            try:
                link = await self._dial_once(seat, host, port)
                await link.aclose()  # (a lower seat refuses: never reached)
            except Refused as exc:
                log.info("told seat %s our port %d: %s", seat, self.port, exc)
            except (LinkError, FramingError, trio.TooSlowError, trio.BrokenResourceError, OSError) as exc:
                log.info("cannot tell seat %s our port yet: %s", seat, exc)
            await trio.sleep(delay * (0.5 + self._rng.random()))
            delay = min(high, delay * 2)

    # --- outgoing links (to higher seats) -------------------------------------------------------

    async def _dial_loop(self, seat: int) -> None:
        low, high = self.backoff
        delay = low
        state = self.runner.links[seat]
        while True:
            host, port = self.addresses[seat]
            try:
                link = None
                with self._until_moved(seat):  # a new port told meanwhile: dial there at once
                    link = await self._dial_once(seat, host, port)
                if link is not None:
                    delay = low
                    await self._serve(seat, link)
            except GenesisDiffers as exc:
                await self._table_split(seat, exc)
                return
            except (LinkError, FramingError, trio.TooSlowError, trio.BrokenResourceError, OSError) as exc:
                log.info("link to seat %s: %s", seat, exc)
            # (after the game too: the end-of-game wait may wait for this seat's link)
            if self.addresses[seat] != (host, port):
                delay = low
                continue
            wait = delay * (0.5 + self._rng.random())  # jitter: peers do not retry in lockstep
            if state.status not in _SETTLED:
                state.status, state.retry_in = "reconnecting", wait
            self.runner.notify()
            with self._until_moved(seat):
                await trio.sleep(wait)
            state.retry_in = None
            delay = low if self.addresses[seat] != (host, port) else min(high, delay * 2)

    async def _dial_once(self, seat: int, host: str, port: int) -> Link:
        """One link to `seat` at `host`:`port`, through the handshake (a lower seat refuses it:
        `Refused`, see `_tell_port`)."""
        stream = await trio.open_tcp_stream(host, port)
        try:
            link, _ = await dial(
                stream,
                self.identity,
                name=self.name,
                role="peer",
                table=self.config.session_id,
                port=self.port,
                expect_key=self.config.identities[seat],
                claim=self.claim,
            )
        except BaseException:
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                await stream.aclose()
            raise
        return link

    @contextmanager
    def _until_moved(self, seat: int) -> Iterator[None]:
        """Cancel what runs inside (a dial, a backoff) if `seat` tells us a new port meanwhile."""
        with trio.CancelScope() as scope:
            self._dialling[seat] = scope
            try:
                yield
            finally:
                del self._dialling[seat]

    async def _table_split(self, seat: int, exc: GenesisDiffers) -> None:
        """`seat` holds another genesis: stop (once), naming the host only if the split is proven."""
        state = self.runner.links[seat]
        state.status, state.retry_in = "gone", None
        if seat in self.split:
            return
        self.split.add(seat)
        names = seat_names(self.config)
        who = f"{names[seat]} (seat {seat + 1})"
        if split_by_host(self.config, self.genesis_signature, exc.genesis, exc.proof):
            host = f"{names[HOST_SEAT]} (seat {HOST_SEAT + 1})"
            reason = (
                f"{who} holds a different table than ours (genesis differs), and both tables are "
                f"signed by the host {host}: the host gave us different tables"
            )
            culprit: int | None = HOST_SEAT
        else:
            reason = (
                f"{who} holds a different table than ours (genesis differs): the host gave us "
                "different tables (not proven by signatures: nobody is blamed)"
            )
            culprit = None
        state.reason = reason
        log.warning("refused the link to seat %s: %s", seat, reason)
        await self.runner.stop(reason, culprit)

    # --- one live link --------------------------------------------------------------------------

    async def _serve(self, seat: int, link: Link) -> None:
        old = self.links.get(seat)
        if old is not None:
            await old.aclose()
        self.links[seat] = link
        state = self.runner.links[seat]
        state.status, state.retry_in, state.reason = "connected", None, None
        self.runner.notify()
        if self.watching is not None:
            link.send(self.watching)
        try:
            # what the other end does with its socket reaches us from the reader, the writer or
            # both at once (an exception group): it ends this link, never the game
            async with trio.open_nursery() as nursery:
                nursery.start_soon(link.writer)
                await self._read(seat, link)
                nursery.cancel_scope.cancel()
        except* (LinkError, FramingError) as group:
            log.warning("closing the link to seat %s: %s", seat, group.exceptions[0])
        except* REMOTE_ERRORS as group:
            log.info("link to seat %s lost: %s", seat, group.exceptions[0])
        finally:
            await link.aclose()
            if self.links.get(seat) is link:
                del self.links[seat]
                self.lost_at[seat] = trio.current_time()
                if state.status not in _SETTLED:
                    state.status = "gone" if self.runner.status.finished else "reconnecting"
                self.runner.notify()

    async def _read(self, seat: int, link: Link) -> None:
        """Serve one link until it ends: frames to the session, resend requests, heartbeats."""
        expected = await self.runner.next_seq_of(seat)
        # `left`: the seats that said goodbye to us (a program back after the others left need
        # not wait for them at its own end); older programs read `from` only
        link.send({"t": "resend", "from": expected, "left": sorted(self.said_bye)})
        while True:
            message = await link.receive()
            if message is None:
                log.info("seat %s closed the link (end of its stream)", seat)
                return
            kind = message["t"]
            if kind == "frame":
                self.runner.deliver(field(message, "f", bytes, most=1 << 20))
            elif kind == "resend":
                start = field(message, "from", int, most=1 << 40)
                self.left_elsewhere.update(self._seats_in(message.get("left", [])))
                missing = await self.runner.peer_holds(seat, start)
                if missing is not None:  # it holds frames of ours our saved file lost: ask for them
                    link.send({"t": "mine", "from": missing})
                for frame in await self.runner.own_frames_from(start):
                    link.send({"t": "frame", "f": frame})
            elif kind == "mine":  # it lost the tail of its file: its own frames we hold
                start = field(message, "from", int, most=1 << 40)
                for frame in await self.runner.chain_frames(seat, start):
                    link.send({"t": "frame", "f": frame})
            elif kind == "ping":
                link.send({"t": "pong"})
            elif kind == "pong":
                pass
            elif kind == "watching":  # spectators: only the host's count is shown
                count = field(message, "n", int, most=1 << 16)
                if seat == HOST_SEAT:
                    self.runner.set_watching(count)
            elif kind == "bye":
                self.said_bye.add(seat)
                return
            else:
                raise LinkError(f"unexpected link message {kind!r}")

    def _seats_in(self, value: object) -> set[int]:
        """The seat numbers of a `resend` message's `left` (a `LinkError` if it is not a short
        list of this table's seats)."""
        players = self.config.players
        if not isinstance(value, list) or len(value) > players:
            raise LinkError("resend.left must be a list of seats")
        seats = set()
        for seat in value:
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
                raise LinkError("resend.left must be a list of seats")
            seats.add(seat)
        return seats - {self.seat}

    async def _heartbeats(self) -> None:
        while True:
            await trio.sleep(self.heartbeat)
            now = trio.current_time()
            for seat, link in list(self.links.items()):
                if now - link.last_received > self.dead_after:
                    log.warning(
                        "no word from seat %s for %.0f s: closing the link", seat, now - link.last_received
                    )
                    await link.aclose()
                else:
                    link.send({"t": "ping"})
