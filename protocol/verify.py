"""Offline verification of a saved game: `skyjo-lan verify FILE`.

An observer session (no seat, no secrets) is fed every frame of the transcript. It checks each
signature and hash chain, every key proof, shuffle proof and decryption share, every move against
the rules, every joint coin, and that every seat signed the same transcript hash at each round's
end; the engine recomputes the scores from the publicly revealed cards. The result is the game's
outcome, or the first fault and the seat to blame.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import MalformedMessage
from .events import Blamed, FrameRejected, Halted, RoundSigned
from .session import Session
from .transcript import load_checked


@dataclass
class Verdict:
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "game": self.game,
            "players": self.players,
            "names": list(self.names),
            "frames": self.frames,
            "rounds_signed": self.rounds_signed,
            "finished": self.finished,
            "round": self.round,
            "totals": self.totals,
            "winners": self.winners,
            "fault": self.fault,
            "truncated": self.truncated,
            "blame": self.blame,
            "rejected_frames": self.rejected,
        }


def verify_bytes(data: bytes) -> Verdict:
    """Check a transcript file's contents. Raises `MalformedMessage` if it is not a transcript."""
    config, frames, truncated = load_checked(data)
    observer = Session(config, None, None)
    observer.start()
    verdict = Verdict(
        True, config.game, config.players, tuple(config.names), len(frames), truncated=truncated
    )
    for frame in frames:
        observer.receive_frame(frame)
        for event in observer.next_events():
            if isinstance(event, FrameRejected):
                verdict.rejected.append(event.reason)
            elif isinstance(event, RoundSigned):
                verdict.rounds_signed += 1
            elif isinstance(event, Blamed) and verdict.blame is None:
                verdict.valid = False
                verdict.blame = event.seat
                verdict.fault = event.reason
            elif isinstance(event, Halted) and verdict.fault is None:
                verdict.valid = False
                verdict.fault = event.reason
        if observer.halted:
            break
    observer.check_postponed()  # a transcript may stop after a bad shuffle whose check was put off
    for event in observer.next_events():
        if isinstance(event, Blamed) and verdict.blame is None:
            verdict.valid = False
            verdict.blame = event.seat
            verdict.fault = event.reason
    if observer.disputes and verdict.fault is None:  # live, a timer decides; offline, nothing can
        seat, seq = observer.disputes[0]
        verdict.valid = False
        verdict.fault = (
            f"an echo disagrees with frame #{seq} of seat {seat} and no signed frame in the "
            "transcript settles it"
        )
    if verdict.rejected and verdict.valid:
        verdict.valid = False
        verdict.fault = (
            f"{len(verdict.rejected)} frame(s) are not valid frames of this game: {verdict.rejected[0]}"
        )
    state = observer.state
    if state is not None:
        verdict.round = state.round
        verdict.totals = list(state.totals)
        verdict.finished = state.phase == "game_over"
        verdict.winners = list(state.winners)
    return verdict


__all__ = ["MalformedMessage", "Verdict", "verify_bytes"]
