"""The fast paths of a frame's field checks (issue 29: the frames' Python) decide exactly as the
general checks of `messages.SCHEMAS` do, for any value, not only for what msgpack decodes to."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages

_ITEMS = st.one_of(
    st.binary(min_size=31, max_size=33),
    st.just(bytes(32)),
    st.just(bytearray(32)),
    st.just("x" * 32),
    st.integers(-1, 40),
    st.booleans(),
    st.none(),
)
_PAIRS = st.one_of(
    st.lists(_ITEMS, min_size=0, max_size=3),
    st.tuples(st.just(bytes(32)), st.just(bytes(32))),
    st.just([bytes(32), bytes(32)]),
    _ITEMS,
)
_DECKS = st.one_of(st.lists(_PAIRS, max_size=6), st.tuples(_PAIRS), _ITEMS)


@settings(max_examples=400, deadline=None)
@given(value=_DECKS)
def test_the_deck_check_decides_as_the_schema_does(value: Any) -> None:
    assert messages._deck(value) == messages.DECK(value)


def test_a_long_deck_and_the_largest_one() -> None:
    pair = [bytes(32), bytes(32)]
    for deck in ([pair] * 150, [pair] * messages.MAX_LIST, [pair] * (messages.MAX_LIST + 1), []):
        assert messages._deck(deck) == messages.DECK(deck)
    assert messages._deck([pair] * 150)
    assert not messages._deck([pair] * 149 + [[bytes(32), bytes(31)]])
