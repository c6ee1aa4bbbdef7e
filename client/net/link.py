"""One authenticated TCP connection between two programs (see `linkproto` for the messages).

`Link` owns its stream: a single writer task drains a bounded queue (one writer per stream; a
peer that cannot keep up has its link closed and resynchronised on reconnection rather than
stalling the table), and `receive` returns the next link message or None at the end. The
handshake functions authenticate both ends before anything else is read or trusted.

A game link also binds the whole table: each end states the hash of the genesis it holds (`hello` /
`welcome` field ``genesis``) and both signatures cover both hashes, so two seats holding different
tables under one session id learn it authentically at the handshake and refuse each other
(`GenesisDiffers`) before any game frame. Each then shows the other its genesis as the host signed
it (``proof`` in the listener's `auth`, in the dialer's `refused`), which is evidence against a
host that signed two tables; it is shown only to a seated, authenticated peer.
"""

from __future__ import annotations

import contextlib
import errno
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn, Protocol

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import PROTOCOL_VERSION

from .framing import FrameReader, FramingError, encode_frame
from .guard import Admission, Refusal, source_key
from .linkproto import (
    LINK_VERSION,
    LinkError,
    PeerIdentity,
    auth_payload,
    check_signature,
    confirm,
    field,
    nonce,
    pack,
    sign,
    unpack,
)

log = logging.getLogger("skyjo_lan.link")

HANDSHAKE_TIMEOUT = 10.0
SEND_QUEUE = 20_000
REMOTE_ERRORS = (
    LinkError,
    FramingError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
    trio.TooSlowError,
    OSError,
)
"""What the other end of a connection can make our side raise, with its socket (a reset, a
close, a stall) or its bytes (garbage, a refusal): the end of that connection, never a bug."""
MAX_NAME = 32


class Stalled(LinkError):
    """The other end did not complete the handshake in time (a stalled or half-sent message)."""


class Refused(LinkError):
    """The other end refused us (wrong password, table full, not seated...), with its reason."""


class WrongPassword(Refused):
    """The dialer gave a wrong password (the listener's side: counted by its `PasswordGate`)."""


class PasswordGate(Protocol):
    """How `accept` reports password tries to the guessing limits (`guard.PasswordTry`)."""

    def may_try(self) -> str | None:
        """Before any SPAKE2 work: None to go on (the try is counted from now), else the reason
        to refuse this connection (its source has to wait)."""
        ...

    def tried(self, right: bool) -> None:
        """The password was checked: right or wrong."""
        ...


Proof = tuple[bytes, bytes]
"""A genesis as the host handed it out: (its bytes, the host's signature)."""


@dataclass(frozen=True)
class TableClaim:
    """What a game link is for beyond the session id: `genesis` is the hash of the whole genesis
    this end holds (bound by both signatures); `proof` is shown to a seated peer that holds
    another one (None when this end has no host signature)."""

    genesis: bytes
    proof: Proof | None = None


class GenesisDiffers(LinkError):
    """The other end proved its identity but holds another genesis for this session id.

    `genesis` is the hash it holds; `proof` what it showed of it, if anything (unchecked: the
    caller knows which host key should have signed it)."""

    def __init__(self, peer: PeerIdentity, genesis: bytes, proof: Proof | None) -> None:
        super().__init__(
            f"{peer.name} holds a different table than ours (genesis differs): "
            "the host gave us different tables"
        )
        self.peer = peer
        self.genesis = genesis
        self.proof = proof


class Link:
    """An authenticated connection: one writer task, bounded send queue, `receive` for reading."""

    def __init__(
        self, stream: trio.SocketStream | trio.abc.Stream, reader: FrameReader, peer: PeerIdentity
    ) -> None:
        self.stream = stream
        self.reader = reader
        self.peer = peer
        self._send, self._queue = trio.open_memory_channel[bytes](SEND_QUEUE)
        self.closed = False
        self.last_received = trio.current_time()
        self._writing = False

    async def writer(self) -> None:
        """The only task that writes to the stream."""
        try:
            async for data in self._queue:
                self._writing = True
                await self.stream.send_all(data)
                self._writing = False
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            log.info("link to %s broke while sending: %s", self.peer.name, exc)
        finally:
            await self.aclose()

    def send(self, message: dict[str, Any]) -> bool:
        """Queue a message; False (and the link closes) if the peer is too far behind."""
        if self.closed:
            return False
        try:
            self._send.send_nowait(encode_frame(pack(message)))
            return True
        except trio.WouldBlock:
            log.warning("link to %s is %d messages behind: closing it", self.peer.name, SEND_QUEUE)
            self.closed = True
            self._send.close()
            return False
        except trio.ClosedResourceError:
            return False

    async def drain(self) -> None:
        """Wait until every queued message is written to the stream (or the link closed): what a
        program that is about to end sent last must leave it first (its `stepout`)."""
        while not self.closed and (self._send.statistics().current_buffer_used or self._writing):
            await trio.sleep(0.02)

    async def receive(self) -> dict[str, Any] | None:
        """The next message, or None when the stream ends. Raises LinkError/FramingError on bad data."""
        data = await self.reader.read()
        if data is None:
            return None
        self.last_received = trio.current_time()
        return unpack(data)

    async def aclose(self) -> None:
        self.closed = True
        self._send.close()
        with trio.CancelScope(shield=True), trio.move_on_after(1):
            await self.stream.aclose()


@contextmanager
def _deadline() -> Iterator[None]:
    """The whole handshake must finish within HANDSHAKE_TIMEOUT; a stall is a clear error."""
    try:
        with trio.fail_after(HANDSHAKE_TIMEOUT):
            yield
    except trio.TooSlowError:
        raise Stalled(f"the handshake stalled (not completed within {HANDSHAKE_TIMEOUT:g} s)") from None


async def _send_now(stream: trio.abc.Stream, message: dict[str, Any]) -> None:
    await stream.send_all(encode_frame(pack(message)))


async def _expect(reader: FrameReader, kind: str) -> dict[str, Any]:
    data = await reader.read()
    if data is None:
        raise LinkError(f"connection closed during the handshake (waiting for {kind})")
    message = unpack(data)
    if message["t"] == "refused":
        raise Refused(str(message.get("reason", "refused"))[:200])
    if message["t"] != kind:
        raise LinkError(f"expected {kind} during the handshake, got {message['t']!r}")
    return message


def _proof_fields(claim: TableClaim) -> dict[str, Any]:
    if claim.proof is None:
        return {}
    return {"proof": list(claim.proof)}


def _proof(message: dict[str, Any] | None) -> Proof | None:
    """The proof in a message, if it has a well-formed one (its content is the caller's to check)."""
    value = (message or {}).get("proof")
    if (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], bytes)
        and len(value[0]) <= 4096
        and isinstance(value[1], bytes)
        and len(value[1]) == 64
    ):
        return value[0], value[1]
    return None


def _genesis(message: dict[str, Any]) -> bytes:
    """The genesis hash a hello/welcome states (b"": none, a program that does not bind it)."""
    if "genesis" not in message:
        return b""
    return bytes(field(message, "genesis", bytes, size=32))


def _other_version(message: dict[str, Any]) -> str | None:
    """The other end's protocol version (`pv`, sent since version 4) if it is not ours: the frames
    of another version would be refused one by one deep into the game (another shuffle proof,
    another table), so two versions never get past the handshake."""
    theirs = message.get("pv")
    if theirs == PROTOCOL_VERSION:
        return None
    if isinstance(theirs, int) and 0 < theirs < 1000:
        return str(theirs)
    return f"{PROTOCOL_VERSION - 1} or older"


SAME_VERSION = "every player needs the same version of skyjo-lan"


def _bound(table: bytes, dialer_genesis: bytes, listener_genesis: bytes) -> bytes:
    """What the signatures bind as "the table": the session id and both stated genesis hashes."""
    return table + dialer_genesis + listener_genesis


def _name(message: dict[str, Any]) -> str:
    name = field(message, "name", str, most=MAX_NAME)
    return "".join(ch for ch in name if ch.isprintable()) or "?"


async def dial(
    stream: trio.abc.Stream,
    identity: Ed25519PrivateKey,
    *,
    name: str,
    role: str,
    table: bytes,
    port: int,
    password: str | None = None,
    expect_key: bytes | None = None,
    extra: dict[str, Any] | None = None,
    claim: TableClaim | None = None,
) -> tuple[Link, dict[str, Any]]:
    """Run the dialer's side of the handshake. Returns the link and the listener's `accepted`.

    With a `claim` (game links) the listener must hold the same genesis, else `GenesisDiffers`."""
    reader = FrameReader(stream)
    mine = identity.public_key().public_bytes_raw()
    my_nonce = nonce()
    with trio.fail_after(HANDSHAKE_TIMEOUT):
        hello = {
            "t": "hello",
            "v": LINK_VERSION,
            "pv": PROTOCOL_VERSION,
            "role": role,
            "name": name[:MAX_NAME],
            "key": mine,
            "nonce": my_nonce,
            "port": port,
            "table": table,
        }
        hello.update(extra or {})
        if claim is not None:
            hello["genesis"] = claim.genesis
        await _send_now(stream, hello)
        welcome = await _expect(reader, "welcome")
        if field(welcome, "v", int) != LINK_VERSION:
            raise LinkError(f"the other end speaks link version {welcome['v']}")
        if (other := _other_version(welcome)) is not None:
            raise Refused(
                f"the other end runs another version of skyjo-lan (protocol version {other}; "
                f"this one speaks {PROTOCOL_VERSION}): {SAME_VERSION}"
            )
        their_key = field(welcome, "key", bytes, size=32)
        their_nonce = field(welcome, "nonce", bytes, size=32)
        if expect_key is not None and their_key != expect_key:
            raise LinkError("the other end is not the peer we expected (identity key differs)")
        mine_genesis = claim.genesis if claim is not None else b""
        their_genesis = _genesis(welcome)
        if claim is not None and not their_genesis:
            raise LinkError("the other end does not state its table's genesis (an older program?)")
        bound = _bound(table, mine_genesis, their_genesis)
        pake_key = b""
        if welcome.get("pake"):
            if password is None:
                raise Refused("this table needs a password (--password)")
            from spake2 import SPAKE2_A, SPAKEError  # here: its import cost every start about 40 ms

            pake = SPAKE2_A(password.encode(), idA=mine, idB=their_key)
            await _send_now(stream, {"t": "pake", "msg": pake.start()})
            reply = await _expect(reader, "pake")
            try:
                pake_key = pake.finish(field(reply, "msg", bytes, most=128))
            except (SPAKEError, ValueError) as exc:
                raise LinkError(f"password exchange failed: {exc}") from None
        payload = auth_payload(mine, my_nonce, their_key, their_nonce, bound, pake_key)
        auth: dict[str, Any] = {"t": "auth", "sig": sign(identity, payload, b"dialer")}
        if pake_key:
            auth["confirm"] = confirm(pake_key, payload, b"dialer")
        await _send_now(stream, auth)
        reply = await _expect(reader, "auth")
        check_signature(their_key, field(reply, "sig", bytes, size=64), payload, b"listener")
        if pake_key and reply.get("confirm") != confirm(pake_key, payload, b"listener"):
            raise LinkError("password confirmation failed")
        peer = PeerIdentity(their_key, _name(welcome), 0, "")
        if claim is not None and their_genesis != claim.genesis:
            failure = GenesisDiffers(peer, their_genesis, _proof(reply))
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await _send_now(stream, {"t": "refused", "reason": str(failure), **_proof_fields(claim)})
            raise failure
        accepted = await _expect(reader, "accepted")
    return Link(stream, reader, peer), accepted


Admit = Callable[[PeerIdentity, dict[str, Any]], "str | None"]
"""(the dialer's identity, its hello) -> None to admit it, or the reason to refuse."""


async def accept(
    stream: trio.SocketStream,
    identity: Ed25519PrivateKey,
    *,
    name: str,
    table: bytes,
    password: str | None,
    admit: Admit,
    accepted: Callable[[PeerIdentity, dict[str, Any]], dict[str, Any]],
    claim: TableClaim | None = None,
    gate: PasswordGate | None = None,
) -> tuple[Link, dict[str, Any]]:
    """Run the listener's side. `admit` decides after authentication; `accepted` builds the reply.

    With a `claim` (game links) the dialer must hold the same genesis, else `GenesisDiffers`.
    With a password, `gate` may refuse the try before any SPAKE2 work (its source is guessing
    too often) and hears whether the password was right; a wrong one raises `WrongPassword`."""
    reader = FrameReader(stream)
    mine = identity.public_key().public_bytes_raw()
    my_nonce = nonce()
    with _deadline():
        hello = await _expect(reader, "hello")
        if field(hello, "v", int) != LINK_VERSION:
            await _send_now(stream, {"t": "refused", "reason": f"link version {LINK_VERSION} only"})
            raise LinkError(f"dialer speaks link version {hello['v']}")
        their_key = field(hello, "key", bytes, size=32)
        their_nonce = field(hello, "nonce", bytes, size=32)
        their_table = field(hello, "table", bytes, most=64)
        port = field(hello, "port", int, most=65535)
        field(hello, "role", str, most=16)
        if (other := _other_version(hello)) is not None:  # (a malformed hello is refused above, unanswered)
            told = f"this table runs protocol version {PROTOCOL_VERSION} and you {other}: {SAME_VERSION}"
            await _send_now(stream, {"t": "refused", "reason": told})
            raise Refused(f"the dialer speaks protocol version {other}, not {PROTOCOL_VERSION}")
        their_genesis = _genesis(hello)
        mine_genesis = claim.genesis if claim is not None else b""
        if their_table != table:
            await _send_now(stream, {"t": "refused", "reason": "not this table"})
            raise LinkError("dialer asked for another table")
        if password is not None and gate is not None and (why := gate.may_try()) is not None:
            await _send_now(stream, {"t": "refused", "reason": why})
            raise Refused(why)
        welcome: dict[str, Any] = {
            "t": "welcome",
            "v": LINK_VERSION,
            "pv": PROTOCOL_VERSION,
            "key": mine,
            "nonce": my_nonce,
            "name": name[:MAX_NAME],
            "pake": password is not None,
            "table": table,
        }
        if claim is not None:
            welcome["genesis"] = claim.genesis
        await _send_now(stream, welcome)
        pake_key = b""
        if password is not None:
            message = await _expect(reader, "pake")
            from spake2 import SPAKE2_B, SPAKEError  # here: its import cost every start about 40 ms

            pake = SPAKE2_B(password.encode(), idA=their_key, idB=mine)
            out = pake.start()
            try:
                pake_key = pake.finish(field(message, "msg", bytes, most=128))
            except (SPAKEError, ValueError) as exc:
                raise LinkError(f"password exchange failed: {exc}") from None
            await _send_now(stream, {"t": "pake", "msg": out})
        auth = await _expect(reader, "auth")
        payload = auth_payload(
            their_key, their_nonce, mine, my_nonce, _bound(table, their_genesis, mine_genesis), pake_key
        )
        # the password first: with a wrong one the two ends sign different payloads, and the
        # player should hear "wrong password", not that their identity could not be checked
        if pake_key and auth.get("confirm") != confirm(pake_key, payload, b"dialer"):
            if gate is not None:
                gate.tried(False)
            await _send_now(stream, {"t": "refused", "reason": "wrong password"})
            raise WrongPassword("wrong password")
        if pake_key and gate is not None:
            gate.tried(True)
        check_signature(their_key, field(auth, "sig", bytes, size=64), payload, b"dialer")
        peer = PeerIdentity(their_key, _name(hello), port, _remote_host(stream))
        # admitted before anything more is said: only a seated peer sees our genesis proof
        reason = admit(peer, hello)
        if reason is None and claim is not None and not their_genesis:
            reason = "your program does not state the table's genesis (update it)"
        if reason is not None:
            await _send_now(stream, {"t": "refused", "reason": reason})
            raise Refused(reason)
        differs = claim is not None and their_genesis != claim.genesis
        reply: dict[str, Any] = {"t": "auth", "sig": sign(identity, payload, b"listener")}
        if pake_key:
            reply["confirm"] = confirm(pake_key, payload, b"listener")
        if differs and claim is not None:
            reply.update(_proof_fields(claim))
        await _send_now(stream, reply)
        if differs:
            # the dialer answers our proof with its own (in its `refused`) unless it is gone
            theirs: dict[str, Any] | None = None
            with (
                trio.move_on_after(HANDSHAKE_TIMEOUT / 2),
                contextlib.suppress(LinkError, FramingError, trio.BrokenResourceError, OSError),
            ):
                data = await reader.read()
                theirs = unpack(data) if data is not None else None
            failure = GenesisDiffers(peer, their_genesis, _proof(theirs))
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await _send_now(stream, {"t": "refused", "reason": str(failure)})
            raise failure
        answer = accepted(peer, hello)
        await _send_now(stream, {"t": "accepted", **answer})
    return Link(stream, reader, peer), hello


# --- listening: handshake caps and refusals (see `guard`) ----------------------------------------

CAPACITY_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS})
"""What accept(2) says when the process or the system is out of descriptors or memory."""

REFUSE_LINGER = 1.0
"""How long a refusal before the handshake waits for the dialer's hello (read, then dropped):
closing on unread data would reset the connection and lose the reason."""


class Handshake:
    """One accepted connection's place under the handshake caps, until `done` (idempotent; the
    serving loop calls it at the latest when the handler returns)."""

    def __init__(self, admission: Admission, source: str) -> None:
        self.admission = admission
        self.source = source
        self._open = True
        self.scope = trio.CancelScope()
        """Cancelled when a less busy address needs the place (`guard.HandshakeCaps`)."""
        self._ticket = admission.started(source, self.scope.cancel)

    def done(self) -> None:
        if self._open:
            self._open = False
            self.admission.finished(self.source, self._ticket)


async def refuse(stream: trio.SocketStream, reason: str) -> None:
    """Tell a dialer why it is refused before any handshake work, then close the connection."""
    with (
        trio.move_on_after(REFUSE_LINGER),
        contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError),
    ):
        await _send_now(stream, {"t": "refused", "reason": reason})
        await stream.send_eof()
        for _ in range(16):  # the hello, then the dialer's close
            if not await stream.receive_some(4096):
                break
    await trio.aclose_forcefully(stream)


async def serve(
    listener: trio.SocketListener,
    handler: Callable[[trio.SocketStream, Handshake], Awaitable[None]],
    admission: Admission,
    *,
    what: str,
    expected: Callable[[str], bool] | None = None,
    say: Callable[[str], None] | None = None,
) -> NoReturn:
    """Accept connections on `listener` for ever, each handled by `handler` in its own task.

    Unlike `trio.serve_listeners`, it applies `admission` before any work: a connection over the
    handshake caps is closed at once, one from a source still waiting after wrong passwords is
    told why (`refuse`); such refusals are logged once per source and interval (`say` when given,
    else a warning). Running out of descriptors (EMFILE, ENFILE) pauses accepting, logged once per
    interval, without a traceback. `expected(source)`: the address of a seat of this table (not
    bound by the total cap). `what` names the listener in the log."""
    pause = 0.0
    async with listener, trio.open_nursery() as nursery:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in CAPACITY_ERRNOS:
                    raise
                now = trio.current_time()
                missed = admission.log.note("accept:" + what, now)
                if missed is not None:
                    log.warning(
                        "%s: cannot accept a connection (%s): pausing%s",
                        what,
                        exc.strerror or errno.errorcode.get(exc.errno or 0, "?"),
                        f" ({missed} more since the last report)" if missed else "",
                    )
                pause = min(1.0, max(0.05, pause * 2))
                await trio.sleep(pause)
                continue
            pause = 0.0
            source = _remote_host(stream)
            now = trio.current_time()
            refusal = admission.may_start(source, now, expected=bool(expected and expected(source)))
            if refusal is not None:
                _log_refusal(admission, what, source, refusal, now, say)
                if refusal.quiet:
                    await trio.aclose_forcefully(stream)
                    continue
                # told why: that holds a descriptor for up to REFUSE_LINGER, so it counts as a handshake
                nursery.start_soon(_refuse_counted, stream, Handshake(admission, source), refusal.reason)
                continue
            nursery.start_soon(_handle_counted, handler, stream, Handshake(admission, source))


async def _refuse_counted(stream: trio.SocketStream, handshake: Handshake, reason: str) -> None:
    try:
        with handshake.scope:
            await refuse(stream, reason)
    finally:
        handshake.done()


async def _handle_counted(
    handler: Callable[[trio.SocketStream, Handshake], Awaitable[None]],
    stream: trio.SocketStream,
    handshake: Handshake,
) -> None:
    try:
        with handshake.scope:
            await handler(stream, handshake)
    except* REMOTE_ERRORS as group:
        # what the remote end did with its socket or its bytes (a reset, a close, garbage, a
        # stall), met anywhere in the handler, even as an exception group from a nursery,
        # ends this connection only: never the listener, nor the program around it
        log.info("a connection ended: %s", "; ".join(str(e) or type(e).__name__ for e in group.exceptions))
    finally:
        handshake.done()
        await trio.aclose_forcefully(stream)


def _log_refusal(
    admission: Admission,
    what: str,
    source: str,
    refusal: Refusal,
    now: float,
    say: Callable[[str], None] | None,
) -> None:
    # a full house is one line whatever the number of addresses; anything else once per address
    key = refusal.kind if refusal.kind == "full" else f"{refusal.kind}:{source_key(source)}"
    missed = admission.log.note(key, now)
    if missed is None:
        return
    how = "closed at once" if refusal.quiet else "told to wait"
    more = f"; {missed} more not logged since" if missed else ""
    line = f"{what}: refusing connections from {source}: {refusal.reason} ({how}{more})"
    if say is not None:
        say(line)
    else:
        log.warning("%s", line)


def _remote_host(stream: trio.abc.Stream) -> str:
    try:
        address = stream.socket.getpeername()  # type: ignore[attr-defined]
        return str(address[0])
    except (AttributeError, OSError):
        return ""


__all__ = [
    "REMOTE_ERRORS",
    "FramingError",
    "GenesisDiffers",
    "Handshake",
    "Link",
    "LinkError",
    "PasswordGate",
    "Proof",
    "Refused",
    "Stalled",
    "TableClaim",
    "WrongPassword",
    "accept",
    "dial",
    "refuse",
    "serve",
]
