"""`--resume`: continue a game after a crash from its transcript and its .resume file.

The transcript is first cut back to its last whole, valid record (`_saved_frames`); the session
is rebuilt from it and the peer rejoins the mesh.
"""

from __future__ import annotations

import logging
import secrets

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net import ports
from client.net.link import LinkError, Refused
from protocol.config import TableConfig
from protocol.errors import MalformedMessage
from protocol.transcript import header, valid_prefix
from skyjo_p2p.bots import make_bot

from .peer import PeerRunner
from .saved import ResumeInfo, bots_of
from .seat import Peer, Say, open_listener, print_line

log = logging.getLogger("skyjo_lan.net")


async def resume(
    identity: Ed25519PrivateKey, info: ResumeInfo, headless: str | None, say: Say = print_line
) -> PeerRunner:
    """Continue a game after a crash: rebuild the session from the transcript, rejoin the mesh."""
    peer = await restore(identity, info, headless, say)
    return await peer.play(say)


async def restore(
    identity: Ed25519PrivateKey, info: ResumeInfo, headless: str | None, say: Say = print_line
) -> Peer:
    """The seat of a game to continue, its session rebuilt from the transcript (`Peer.runner`
    ready for a screen), not yet back in the mesh (`Peer.play` rejoins it).

    The transcript is first cut back to its last whole, valid record (a kill mid-write leaves a
    torn one, a bad disk a corrupt one): appended after such a record, the rest of the game
    would be unreadable. What is cut is said; the other seats send those frames again."""
    keep, frames, cut = _saved_frames(info)
    config = TableConfig.decode(info.genesis)
    if config.identities[info.seat] != identity.public_key().public_bytes_raw():
        raise LinkError("this game was played with another identity key")
    if cut:
        log.warning("resume: %s", cut)
        say(cut)
    listener = await _listener_again(info, say)
    policy = make_bot(headless, config.game, secrets.token_hex(8)) if headless else None
    peer = Peer(
        config,
        info.seat,
        identity,
        listener,
        info.addresses,
        policy,
        resume=info,
        genesis_signature=info.genesis_signature,
    )
    peer.build(restored=(frames, info.secrets), keep=keep)
    say(f"resuming {config.game} as seat {info.seat + 1} from {len(frames)} saved frames")
    for bot in bots_of(info):
        try:
            peer.companions.append(await _restore_bot(bot, say))
        except (LinkError, OSError, ValueError) as exc:  # its seat stays silent: the table plays it
            log.warning("resume: the bot of seat %d cannot be resumed: %s", bot.seat + 1, exc)
            say(f"the bot of seat {bot.seat + 1} cannot be resumed ({exc}): the table plays its seat")
    return peer


async def _restore_bot(info: ResumeInfo, say: Say) -> Peer:
    """A seat one of the host's bots played, rebuilt from its own saved game and identity."""
    keep, frames, cut = _saved_frames(info)
    config = TableConfig.decode(info.genesis)
    identity = Ed25519PrivateKey.from_private_bytes(info.identity)
    if config.identities[info.seat] != identity.public_key().public_bytes_raw():
        raise LinkError("its saved identity key is not its seat's")
    if cut:
        log.warning("resume (bot of seat %d): %s", info.seat + 1, cut)
    listener = await _listener_again(info, say, f"the bot of seat {info.seat + 1}: ")
    bot = Peer(
        config,
        info.seat,
        identity,
        listener,
        info.addresses,
        make_bot(info.bot, config.game, secrets.token_hex(8)),
        resume=info,
        genesis_signature=info.genesis_signature,
        bot_level=info.bot,
    )
    bot.build(restored=(frames, info.secrets), keep=keep)
    say(f"resuming the bot of seat {info.seat + 1} from {len(frames)} saved frames")
    return bot


async def _listener_again(info: ResumeInfo, say: Say, who: str = "") -> trio.SocketListener:
    """A listener on the port the game had, where the lower seats dial this one; if another
    program took it since, on another port of the range. The mesh then tells the lower seats
    where (`Mesh` "moved"), and the .resume file keeps the new port for a later resume."""
    try:
        return await open_listener(info.host, info.port)
    except OSError as exc:
        if not ports.taken(exc):
            raise
    listener = await open_listener(info.host)
    port = int(listener.socket.getsockname()[1])
    told = f"{who}port {info.port} is taken by another program: listening on {port}, the other seats are told"
    log.warning("resume: %s", told)
    say(told)
    info.port = port
    return listener


def _saved_frames(info: ResumeInfo) -> tuple[int, list[bytes], str]:
    """The saved game's valid prefix: its length, its frames, and what is cut after it (a line
    to show; empty when nothing is). `LinkError` if it is not this game's transcript."""
    path = info.transcript
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LinkError(f"cannot read the saved game {path}: {exc.strerror or exc}") from None
    try:
        config = TableConfig.decode(info.genesis)
    except MalformedMessage as exc:
        raise LinkError(f"{info.path} is damaged: {exc.reason}") from None
    first = header(config)
    if len(data) < len(first) and first.startswith(data):  # killed while writing the header
        torn = f"the saved game {path} was cut while its table was being written: {len(data)} bytes cut"
        return 0, [], torn if data else ""
    try:
        prefix = valid_prefix(data)
    except MalformedMessage as exc:
        raise LinkError(f"the saved game {path} is not readable: {exc.reason}") from None
    if prefix.config.encode() != info.genesis:
        raise LinkError("the resume file does not match its transcript")
    if info.seat in prefix.cut_seats or None in prefix.cut_seats:
        # A whole record of ours may be a frame the others already hold: made anew on resume it
        # would differ, and two versions of one frame are equivocation (this seat blamed as a
        # cheat). Not resuming only makes this seat absent. (A torn record was never sent.)
        raise Refused(
            f"cannot resume from {path}: after {len(prefix.frames)} frames it holds "
            f"{prefix.reason}, and the damaged part holds frames of this seat (or records that "
            "cannot be read) that the others may already hold; made anew they would differ "
            "(equivocation). The others will stop the game and name this seat absent, not a cheat"
        )
    cut = ""
    if prefix.cut_bytes:
        cut = (
            f"the saved game {path} ended with {prefix.reason}: {prefix.cut_bytes} bytes "
            f"({prefix.cut_records} record(s)) cut after {len(prefix.frames)} frames; the other "
            "seats send what is missing again"
        )
    return prefix.length, prefix.frames, cut
