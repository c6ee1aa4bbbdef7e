"""Typed errors of the agreement layer.

Two families: input that cannot be attributed to anyone (bytes that are not a frame, a forged
signature: `MalformedMessage`, `BadSignature`), and faults a seat is answerable for
(`Misbehaviour`: an invalid proof, an illegal move, a message out of step, equivocation, a
timeout). The session turns the second family into a `Blamed` event naming the seat. Between
the two, `MalformedSignedFrame` is a `MalformedMessage` that its sender did sign: it is blamed.
"""

from __future__ import annotations


class ProtocolError(Exception):
    """Base of every error the protocol layer raises."""

    @property
    def reason(self) -> str:
        return str(self.args[0]) if self.args else type(self).__name__


class GroupUnavailable(ImportError):
    """The group's library could not be loaded on this machine (`protocol.crypto.group`).

    An `ImportError` because it is raised while `protocol.crypto` is imported; the message says
    what was tried and what the user can do.
    """


class MalformedMessage(ProtocolError):
    """Bytes that are not a well-formed frame or message of this protocol version."""


class MalformedSignedFrame(MalformedMessage):
    """A frame whose signature by `seat` verifies but whose contents are malformed.

    The frame is refused like any malformed bytes, but unlike them it is attributable: only
    `seat` could have signed it for this session, so the session blames that seat (`frame` is
    the evidence).
    """

    def __init__(self, reason: str, seat: int, frame: bytes) -> None:
        super().__init__(reason)
        self.seat = seat
        self.frame = frame


class BadSignature(ProtocolError):
    """A frame whose signature does not verify under the claimed seat's identity key."""


class Misbehaviour(ProtocolError):
    """A fault attributable to `seat` (signed by it, or a step it failed to take in time)."""

    def __init__(self, seat: int, reason: str, evidence: tuple[bytes, ...] = ()) -> None:
        super().__init__(reason)
        self.seat = seat
        self.evidence = evidence


class SessionHalted(ProtocolError):
    """The session stopped after a fault; no more moves can be played in it."""


class RemovalRefused(ProtocolError):
    """Our player cannot propose, agree to or refuse the removal of a program now (PROTOCOL.md
    10.9, "Removing a player"). `code` says why, for a driver to word it: "observer", "uninsured"
    (an uninsured table cannot play a seat on), "no-game" (before the game runs, or after it),
    "stopped", "unknown" (no such program), "own" (our own program), "gone" (the table already
    plays its seats), "vote" (a vote that a program vanished is open about it), "voted" (we
    already answered in this attempt), "none" (no proposal to refuse)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
