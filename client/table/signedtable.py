"""What a spectator checks that the players signed: the table the host shows is the one they play.

The host signs the genesis it sends a spectator; only the host. Each seat's own chain signs the
genesis too: a seat's first frame (seq 0) carries `prev` = the genesis hash, under that seat's
identity key, for the genesis's session id (PROTOCOL.md 5.2, 6). The host relays only frames its
own session accepted (the transcript it saves), and its session accepts a seat's first frame only
when it chains from the table they all hold. So, in what an honest host relays, every seat's
first frame chains from the genesis it showed, and every frame is of its session: a first frame
that does not, or a frame of another session, shows that the host sent a table its players did
not sign (the host is named; no seat is blamed).

What this cannot tell: a host that made up a whole table with keys of its own for the other seats
signs every frame of it itself. The players' names with their key fingerprints (`players`) are
what a spectator compares with the fingerprints the players' own programs show.
"""

from __future__ import annotations

from typing import Any

import msgpack

from client.storage import fingerprint
from protocol.config import TableConfig
from protocol.errors import BadSignature, MalformedMessage
from protocol.messages import open_frame, verifiers_for


def players(config: TableConfig, host: int = 0) -> list[str]:
    """Each seat as "NAME [fingerprint] (seat N)" (", the host" added to the host's seat): the
    players with their key fingerprints, as they see each other in the lobby."""
    names = list(config.names) or [f"seat {s + 1}" for s in range(config.players)]
    return [
        f"{names[s]} [{fingerprint(key)}] (seat {s + 1}{', the host' if s == host else ''})"
        for s, key in enumerate(config.identities)
    ]


class NotSignedByPlayers(Exception):
    """The host relayed what shows that its table is not the one its players signed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class SignedTable:
    """Checks the frames a host relays against the table it showed (sans-IO): `check` each frame
    before the observer session takes it; `signed` is every seat whose own first frame chains
    from this genesis."""

    def __init__(self, config: TableConfig, host: int = 0) -> None:
        self.config = config
        self.host = host
        self.signed: set[int] = set()
        self._verifiers = verifiers_for(config)
        self._who = players(config, host)

    @property
    def complete(self) -> bool:
        """Every seat's first frame was seen, and each chains from this genesis."""
        return len(self.signed) == self.config.players

    def check(self, frame: bytes) -> None:
        """Raise `NotSignedByPlayers` if `frame`, relayed by the host, shows that the host's
        table is not its players'. Anything else wrong with a frame is the session's to judge."""
        head = _head(frame)
        if head is None:
            return
        sid, seat, seq = head[1], head[2], head[3]
        if sid != self.config.session_id:
            raise NotSignedByPlayers(self._host_sent("frames of another game (another session id)"))
        if seq != 0 or not isinstance(seat, int) or isinstance(seat, bool) or seat in self.signed:
            return
        if not 0 <= seat < self.config.players:
            return
        try:
            envelope = open_frame(frame, self.config, self._verifiers)
        except (MalformedMessage, BadSignature):
            return  # nobody's signature, or signed garbage: the session says so
        if envelope.prev != self.config.genesis_hash:
            if seat == self.host:
                what = "a table that its own first frame does not follow (it follows another genesis)"
            else:
                what = (
                    f"a table that {self._who[seat]} did not sign: its first frame follows another "
                    "table's genesis"
                )
            raise NotSignedByPlayers(self._host_sent(what))
        self.signed.add(seat)

    def _host_sent(self, what: str) -> str:
        return f"the host, {self._who[self.host]}, sent {what}; this is not the table its players play"


def _head(frame: bytes) -> list[Any] | None:
    """A frame's body as a list, read without any check (None if it is not one)."""
    try:
        outer = msgpack.unpackb(frame, raw=False)
        if not (isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes)):
            return None
        head = msgpack.unpackb(outer[0], raw=False)
    except Exception:  # msgpack raises many types: junk is the session's to refuse
        return None
    return head if isinstance(head, list) and len(head) == 8 else None
