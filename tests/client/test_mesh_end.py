"""After the game: the programs wait for one back at a seat the table played, still catching up,
and for one whose link dropped as the game ended.

A program that came back while the table played its seat (a lid opened, `--resume` after a crash)
checks the whole game again before it is where the table is: thousands of frames and their
proofs. When the game ended meanwhile, the others used to leave after the short linger of an
ordinary end, and it stopped "cut off" with an unfinished game although its link was up (the fault
soak, seed 16). Now the others wait for it to say goodbye, `Mesh.catch_up` seconds at most.
The same for a program whose acknowledgements fall short of the end of a finished game
(`PeerRunner.behind`): its link dropped as the game ended, and it waits for the others' last
frames (the fault soaks, seeds 16 to 19, where it stopped "cut off").

In process, on trio's autojump clock: nothing here depends on speed."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from client.net.linkproto import LinkError
from client.net.mesh import Mesh
from tests.protocol.harness import Net


class Linked:
    """A link as `Mesh.links` holds it (only its presence matters here)."""


class _Status:
    finished = True


class _Runner:
    """What `Mesh._wait_for_returning` reads of its runner: the table, its taken seats, the seats
    whose acknowledgements fall short (`behind`), whether the game finished, the log."""

    def __init__(self, taken: dict[int, str], behind: set[int]) -> None:
        self.config = Net("skyjo", 3, {"target_score": 1}).config
        self.taken_over = taken
        self.lacking = behind
        self.out: set[int] = set()
        self.status = _Status()
        self.told: list[str] = []
        self.tell_end_wait = self.told.append

    def behind(self) -> list[int]:
        return sorted(self.lacking)

    def stepped_out(self) -> set[int]:
        return self.out


def _mesh(taken: dict[int, str], linked: set[int], behind: set[int] | None = None) -> tuple[Mesh, list[str]]:
    """A 3-seat table's mesh as seat 0 has it at the end: `linked` the seats still linked to it
    (not said goodbye), `taken` those the table plays, `behind` those whose acknowledgements do
    not reach the end."""
    runner = _Runner(taken, behind or set())
    mesh = Mesh.__new__(Mesh)  # only the end of `run` is under test: no sockets
    mesh.runner = runner  # type: ignore[assignment]
    mesh.config = runner.config
    mesh.seat = 0
    mesh.catch_up = 60.0
    mesh.links = {seat: Linked() for seat in linked}  # type: ignore[misc]
    mesh.said_bye = set()
    mesh.left_elsewhere = set()
    mesh.lost_at = {}
    return mesh, runner.told


async def test_the_others_wait_for_a_program_back_at_a_played_seat_until_it_says_goodbye(
    autojump_clock: trio.testing.MockClock,
) -> None:
    mesh, told = _mesh({2: "vanished"}, {1, 2})
    clock = trio.current_time()

    async def goodbye() -> None:
        await trio.sleep(10.0)  # its Wi-Fi drops: the link goes, no goodbye
        del mesh.links[2]
        await trio.sleep(5.0)
        mesh.links[2] = Linked()  # type: ignore[assignment]
        await trio.sleep(10.0)  # it catches up, then says goodbye (its link goes)
        mesh.said_bye.add(2)
        del mesh.links[2]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(goodbye)
        await mesh._wait_for_returning()
    assert 25.0 <= trio.current_time() - clock < 25.5  # not the short linger: until it left
    assert told and "seat 3" in told[0] and "catch up with the end of the game" in told[0], told


async def test_the_wait_for_a_returning_program_ends_after_catch_up_seconds(
    autojump_clock: trio.testing.MockClock,
) -> None:
    mesh, _ = _mesh({2: "vanished"}, {2})
    clock = trio.current_time()
    await mesh._wait_for_returning()
    assert 60.0 <= trio.current_time() - clock < 60.5  # never said goodbye: left behind


async def test_no_wait_when_no_program_is_back_at_a_played_seat(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # an ordinary end; a played seat whose program is not linked; a linked seat the table does not play
    cases: list[tuple[dict[int, str], set[int]]] = [({}, {1, 2}), ({2: "vanished"}, {1}), ({1: "left"}, {2})]
    for taken, linked in cases:
        mesh, told = _mesh(taken, linked)
        clock = trio.current_time()
        await mesh._wait_for_returning()
        assert trio.current_time() == clock and not told, (taken, linked)


async def test_after_a_finished_game_the_others_wait_for_a_program_whose_link_dropped_at_the_end(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # seat 3's acknowledgements fall short of the end and it is not linked: its Wi-Fi dropped as
    # the game ended; 30 s later it is back, and acknowledges the end once it has our frames
    mesh, told = _mesh({}, {1}, behind={2})
    runner = mesh.runner
    assert isinstance(runner, _Runner)
    clock = trio.current_time()

    async def back() -> None:
        await trio.sleep(30.0)
        mesh.links[2] = Linked()  # type: ignore[assignment]
        await trio.sleep(2.0)
        runner.lacking.clear()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(back)
        await mesh._wait_for_returning()
    assert 32.0 <= trio.current_time() - clock < 32.5  # until it held the end
    assert told == ["waiting up to 60 s for p2 (seat 3) to catch up with the end of the game"], told


async def test_the_wait_for_a_program_short_of_the_end_ends_at_its_goodbye_or_its_bound(
    autojump_clock: trio.testing.MockClock,
) -> None:
    mesh, _ = _mesh({}, {1}, behind={2})
    clock = trio.current_time()

    async def goodbye() -> None:  # back, caught up, and gone before we saw its acknowledgement
        await trio.sleep(12.0)
        mesh.said_bye.add(2)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(goodbye)
        await mesh._wait_for_returning()
    assert 12.0 <= trio.current_time() - clock < 12.5
    mesh, told = _mesh({}, {1}, behind={2})
    clock = trio.current_time()
    await mesh._wait_for_returning()  # killed for good as the game ended: the bound
    assert 59.9 <= trio.current_time() - clock < 60.5
    assert told[-1] == "p2 (seat 3): no goodbye within 60 s; leaving the table", told


async def test_no_wait_for_a_program_short_of_the_end_that_left_a_halted_game_or_a_played_seat(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # it said goodbye to another seat, which told us (`resend`'s `left`)
    gone, told = _mesh({}, {1}, behind={2})
    gone.left_elsewhere.add(2)
    # the game halted: nothing more will be signed
    halted, told_halted = _mesh({}, {2}, behind={2})
    halted.runner.status.finished = False  # type: ignore[misc]
    # the table plays the seat and its program is not linked (gone for good, or left)
    played, told_played = _mesh({2: "left"}, {1}, behind={2})
    for mesh, said in ((gone, told), (halted, told_halted), (played, told_played)):
        clock = trio.current_time()
        await mesh._wait_for_returning()
        assert trio.current_time() == clock and not said


async def test_after_a_finished_game_a_program_waits_for_the_link_to_a_seat_that_may_wait_for_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # we are the program whose link dropped at the end: we got the end from seat 2, and seat 3,
    # not linked to us, may still wait for our acknowledgements; its link is back 8 s later
    mesh, told = _mesh({}, {1})
    clock = trio.current_time()

    async def back() -> None:
        await trio.sleep(8.0)
        mesh.links[2] = Linked()  # type: ignore[assignment]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(back)
        await mesh._wait_for_returning()
    assert 8.0 <= trio.current_time() - clock < 8.5
    assert told == ["waiting up to 60 s for the link to p2 (seat 3), to tell it this program has the end"], (
        told
    )
    # one that said goodbye to another seat is not waited for; nor anybody after a halted game
    gone, told = _mesh({}, {1})
    gone.left_elsewhere.add(2)
    halted, told_halted = _mesh({}, set())
    halted.runner.status.finished = False  # type: ignore[misc]
    for mesh, said in ((gone, told), (halted, told_halted)):
        clock = trio.current_time()
        await mesh._wait_for_returning()
        assert trio.current_time() == clock and not said


async def test_after_a_finished_game_the_others_wait_a_minute_from_its_loss_for_a_program_gone_lately(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # seat 3's lid closed 20 s before the end: the table played its seat ("vanished"); the
    # others wait for it until a minute after its link dropped, 40 s more
    mesh, told = _mesh({2: "vanished"}, {1})
    mesh.lost_at[2] = trio.current_time() - 20.0
    clock = trio.current_time()
    await mesh._wait_for_returning()
    assert 39.9 <= trio.current_time() - clock < 40.5
    assert told[0] == "waiting up to 60 s for p2 (seat 3) to catch up with the end of the game", told
    # the lid opens 10 s after the end: back, it is waited for until its goodbye (the bound: 60 s)
    mesh, _ = _mesh({2: "vanished"}, {1})
    mesh.lost_at[2] = trio.current_time() - 20.0
    clock = trio.current_time()

    async def back() -> None:
        await trio.sleep(10.0)
        mesh.links[2] = Linked()  # type: ignore[assignment]
        await trio.sleep(35.0)  # it catches up with the rounds the table played, then leaves
        mesh.said_bye.add(2)
        del mesh.links[2]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(back)
        await mesh._wait_for_returning()
    assert 45.0 <= trio.current_time() - clock < 45.5
    # gone more than a minute before the end, or left with a goodbye (a signed leave): no wait
    long_ago, told_long_ago = _mesh({2: "vanished"}, {1})
    long_ago.lost_at[2] = trio.current_time() - 61.0
    left, told_left = _mesh({2: "left"}, {1})
    left.lost_at[2] = trio.current_time() - 1.0
    out, told_out = _mesh({2: "vanished"}, {1})  # its player stepped out (Ctrl-C)
    out.lost_at[2] = trio.current_time() - 1.0
    out.runner.out.add(2)  # type: ignore[attr-defined]
    for quiet, said in ((long_ago, told_long_ago), (left, told_left), (out, told_out)):
        clock = trio.current_time()
        await quiet._wait_for_returning()
        assert trio.current_time() == clock and not said


def test_a_resend_message_names_only_this_tables_seats_as_gone() -> None:
    mesh, _ = _mesh({}, set())
    assert mesh._seats_in([1, 2, 0]) == {1, 2}  # our own seat is not the others' to tell
    assert mesh._seats_in([]) == set()
    for junk in ([3], [-1], ["1"], [True], [1, 1, 1, 1], 2, None, {"1": 1}):
        with pytest.raises(LinkError):
            mesh._seats_in(junk)
