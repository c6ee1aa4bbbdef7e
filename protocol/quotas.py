"""Quotas on what one seat can make the others hold or send (floods), counted by one peer.

Why a module of its own: the counting is a small state machine of its own (windows reset by a
seat's game frames and round signatures) and its bounds are tuned together; the Session only
says what arrived and what it sent, and asks before relaying.
"""

from __future__ import annotations

from .errors import Misbehaviour
from .messages import SIDE_KINDS, Envelope

SIDE_WINDOW_FRAMES = 4096
SIDE_WINDOW_BYTES = 8 << 20
"""At most this many side frames (and bytes) from one seat between two of its game frames: an
honest peer sends far fewer (an echo per received game frame, some relays). Counted on the
seat's own chain, so every peer finds the same crossing: the seat is blamed with that frame."""
ROUND_SIDE_FRAMES = 20_000
ROUND_SIDE_BYTES = 8 << 20
"""At most this many side frames (and bytes) from one seat between two of its round signatures:
the windows above bound a burst, these bound a whole round (an honest peer sends an echo per game
frame of the others, a few hundred a round, and relays within `RELAY_BUDGET`)."""
RELAY_BUDGET = 4 << 20
"""Bytes of relays (evidence, answers to `want`) this peer sends in a round, and half that between
two of its game messages: an honest peer stays far inside its own quotas whatever it is asked."""
MAX_CHAT = 1000
"""Chat messages one seat may send in a game."""


class Quotas:
    """The side frames each other seat sent since its last game frame and its last round signature
    (a crossing blames it), and the bytes we relayed (we never cross our own quotas)."""

    def __init__(self, players: int, me: int | None) -> None:
        self.me = me
        self.side_count = [0] * players
        self.side_bytes = [0] * players
        self.round_side_count = [0] * players
        self.round_side_bytes = [0] * players
        self.chat_count = [0] * players
        self.relayed_window = 0
        self.relayed_round = 0

    def game_frame(self, envelope: Envelope) -> None:
        """A game frame of a seat took its place in the chain: its side windows start again."""
        seat = envelope.seat
        self.side_count[seat] = self.side_bytes[seat] = 0
        if envelope.kind == "roundsig":
            self.round_side_count[seat] = self.round_side_bytes[seat] = 0

    def side_frame(self, envelope: Envelope) -> None:
        """Count another seat's side frame (see SIDE_WINDOW_FRAMES); `Misbehaviour` past a quota."""
        seat = envelope.seat
        if seat == self.me:
            return
        self.side_count[seat] += 1
        self.side_bytes[seat] += len(envelope.frame)
        self.round_side_count[seat] += 1
        self.round_side_bytes[seat] += len(envelope.frame)
        if self.round_side_count[seat] > ROUND_SIDE_FRAMES or self.round_side_bytes[seat] > ROUND_SIDE_BYTES:
            raise Misbehaviour(
                seat,
                f"sent more than {ROUND_SIDE_FRAMES} side messages or {ROUND_SIDE_BYTES >> 20} MiB "
                "in one round (flood)",
                (envelope.frame,),
            )
        if envelope.kind == "chat":
            self.chat_count[seat] += 1
            if self.chat_count[seat] > MAX_CHAT:
                raise Misbehaviour(
                    seat, f"sent more than {MAX_CHAT} chat messages (flood)", (envelope.frame,)
                )
        if self.side_count[seat] > SIDE_WINDOW_FRAMES or self.side_bytes[seat] > SIDE_WINDOW_BYTES:
            raise Misbehaviour(
                seat,
                f"sent more than {SIDE_WINDOW_FRAMES} side messages or {SIDE_WINDOW_BYTES >> 20} MiB "
                "between two of its game messages (flood)",
                (envelope.frame,),
            )

    def sent(self, kind: str, size: int) -> None:
        """We sent a frame of `kind`: relays count against our budget, game messages renew it."""
        if kind == "evidence":
            self.relayed_window += size
            self.relayed_round += size
        elif kind not in SIDE_KINDS:
            self.relayed_window = 0
            if kind == "roundsig":
                self.relayed_round = 0

    def may_relay(self, size: int) -> bool:
        """Within our relay budget (see RELAY_BUDGET): we never cross our own quotas."""
        return self.relayed_round + size <= RELAY_BUDGET and self.relayed_window + size <= RELAY_BUDGET // 2
