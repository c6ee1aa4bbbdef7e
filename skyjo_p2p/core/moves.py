"""Moves: what a seat decides.

One plain, immutable record for every game, so that the scenario runner, the wire protocol, the
user interface and the bots all speak the same language. Each game declares which kinds it knows
and which fields each kind carries (`MoveSchema`); `Move.from_dict` checks shapes and types,
the rules check legality.

The dictionary form is the canonical one (JSON in scenarios, msgpack on the wire)::

    {"seat": 0, "move": "draw", "from": "deck"}

`from` is spelled `source` in Python because `from` is a keyword.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import MalformedMove

# Field name in the dictionary form -> attribute name on Move.
_DICT_TO_ATTR = {
    "slot": "slot",
    "slot2": "slot2",
    "slots": "slots",
    "from": "source",
    "target": "target",
    "index": "index",
    "pile": "pile",
    "line": "line",
    "face_up": "face_up",
    "order": "order",
}
_ATTR_TO_DICT = {v: k for k, v in _DICT_TO_ATTR.items()}
_FIELD_KEYS = tuple(_ATTR_TO_DICT.values())
_FIELD_VALUES = operator.attrgetter(*_ATTR_TO_DICT)
"""The values of a move's optional fields, in `_FIELD_KEYS`' order."""

INT_FIELDS = frozenset({"slot", "slot2", "target", "index", "pile"})
STR_FIELDS = frozenset({"from", "line"})
INT_TUPLE_FIELDS = frozenset({"slots", "order"})
BOOL_TUPLE_FIELDS = frozenset({"face_up"})

# Hard bounds so that no decoded move can make the engine allocate or loop much.
_MAX_INT = 10_000
_MAX_TUPLE = 32
_MAX_STR = 32


@dataclass(frozen=True, slots=True)
class Move:
    """A decision by `seat`. Only the fields its `kind` uses are set; others keep their default."""

    seat: int
    kind: str
    slot: int | None = None
    slot2: int | None = None
    slots: tuple[int, ...] = ()
    source: str | None = None
    target: int | None = None
    index: int | None = None
    pile: int | None = None
    line: str | None = None
    face_up: tuple[bool, ...] = ()
    order: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The canonical dictionary form, with only the fields that are set, in a fixed order."""
        out: dict[str, Any] = {"seat": self.seat, "move": self.kind}
        for attr, key in _ATTR_TO_DICT.items():
            value = getattr(self, attr)
            if value is None or value == ():
                continue
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def fields(self) -> frozenset[str]:
        """Names (dictionary spelling) of the fields that are set."""
        # (every field read by one C call: a move's fields are checked twice per move received)
        values = _FIELD_VALUES(self)
        return frozenset([key for key, v in zip(_FIELD_KEYS, values, strict=True) if v not in (None, ())])

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], schema: MoveSchema | None = None) -> Move:
        """Build a move from its dictionary form, checking every type and bound.

        With a `schema`, also check that the kind is known to the game and that exactly its
        fields are present. Raises `MalformedMove` with the reason.
        """
        if not isinstance(data, Mapping):
            raise MalformedMove("a move must be an object")
        seat = data.get("seat")
        kind = data.get("move")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 64:
            raise MalformedMove(f"bad or missing seat: {seat!r}")
        if not isinstance(kind, str) or not kind or len(kind) > _MAX_STR:
            raise MalformedMove(f"bad or missing move kind: {kind!r}")
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key in ("seat", "move"):
                continue
            if key not in _DICT_TO_ATTR:
                raise MalformedMove(f"unknown field {key!r} in {kind!r} move")
            kwargs[_DICT_TO_ATTR[key]] = _check_field(kind, key, value)
        move = cls(seat=seat, kind=kind, **kwargs)
        if schema is not None:
            schema.check(move)
        return move


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_field(kind: str, key: str, value: object) -> object:
    if key in INT_FIELDS:
        if not _is_int(value) or not -_MAX_INT <= value <= _MAX_INT:  # type: ignore[operator]
            raise MalformedMove(f"field {key!r} of {kind!r} must be an integer, got {value!r}")
        return value
    if key in STR_FIELDS:
        if not isinstance(value, str) or not value or len(value) > _MAX_STR:
            raise MalformedMove(f"field {key!r} of {kind!r} must be a short string, got {value!r}")
        return value
    if key in INT_TUPLE_FIELDS or key in BOOL_TUPLE_FIELDS:
        if not isinstance(value, (list, tuple)) or len(value) > _MAX_TUPLE:
            raise MalformedMove(f"field {key!r} of {kind!r} must be a short list, got {value!r}")
        if key in BOOL_TUPLE_FIELDS:
            if not all(isinstance(v, bool) for v in value):
                raise MalformedMove(f"field {key!r} of {kind!r} must hold true/false values")
        elif not all(_is_int(v) and -_MAX_INT <= v <= _MAX_INT for v in value):
            raise MalformedMove(f"field {key!r} of {kind!r} must hold integers")
        return tuple(value)
    raise MalformedMove(f"unknown field {key!r}")  # pragma: no cover - guarded by the caller


@dataclass(frozen=True)
class MoveSchema:
    """The move kinds of one game: kind -> the fields it requires, and those it may carry."""

    required: Mapping[str, frozenset[str]]
    optional: Mapping[str, frozenset[str]] = field(default_factory=dict)
    _allowed: dict[str, frozenset[str]] = field(init=False, repr=False, compare=False)
    """kind -> the fields it may carry (required or optional), put together once."""

    def __post_init__(self) -> None:
        allowed = {kind: need | self.optional.get(kind, frozenset()) for kind, need in self.required.items()}
        object.__setattr__(self, "_allowed", allowed)

    def check(self, move: Move) -> None:
        if move.kind not in self.required:
            known = ", ".join(sorted(self.required))
            raise MalformedMove(f"unknown move {move.kind!r} (this game knows: {known})")
        present = move.fields()
        need = self.required[move.kind]
        allowed = self._allowed[move.kind]
        missing = need - present
        if missing:
            raise MalformedMove(f"move {move.kind!r} needs {', '.join(sorted(missing))}")
        extra = present - allowed
        if extra:
            raise MalformedMove(f"move {move.kind!r} does not take {', '.join(sorted(extra))}")
