"""The Windows key reader (client/ui/terminal.py, issue 27): trio cannot wait on a console
handle, so on Windows the keys are polled through msvcrt. What `msvcrt.getwch` returns is decoded
by a pure function (checked here with the exact characters Windows gives), and the poller is
driven with a stand-in console on trio's mock clock."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from client.ui.caps import Caps
from client.ui.terminal import INTERRUPT, ConsoleKeys, Terminal, console_keys, windows_key_names


@pytest.mark.parametrize(
    ("chars", "names"),
    [
        (["\xe0", "H"], ["up"]),
        (["\xe0", "P"], ["down"]),
        (["\xe0", "K"], ["left"]),
        (["\xe0", "M"], ["right"]),
        (["\x00", "H"], ["up"]),  # the numeric keypad's arrows
        (["\x00", "K", "\x00", "M"], ["left", "right"]),
        (
            ["\xe0", "G", "\xe0", "O", "\xe0", "I", "\xe0", "Q", "\xe0", "S"],
            ["home", "end", "pgup", "pgdn", "delete"],
        ),
        (["\r"], ["enter"]),
        (["\x1b"], ["esc"]),
        (["\x03"], [INTERRUPT]),
        (["\x08"], ["backspace"]),
        (["\t"], ["tab"]),
        (["\x00", "\x0f"], ["btab"]),
        ([" "], ["space"]),
        (["\x0c"], ["redraw"]),
        (["q", "1", "é"], ["q", "1", "é"]),
        (["\x1b", "[", "A", "\x1b", "O", "D"], ["up", "left"]),  # a console in VT input mode
        (["\x00", ";", "a"], ["a"]),  # F1: not used, dropped
        (["\xe0", "\x86", "b"], ["b"]),  # F12
        (["\xe0"], ["à"]),  # getwch gives the letter à as the prefix's code
        (["\xe0", "l", "a"], ["à", "l", "a"]),
        (["\x00"], []),
    ],
)
def test_what_getwch_returns_is_decoded(chars: list[str], names: list[str]) -> None:
    assert windows_key_names(chars) == names


class Console:
    """A stand-in for msvcrt: the characters typed so far, read one by one."""

    def __init__(self) -> None:
        self.typed: list[str] = []

    def kbhit(self) -> bool:
        return bool(self.typed)

    def getwch(self) -> str:
        return self.typed.pop(0)


def test_only_windows_reads_through_msvcrt() -> None:
    assert console_keys("linux") is None
    assert console_keys("darwin") is None


def test_ctrl_c_is_the_interrupt_it_is_on_unix() -> None:
    console = Console()
    interrupts: list[int] = []
    keys = ConsoleKeys(console, interrupt=lambda: interrupts.append(1), size=lambda: None)
    console.typed = list("a\x03\r")
    assert keys.read() == ["a", "enter"]
    assert interrupts == [1]
    assert keys.read() == []


async def test_the_terminal_polls_the_console_for_keys_and_size(
    autojump_clock: trio.testing.MockClock,
) -> None:
    console = Console()
    sizes = [(80, 24)]
    keys = ConsoleKeys(console, interrupt=lambda: None, size=lambda: sizes[-1])
    terminal = Terminal(None, Caps(color=False), keys)
    resized: list[int] = []
    terminal.resize = lambda: resized.append(1)  # type: ignore[method-assign]
    batches = terminal.keys()
    console.typed = ["\xe0", "H", "\r"]
    assert await batches.__anext__() == ["up", "enter"]

    async def type_later() -> None:
        await trio.sleep(5)
        console.typed = ["x"]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(type_later)
        assert await batches.__anext__() == ["x"]  # waited for, by polling
    sizes.append((100, 30))
    assert await batches.__anext__() == ["resize"]
    assert resized == [1]
    assert terminal.read_keys() == []
    await batches.aclose()
