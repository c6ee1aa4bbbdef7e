"""The table a session plays: what every peer agreed on before the first message (the genesis).

The lobby (client layer) settles the game, its options, the seats and each seat's long-term
Ed25519 identity key, and a fresh random session id. Its canonical encoding is hashed; that hash
is the first link of every sender's chain and of the transcript, so every signed message of the
game is bound to exactly this table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from skyjo_p2p.core.errors import OptionError
from skyjo_p2p.engine import validate_options

from .errors import MalformedMessage

PROTOCOL_VERSION = 2
SESSION_ID_BYTES = 32
IDENTITY_BYTES = 32
MAX_NAME = 32
MAX_OPTION_TEXT = 64
"""The longest text value of an option a genesis carries (PROTOCOL.md, the table configuration)."""


@dataclass(frozen=True)
class TableConfig:
    """The agreed table. `identities[s]` is seat s's raw Ed25519 public key (32 bytes).

    Building one checks every field, the game, the player count and the options included
    (`skyjo_p2p.engine.validate_options`): anything the engine would refuse raises
    `MalformedMessage` ("invalid table options: ..."), so no session starts on such a table.
    """

    session_id: bytes
    game: str
    players: int
    identities: tuple[bytes, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        if not isinstance(self.session_id, bytes) or len(self.session_id) != SESSION_ID_BYTES:
            raise MalformedMessage(f"a session id is {SESSION_ID_BYTES} bytes")
        if not isinstance(self.players, int) or not 1 <= self.players <= 8:
            raise MalformedMessage("a table has 1 to 8 seats")
        if len(self.identities) != self.players:
            raise MalformedMessage("one identity key per seat")
        for key in self.identities:
            if not isinstance(key, bytes) or len(key) != IDENTITY_BYTES:
                raise MalformedMessage(f"an identity key is {IDENTITY_BYTES} bytes")
        if len(set(self.identities)) != self.players:
            raise MalformedMessage("two seats have the same identity key")
        if self.names and len(self.names) != self.players:
            raise MalformedMessage("one name per seat, or none")
        for name in self.names:
            if not isinstance(name, str) or len(name) > MAX_NAME:
                raise MalformedMessage(f"a name is text of at most {MAX_NAME} characters")
        if self.version != PROTOCOL_VERSION:
            raise MalformedMessage(f"protocol version {self.version} is not {PROTOCOL_VERSION}")
        check_table(self.game, self.players, self.options)

    def encode(self) -> bytes:
        """The canonical genesis bytes (msgpack; map keys in a fixed order, options sorted)."""
        return bytes(
            msgpack.packb(
                {
                    "v": self.version,
                    "sid": self.session_id,
                    "game": self.game,
                    "players": self.players,
                    "options": {k: self.options[k] for k in sorted(self.options)},
                    "ids": list(self.identities),
                    "names": list(self.names),
                },
                use_bin_type=True,
            )
        )

    @property
    def genesis_hash(self) -> bytes:
        return hashlib.sha256(b"skyjo-lan/v1/genesis" + self.encode()).digest()

    @classmethod
    def decode(cls, data: bytes) -> TableConfig:
        """Parse genesis bytes (from a saved transcript), checking every field."""
        try:
            obj = msgpack.unpackb(
                data, raw=False, max_bin_len=1024, max_str_len=256, max_array_len=64, max_map_len=64
            )
        except Exception as exc:  # msgpack raises several types
            raise MalformedMessage(f"genesis is not msgpack: {exc}") from None
        if not isinstance(obj, dict) or set(obj) != {
            "v",
            "sid",
            "game",
            "players",
            "options",
            "ids",
            "names",
        }:
            raise MalformedMessage("genesis has the wrong fields")
        if not isinstance(obj["game"], str) or not isinstance(obj["options"], dict):
            raise MalformedMessage("genesis game or options malformed")
        if not isinstance(obj["ids"], list) or not isinstance(obj["names"], list):
            raise MalformedMessage("genesis identities or names malformed")
        return cls(
            session_id=obj["sid"],
            game=obj["game"],
            players=obj["players"],
            identities=tuple(obj["ids"]),
            options=dict(obj["options"]),
            names=tuple(obj["names"]),
            version=obj["v"],
        )


def check_table(game: object, players: object, options: object) -> None:
    """Raise `MalformedMessage` unless a genesis may carry this game, player count and options:
    a small map of short values (the wire's limits) that the engine accepts for this game and
    count (`skyjo_p2p.engine.validate_options`; its refusal reads "invalid table options: ...").

    The rules alone accept longer text offline (scenarios, simulations); a host checks its table
    here before it opens a lobby."""
    if not isinstance(options, Mapping):
        raise MalformedMessage("options are a small map")
    _check_options(options)
    try:
        validate_options(game, players, options)
    except OptionError as exc:
        # A session is never built on a table its engine would refuse once the game starts.
        raise MalformedMessage(f"invalid table options: {exc.reason}") from None


def _check_options(options: Mapping[str, Any]) -> None:
    if not isinstance(options, Mapping) or len(options) > 32:
        raise MalformedMessage("options are a small map")
    for key, value in options.items():
        if not isinstance(key, str) or len(key) > 32:
            raise MalformedMessage("option names are short text")
        if not isinstance(value, (bool, int, str)) or (
            isinstance(value, str) and len(value) > MAX_OPTION_TEXT
        ):
            raise MalformedMessage(
                f"option {key} must be a number, true/false or text of at most {MAX_OPTION_TEXT} characters"
            )


def seat_names(config: TableConfig) -> Sequence[str]:
    return config.names or tuple(f"seat {s + 1}" for s in range(config.players))
