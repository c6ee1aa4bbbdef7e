"""A torn or corrupt tail of a saved game is cut back to the last whole, valid record (issue 13,
point 3): what is kept is always a prefix of whole records that open under the genesis, and a
peer that resumes from it and appends the frames it is sent again leaves a file that verifies.

Before the fix a resumed peer appended after a torn record ("transcript is corrupt after 19
frames") or kept a corrupted last frame (INVALID)."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.config import TableConfig
from protocol.errors import MalformedMessage
from protocol.messages import open_frame
from protocol.transcript import dump, header, load_checked, record, valid_prefix
from protocol.verify import verify_bytes
from tests.protocol.harness import Net


class Game:
    """One whole 2-seat SKYJO game (one round) as seat 0 saved it, and its record boundaries."""

    def __init__(self) -> None:
        net = Net("skyjo", 2, {"target_score": 1})
        net.run_game()
        self.config: TableConfig = net.config
        self.frames = list(net.sessions[0].frames)
        self.data = dump(self.config, self.frames)
        self.ends = [len(header(self.config))]
        for frame in self.frames:
            self.ends.append(self.ends[-1] + len(record(frame)))

    def whole_before(self, cut: int) -> int:
        """How many whole records end at or before byte `cut`."""
        return sum(1 for end in self.ends[1:] if end <= cut)


@pytest.fixture(scope="module")
def game() -> Game:
    return Game()


def test_the_whole_game_verifies_and_nothing_is_cut(game: Game) -> None:
    assert verify_bytes(game.data).kind == "finished"
    prefix = valid_prefix(game.data)
    assert (prefix.length, prefix.cut_bytes, prefix.cut_records) == (len(game.data), 0, 0)
    assert prefix.frames == game.frames and prefix.reason is None


def test_every_cut_of_the_first_frames_keeps_exactly_the_whole_records(game: Game) -> None:
    """Exhaustive over every byte of a short transcript (the first frames, before the first
    shuffle): a cut inside a record drops that record and nothing before it."""
    frames = [f for f in game.frames[:12] if len(f) < 1000][:8]  # each record opens on its own
    data = dump(game.config, frames)
    ends = [len(header(game.config))]
    for frame in frames:
        ends.append(ends[-1] + len(record(frame)))
    for cut in range(ends[0], len(data) + 1):
        prefix = valid_prefix(data[:cut])
        kept = sum(1 for end in ends[1:] if end <= cut)
        assert prefix.frames == frames[:kept], cut
        assert prefix.length == ends[kept], cut
        assert prefix.cut_bytes == cut - ends[kept], cut
        assert prefix.cut_records == (1 if prefix.cut_bytes else 0), cut
        assert prefix.cut_seats == frozenset(), cut  # torn: never whole, so never sent


def test_a_torn_header_is_not_a_transcript(game: Game) -> None:
    """The first record is the table itself: torn, there is nothing to keep (the resume file
    holds the table, so the peer writes it again)."""
    for cut in (0, 1, len(header(game.config)) - 1):
        with pytest.raises(MalformedMessage):
            valid_prefix(game.data[:cut])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(min_value=0.0, max_value=1.0))
def test_a_game_cut_anywhere_then_completed_verifies(game: Game, where: float) -> None:
    """kill -9 at any byte: the cut-back file is a prefix of whole valid records, and appending
    the frames the others send again gives a file that verifies as the finished game."""
    start = len(header(game.config))
    cut = start + round(where * (len(game.data) - start))
    torn = game.data[:cut]
    prefix = valid_prefix(torn)
    kept = game.whole_before(cut)
    assert prefix.frames == game.frames[:kept]
    assert torn[: prefix.length] == dump(game.config, game.frames[:kept])
    resumed = torn[: prefix.length] + b"".join(record(f) for f in game.frames[kept:])
    verdict = verify_bytes(resumed)
    assert verdict.kind == "finished", (cut, verdict.fault)
    # without the cut the same append is unreadable (the bug this fixes), unless the cut fell
    # on a record boundary
    if cut != prefix.length:
        appended = torn + b"".join(record(f) for f in game.frames[kept:])
        try:
            bad = verify_bytes(appended)
        except MalformedMessage:
            pass
        else:
            assert bad.kind != "finished", cut


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.integers(min_value=0), flip=st.integers(min_value=1, max_value=255))
def test_a_corrupt_last_frame_is_cut(game: Game, offset: int, flip: int) -> None:
    """Any byte of the last record changed (a bad sector, a stray write): that record, and only
    it, is cut (the next test: the frame sent again completes a file that verifies)."""

    last = len(record(game.frames[-1]))
    position = game.ends[-2] + offset % last
    corrupt = bytearray(game.data)
    corrupt[position] ^= flip
    prefix = valid_prefix(bytes(corrupt))
    assert prefix.frames == game.frames[:-1]
    assert prefix.length == game.ends[-2]
    assert prefix.cut_bytes == last and prefix.reason is not None


def test_the_corrupt_last_frame_cut_then_sent_again_verifies(game: Game) -> None:
    corrupt = bytearray(game.data)
    corrupt[-5] ^= 0x40  # inside the signature of the last frame
    assert verify_bytes(bytes(corrupt)).kind == "invalid"  # kept, it makes the file INVALID
    prefix = valid_prefix(bytes(corrupt))
    resumed = bytes(corrupt[: prefix.length]) + record(game.frames[-1])
    assert verify_bytes(resumed).kind == "finished"


def test_what_follows_a_bad_record_is_cut_too_and_counted(game: Game) -> None:
    """A garbled record in the middle: nothing after it is trusted to be where this peer put it;
    the whole records after it are counted for the log line."""
    middle = 20
    bad = bytearray(record(game.frames[middle]))
    bad[-3] ^= 1
    data = dump(game.config, game.frames[:middle]) + bytes(bad)
    data += b"".join(record(f) for f in game.frames[middle + 1 : middle + 4])
    prefix = valid_prefix(data)
    assert prefix.frames == game.frames[:middle]
    assert prefix.cut_records == 4
    seats = {open_frame(f, game.config).seat for f in game.frames[middle : middle + 4]}
    assert prefix.cut_seats == frozenset(seats)  # whole records: whose they are is told
    assert prefix.cut_bytes == len(data) - game.ends[middle]


def test_a_record_that_is_not_a_frame_or_not_this_game_is_cut(game: Game) -> None:
    base = dump(game.config, game.frames[:10])
    for junk in (
        msgpack.packb("text", use_bin_type=True),
        msgpack.packb(b"\x01\x02", use_bin_type=True),
        record(Net("skyjo", 2, {"target_score": 1}).config.encode()),
    ):
        prefix = valid_prefix(base + junk)
        assert prefix.frames == game.frames[:10] and prefix.length == len(base)
        config, frames, _ = load_checked(base)
        assert frames == prefix.frames and config == prefix.config
