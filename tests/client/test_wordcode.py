"""Generated table passwords (issue 13, point 2): word codes as magic-wormhole prints them.

A code must carry the entropy the docs promise (every part drawn uniformly from a list of the
stated size), read aloud and typed loosely it must still be the same password (the same
normalisation on both sides), and a password someone chose must reach SPAKE2 untouched.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from client.net import wordcode

SHAPE = re.compile(r"^[1-9][0-9]-[a-z]+-[a-z]+-[a-z]+$")


def test_the_word_lists_are_the_pgp_lists() -> None:
    assert len(wordcode.EVEN_WORDS) == len(set(wordcode.EVEN_WORDS)) == 256
    assert len(wordcode.ODD_WORDS) == len(set(wordcode.ODD_WORDS)) == 256
    assert not set(wordcode.EVEN_WORDS) & set(wordcode.ODD_WORDS)
    assert all(w.isascii() and w.isalpha() and w.islower() for w in wordcode.WORDS)
    # spot checks against the published list (byte: even word, odd word)
    for byte, even, odd in [
        (0x00, "aardvark", "adroitness"),
        (0x45, "crusade", "detector"),
        (0x69, "gazelle", "guitarist"),
        (0xA9, "revenge", "passenger"),
        (0xE4, "tonic", "tradition"),
        (0xFF, "zulu", "yucatan"),
    ]:
        assert (wordcode.EVEN_WORDS[byte], wordcode.ODD_WORDS[byte]) == (even, odd)


class Recorder:
    """A chooser that notes what it was asked to choose from (and picks at random)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.pools: list[Sequence[Any]] = []

    def choice(self, seq: Sequence[Any], /) -> Any:
        self.pools.append(seq)
        return self.rng.choice(seq)


def test_a_code_has_the_entropy_the_docs_state() -> None:
    """Each part is one uniform choice from its whole list: a number of two digits, then odd,
    even, odd words; so a code is one of 90 x 256^3 (about 2^30.5), as docs/network.md says."""
    chooser = Recorder(1)
    wordcode.generate(chooser)
    assert chooser.pools == [wordcode.NUMBERS, wordcode.ODD_WORDS, wordcode.EVEN_WORDS, wordcode.ODD_WORDS]
    outcomes = math.prod(len(pool) for pool in chooser.pools)
    assert outcomes == 90 * 256**3
    assert math.isclose(math.log2(outcomes), wordcode.ENTROPY_BITS)
    assert wordcode.ENTROPY_BITS >= 30


def test_codes_from_the_system_generator_have_the_shape_and_vary() -> None:
    codes = {wordcode.generate() for _ in range(20)}
    assert all(SHAPE.match(code) for code in codes), codes
    assert len(codes) > 1  # 20 equal draws out of 2^30.5 would mean the generator is broken


@st.composite
def spoken(draw: st.DrawFn) -> tuple[str, str]:
    """A code, and the same code as someone might type it after hearing it."""
    code = wordcode.generate(random.Random(draw(st.integers(0, 2**32))))
    parts = code.split("-")
    if draw(st.booleans()):
        parts[0] = "0" + parts[0]
    typed = [p.upper() if draw(st.booleans()) else p.title() if draw(st.booleans()) else p for p in parts]
    separators = st.sampled_from([" ", "  ", "-", "_", " - ", ".", ", ", "\t"])
    text = typed[0]
    for part in typed[1:]:
        text += draw(separators) + part
    return code, draw(st.sampled_from(["", " ", "  "])) + text + draw(st.sampled_from(["", " ", "\n"]))


@given(spoken())
def test_a_code_typed_loosely_is_the_same_password(pair: tuple[str, str]) -> None:
    code, typed = pair
    assert wordcode.looks_like_code(typed)
    assert wordcode.canonical(typed) == wordcode.canonical(code) == code


@given(spoken(), st.sampled_from(["tonic", "guitarist"]))
def test_a_different_code_stays_different(pair: tuple[str, str], extra: str) -> None:
    code, typed = pair
    assert wordcode.canonical(typed + " " + extra) != code
    number, rest = code.split("-", 1)
    other = str((int(number) + 1 - 10) % 90 + 10)
    assert wordcode.canonical(f"{other} {rest}") != code


@given(st.text(max_size=40))
def test_a_chosen_password_reaches_spake2_untouched(text: str) -> None:
    """Only text made of a number and list words is rewritten; anything else is the password
    exactly as typed (canonical is also stable: applying it twice changes nothing)."""
    once = wordcode.canonical(text)
    if not wordcode.looks_like_code(text):
        assert once == text
    assert wordcode.canonical(once) == once


def test_words_outside_the_list_are_not_a_code() -> None:
    for text in ("12 monkeys", "1234", "Tr0ub4dor&3", "guitarist revenge", "42-guitarist-zebra", "42"):
        assert not wordcode.looks_like_code(text)
        assert wordcode.canonical(text) == text
