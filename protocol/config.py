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
from functools import cached_property
from typing import Any

import msgpack

from skyjo_p2p.core.errors import OptionError
from skyjo_p2p.engine import validate_options

from .errors import MalformedMessage

PROTOCOL_VERSION = 6
SESSION_ID_BYTES = 32
IDENTITY_BYTES = 32
MAX_NAME = 32
MAX_OPTION_TEXT = 64
"""The longest text value of an option a genesis carries (PROTOCOL.md, the table configuration)."""
DEFAULT_GRACE = 60
"""Seconds a seat that stopped answering may come back (resume) before the others play on
without it (a bot in its seat, if the table is insured) or stop."""
TABLE_SETTINGS = ("turn", "grace", "insured", "owners")
"""The table's own settings a genesis may carry (not the game's rules): see `TableConfig`."""


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
    table: Mapping[str, Any] = field(default_factory=dict)
    """The table's settings (not the game's rules; absent ones take their defaults):

    * ``turn``: seconds a person has for a move before their own program plays it with its bot
      ("autopilot"), 0 for no countdown (the default);
    * ``grace``: seconds a seat that stopped answering may come back before the others go on
      without it (`DEFAULT_GRACE`);
    * ``insured``: every seat's key share is escrowed at the keys step, so that the others can
      let a bot play a seat that vanished (False by default: the game stops, as it always did);
    * ``owners``: for each seat, the seat whose program runs it (a bot the host runs is owned by
      the host's seat; a person's seat by itself; all seats their own by default). Escrow holders
      are counted by owner: a program running several seats is one party.
    """

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
        _check_settings(self.table, self.players)

    @property
    def turn_seconds(self) -> int:
        """Seconds of the move countdown (0: none)."""
        return int(self.table.get("turn", 0))

    @property
    def grace_seconds(self) -> int:
        return int(self.table.get("grace", DEFAULT_GRACE))

    @cached_property
    def owners(self) -> tuple[int, ...]:
        """The seat whose program runs each seat (worked out once: read at every step; a
        table's settings never change once it is built)."""
        owners = self.table.get("owners")
        return tuple(owners) if owners else tuple(range(self.players))

    def escrow_holders(self, seat: int) -> tuple[int, ...]:
        """The seats that hold shares of `seat`'s key: one per other program (its own seat), in
        seat order; empty when the table is not insured."""
        if not self.insured:
            return ()
        owners = self.owners
        return tuple(s for s in range(self.players) if owners[s] == s and s != owners[seat])

    @property
    def insured(self) -> bool:
        """Seat insurance is on: set, and every seat's key has two holders at least (with one,
        that one program alone could read the seat's cards)."""
        if not self.table.get("insured", False):
            return False
        owners = self.owners
        programs = {owners[s] for s in range(self.players)}
        return len(programs) >= 3

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
                    # only when set: a table without settings has the genesis it always had
                    **({"table": {k: self.table[k] for k in sorted(self.table)}} if self.table else {}),
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
        fields = {"v", "sid", "game", "players", "options", "ids", "names"}
        if not isinstance(obj, dict) or set(obj) not in (fields, fields | {"table"}):
            raise MalformedMessage("genesis has the wrong fields")
        table = obj.get("table", {})
        if not isinstance(table, dict) or (not table and "table" in obj):
            raise MalformedMessage("genesis table settings malformed")
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
            table=dict(table),
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


def _check_settings(table: Mapping[str, Any], players: int) -> None:
    if not isinstance(table, Mapping) or not set(table) <= set(TABLE_SETTINGS):
        raise MalformedMessage(f"table settings are among {', '.join(TABLE_SETTINGS)}")
    for key in ("turn", "grace"):
        value = table.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3600:
            raise MalformedMessage(f"table setting {key} is 0 to 3600 seconds")
    if not isinstance(table.get("insured", False), bool):
        raise MalformedMessage("table setting insured is true or false")
    owners = table.get("owners")
    if owners is not None and (
        not isinstance(owners, list | tuple)
        or len(owners) != players
        or not all(isinstance(o, int) and not isinstance(o, bool) and 0 <= o < players for o in owners)
        or any(owners[o] != o for o in owners)
    ):
        raise MalformedMessage("table setting owners names, for each seat, a seat that runs itself")


def seat_names(config: TableConfig) -> Sequence[str]:
    return config.names or tuple(f"seat {s + 1}" for s in range(config.players))


def named_seats(config: TableConfig, seats: Sequence[int]) -> str:
    """Seats for a person: "Anna (seat 1)", "Anna (seat 1) and Ben (seat 2)" (counted from 1;
    a table without names says "seat 1")."""
    names = config.names
    who = [f"{names[s]} (seat {s + 1})" if names and 0 <= s < len(names) else f"seat {s + 1}" for s in seats]
    return who[0] if len(who) == 1 else f"{', '.join(who[:-1])} and {who[-1]}"
