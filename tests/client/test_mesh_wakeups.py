"""A seat whose program is gone must not keep the others' programs busy.

Found by measuring the suite's CPU: while a table waited for a player whose program had been
killed, the host's program took a whole core (about 20,000 trio task steps a second) until the
wait ran out. Its mesh, dialling the gone seat again and again, set the runner's `changed` event
after each attempt without putting a fresh one in its place; the screen, the narration and
`wait_done` all loop on `changed.wait()`, so a set event woke them again at once, for ever. On a
laptop that is a fan and a battery, for as long as a lid stays closed.

In process, and nothing depends on speed: each dial attempt fails at once (as the gone program's
port refuses), and a waiter's wake-ups are counted per attempt."""

from __future__ import annotations

import trio

from client.net.mesh import Mesh
from client.table.peer import PeerRunner
from tests.protocol.harness import Net

ATTEMPTS = 6
SPINNING = 1_000
"""Wake-ups of one waiter that can only be a loop on an event left set (a fixed mesh wakes it
about once per attempt)."""


class Spinning(Exception):
    pass


async def test_a_gone_seat_wakes_the_screen_once_per_dial_attempt_not_for_ever() -> None:
    net = Net("skyjo", 2, {"target_score": 1})
    runner = PeerRunner(net.sessions[0])
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    mesh = Mesh(runner, net.keys[0], [("127.0.0.1", port), ("127.0.0.1", 9)], listener, backoff=(0.01, 0.02))
    attempts = 0
    all_dialled = trio.Event()

    async def refused(seat: int, host: str, port: int) -> None:
        nonlocal attempts
        attempts += 1
        if attempts == ATTEMPTS:
            all_dialled.set()
        raise OSError(111, "Connection refused")

    mesh._dial_once = refused  # type: ignore[assignment,method-assign]
    wakeups: list[int] = []

    async def screen() -> None:  # as client.ui.run's `watch` and client.table.seat's `_narrate`
        while True:
            await runner.changed.wait()
            wakeups.append(attempts)
            if len(wakeups) > SPINNING:
                raise Spinning(f"woken {len(wakeups)} times in {attempts} dial attempts")

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(screen)
            nursery.start_soon(mesh._dial_loop, 1)
            await all_dialled.wait()
            nursery.cancel_scope.cancel()
    await listener.aclose()
    assert attempts == ATTEMPTS
    assert runner.links[1].status == "reconnecting"
    assert 1 <= len(wakeups) <= ATTEMPTS, wakeups  # told of each failed attempt, once at most
