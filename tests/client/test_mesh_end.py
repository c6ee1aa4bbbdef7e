"""After the game: the programs wait for one back at a seat the table played, still catching up.

A program that came back while the table played its seat (a lid opened, `--resume` after a crash)
checks the whole game again before it is where the table is: thousands of frames and their
proofs. When the game ended meanwhile, the others used to leave after the short linger of an
ordinary end, and it stopped "cut off" with an unfinished game although its link was up (the fault
soak, seed 16). Now the others wait for it to say goodbye, `Mesh.catch_up` seconds at most.

In process, on trio's autojump clock: nothing here depends on speed."""

from __future__ import annotations

import trio
import trio.testing

from client.net.mesh import Mesh
from tests.protocol.harness import Net


class Linked:
    """A link as `Mesh.links` holds it (only its presence matters here)."""


class _Runner:
    """What `Mesh._wait_for_returning` reads of its runner: the table, its taken seats, the log."""

    def __init__(self, taken: dict[int, str]) -> None:
        self.config = Net("skyjo", 3, {"target_score": 1}).config
        self.taken_over = taken
        self.told: list[str] = []
        self.inform = self.told.append


def _mesh(taken: dict[int, str], linked: set[int]) -> tuple[Mesh, list[str]]:
    """A 3-seat table's mesh as seat 0 has it at the end: `linked` the seats still linked to it
    (not said goodbye), `taken` those the table plays."""
    runner = _Runner(taken)
    mesh = Mesh.__new__(Mesh)  # only the end of `run` is under test: no sockets
    mesh.runner = runner  # type: ignore[assignment]
    mesh.config = runner.config
    mesh.catch_up = 60.0
    mesh.links = {seat: Linked() for seat in linked}  # type: ignore[misc]
    mesh.said_bye = set()
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
