"""What the cursor can be on: one small immutable record per kind of target.

A target is a `NamedTuple` whose first field names its kind, ``GridTarget(0, 3) == ("grid", 0, 3)``:
a record with named, typed fields for the code, and the same value (equal, same hash) as the plain
tuple the screen's tests and saved expectations compare with. A `Decision`'s options are paths of
targets; `canvas.Canvas.mark` records where each was drawn.
"""

from __future__ import annotations

from typing import Literal, NamedTuple


class _GridTarget(NamedTuple):
    kind: Literal["grid"]
    seat: int
    slot: int


class GridTarget(_GridTarget):
    """A card on a seat's grid (SKYJO, ACTION)."""

    __slots__ = ()

    def __new__(cls, seat: int, slot: int) -> GridTarget:
        return super().__new__(cls, "grid", seat, slot)


class _PileTarget(NamedTuple):
    kind: Literal["pile"]
    name: str


class PileTarget(_PileTarget):
    """A pile in the middle: "draw", "discard", "action", "action-discard"."""

    __slots__ = ()

    def __new__(cls, name: str) -> PileTarget:
        return super().__new__(cls, "pile", name)


class _ButtonTarget(NamedTuple):
    kind: Literal["button"]
    name: str


class ButtonTarget(_ButtonTarget):
    """A choice shown as a button, by name ("end", "pass", "row", "ready" ...)."""

    __slots__ = ()

    def __new__(cls, name: str) -> ButtonTarget:
        return super().__new__(cls, "button", name)


class _LineTarget(NamedTuple):
    kind: Literal["line"]
    axis: str
    number: int


class LineTarget(_LineTarget):
    """SKYJO's and ACTION's full line to remove: its axis ("row", "column", "diagonal") and index."""

    __slots__ = ()

    def __new__(cls, axis: str, number: int) -> LineTarget:
        return super().__new__(cls, "line", axis, number)


class _HeldTarget(NamedTuple):
    kind: Literal["held"]
    seat: int
    place: int


class HeldTarget(_HeldTarget):
    """An action card a seat holds (ACTION)."""

    __slots__ = ()

    def __new__(cls, seat: int, place: int) -> HeldTarget:
        return super().__new__(cls, "held", seat, place)


class _MarketTarget(NamedTuple):
    kind: Literal["market"]
    place: int


class MarketTarget(_MarketTarget):
    """An action card of the market (ACTION)."""

    __slots__ = ()

    def __new__(cls, place: int) -> MarketTarget:
        return super().__new__(cls, "market", place)


class _OrderTarget(NamedTuple):
    kind: Literal["order"]
    label: str


class OrderTarget(_OrderTarget):
    """The order to discard cards in, by its label (ACTION)."""

    __slots__ = ()

    def __new__(cls, label: str) -> OrderTarget:
        return super().__new__(cls, "order", label)


class _FacesTarget(NamedTuple):
    kind: Literal["faces"]
    first: bool
    second: bool


class FacesTarget(_FacesTarget):
    """Which of two swapped cards end face up (ACTION)."""

    __slots__ = ()

    def __new__(cls, first: bool, second: bool) -> FacesTarget:
        return super().__new__(cls, "faces", first, second)


class _Drawn3Target(NamedTuple):
    kind: Literal["drawn3"]
    place: int


class Drawn3Target(_Drawn3Target):
    """One of the three cards drawn (ACTION)."""

    __slots__ = ()

    def __new__(cls, place: int) -> Drawn3Target:
        return super().__new__(cls, "drawn3", place)


class _MenuTarget(NamedTuple):
    kind: Literal["menu"]
    place: int


class MenuTarget(_MenuTarget):
    """A card of the action discard to replay (ACTION)."""

    __slots__ = ()

    def __new__(cls, place: int) -> MenuTarget:
        return super().__new__(cls, "menu", place)


class _HandTarget(NamedTuple):
    kind: Literal["hand"]
    seat: int
    place: int


class HandTarget(_HandTarget):
    """A card in a seat's hand (SKIP-BO)."""

    __slots__ = ()

    def __new__(cls, seat: int, place: int) -> HandTarget:
        return super().__new__(cls, "hand", seat, place)


class _StockTarget(NamedTuple):
    kind: Literal["stock"]
    seat: int


class StockTarget(_StockTarget):
    """A seat's stock pile (SKIP-BO)."""

    __slots__ = ()

    def __new__(cls, seat: int) -> StockTarget:
        return super().__new__(cls, "stock", seat)


class _SeatDiscardTarget(NamedTuple):
    kind: Literal["sdiscard"]
    seat: int
    pile: int


class SeatDiscardTarget(_SeatDiscardTarget):
    """One of a seat's discard piles (SKIP-BO)."""

    __slots__ = ()

    def __new__(cls, seat: int, pile: int) -> SeatDiscardTarget:
        return super().__new__(cls, "sdiscard", seat, pile)


class _BuildingTarget(NamedTuple):
    kind: Literal["building"]
    pile: int


class BuildingTarget(_BuildingTarget):
    """A building pile in the middle (SKIP-BO)."""

    __slots__ = ()

    def __new__(cls, pile: int) -> BuildingTarget:
        return super().__new__(cls, "building", pile)


Target = (
    GridTarget
    | PileTarget
    | ButtonTarget
    | LineTarget
    | HeldTarget
    | MarketTarget
    | OrderTarget
    | FacesTarget
    | Drawn3Target
    | MenuTarget
    | HandTarget
    | StockTarget
    | SeatDiscardTarget
    | BuildingTarget
)
"""Something the player can choose."""

__all__ = [
    "BuildingTarget",
    "ButtonTarget",
    "Drawn3Target",
    "FacesTarget",
    "GridTarget",
    "HandTarget",
    "HeldTarget",
    "LineTarget",
    "MarketTarget",
    "MenuTarget",
    "OrderTarget",
    "PileTarget",
    "SeatDiscardTarget",
    "StockTarget",
    "Target",
]
