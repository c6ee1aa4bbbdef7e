"""`host`, `join` and `--resume` without the screen, and how a network command ends.

What ends a network command that is not a bug (a refused or broken connection, a port in use, a
table the options refuse) is one line on standard error (`_network_errors`).
"""

from __future__ import annotations

import errno
import logging
import sys
from collections.abc import Callable

import trio

from client import cmdline, logs, storage
from client.net import ports
from client.net.addresses import Unresolved
from client.net.framing import FramingError
from client.net.hints import reach_hint
from client.net.link import LinkError, Refused
from skyjo_p2p.core.errors import OptionError

from .host import Host, HostOptions
from .join import Joiner, JoinOptions
from .peer import PeerRunner
from .resume import resume
from .saved import latest_resumable
from .seat import Say, print_line

log = logging.getLogger("skyjo_lan.net")


def parse_hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``[IPv6]:PORT``) as a host and a port 1-65535; `cmdline.InputError`
    with one line otherwise (a bare address without its port included)."""
    return cmdline.hostport(text)


_KNOWN_ERRORS = (
    Refused,
    LinkError,
    FramingError,
    OSError,
    trio.TooSlowError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
    OptionError,
)
"""What a network command may end with that is not a bug: each is told in one line."""

_USER_ERRNOS = {
    errno.EADDRINUSE: "a port it needs is already in use",
    errno.EADDRNOTAVAIL: "an address it was given is not one of this machine's",
    errno.EACCES: "permission denied (ports below 1024 need privileges)",
}
"""Listening errors that come from what was typed (a port, an --interface): exit status 2."""


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, in order; `exc` itself otherwise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _one_line(exc: BaseException) -> tuple[str, int] | None:
    """The line and exit status that tell `exc` (a single error or a group of them), or None
    when it holds anything else (a bug: its traceback is worth more than a summary)."""
    leaves = _leaves(exc)
    if logs.is_interrupt(exc):
        return "", 130
    if not leaves or not all(isinstance(leaf, _KNOWN_ERRORS) for leaf in leaves):
        return None
    for leaf in leaves:  # the most telling first: a refused table, then what was typed
        if isinstance(leaf, OptionError):
            return leaf.reason, 2
    for leaf in leaves:
        if isinstance(leaf, Refused):
            return f"refused: {leaf}", 1
    for leaf in leaves:
        if isinstance(leaf, OSError) and leaf.errno in _USER_ERRNOS:
            return _USER_ERRNOS[leaf.errno], 2
        if isinstance(leaf, Unresolved):  # a typed name, most of the time
            return str(leaf), 2
    leaf = leaves[0]
    if isinstance(leaf, trio.BrokenResourceError | trio.ClosedResourceError):
        return "the connection was closed by the other end", 1
    text = str(leaf) if not isinstance(leaf, OSError) or leaf.errno is None else leaf.strerror
    hint = reach_hint(leaf, str(ports.in_force() or ports.DEFAULT_RANGE))
    return f"network error: {text or type(leaf).__name__}" + (f"; {hint}" if hint else ""), 1


def _network_errors(run: Callable[[], int], command: str) -> int:
    """Run a network command; what ends it that is not a bug (a refused or broken connection, a
    port in use, a table the options refuse), even raised inside a trio nursery as an exception
    group, is one line on standard error: ``skyjo-lan COMMAND: ...`` naming the log file. Exit
    status 2 for what was typed (options, a port, an address), 1 for the network, 130 for Ctrl-C
    ("Interrupted", and where the game is saved if it is)."""
    try:
        return run()
    except BaseException as exc:
        told = _one_line(exc)
        if told is None:
            raise
        line, code = told
        if code == 130:
            log.info("%s interrupted", command)
            print(logs.interrupted(command), file=sys.stderr, flush=True)
        elif line:
            log.info("%s ends: %s", command, line, exc_info=exc, extra=logs.FILE_ONLY)
            hint = logs.log_hint() if code == 1 else ""
            print(f"skyjo-lan {command}: {line}{hint}", file=sys.stderr, flush=True)
        return code


def run_host(opts: HostOptions, say: Say = print_line) -> int:
    """`skyjo-lan host` without the screen: the lobby and the game as lines on `say`."""
    identity = storage.load_identity()

    async def main() -> int:
        host = Host(opts, identity, say)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_wait_for_enter, host)  # a bot's seat too: Enter may start early
            runner = await host.run()
            nursery.cancel_scope.cancel()
        return _exit_code(runner)

    return _network_errors(lambda: trio.run(main), "host")


async def _wait_for_enter(host: Host) -> None:
    """Start the game when the host presses Enter; with no terminal, when every seat is taken.

    The end of standard input (closed: a service, `nohup`, CI; or Ctrl-D) is not a request to
    start: a table started then would start alone and stop. Lines from a pipe still start it."""
    stdin = sys.stdin
    terminal = stdin is not None and stdin.isatty()
    if terminal:
        host.say("press Enter to start the game with the players seated now")
    else:
        host.say("no terminal: the game starts when every seat is taken")
    async with trio.open_nursery() as nursery:
        if not terminal:
            nursery.start_soon(_start_when_full, host)
        while stdin is not None and not host.started:  # Enter again after a refused start
            try:
                line = await trio.to_thread.run_sync(stdin.readline, abandon_on_cancel=True)
            except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
                line = ""
            if not line:
                break
            host.start_now.set()
            await trio.sleep(0.1)
        if terminal and not host.started:
            host.say("end of input: the game starts when every seat is taken")
            nursery.start_soon(_start_when_full, host)


async def _start_when_full(host: Host) -> None:
    """Ask the host to start as soon as every seat is taken (players and bots)."""
    while not host.started:
        if len(host.seats) + host.opts.bots >= host.opts.seats:
            host.start_now.set()
            return
        await host.lobby_changed.wait()


def run_join(opts: JoinOptions, say: Say = print_line) -> int:
    """`skyjo-lan join` without the screen."""
    identity = storage.load_identity()

    async def main() -> int:
        return _exit_code(await Joiner(opts, identity, say).run_games())

    return _network_errors(lambda: trio.run(main), "join")


def run_resume(headless: str | None, say: Say = print_line) -> int:
    """`--resume`: continue this machine's latest unfinished game."""
    from .which import told

    identity = storage.load_identity()
    info = latest_resumable()
    if info is None:
        print("skyjo-lan: no unfinished game to resume on this machine", file=sys.stderr, flush=True)
        return 2
    told(info, say, None)  # which game, who answers (a bot waits for them)

    async def main() -> int:
        return _exit_code(await resume(identity, info, headless, say))

    return _network_errors(lambda: trio.run(main), "resume")


def _exit_code(runner: PeerRunner | None) -> int:
    """0 for a finished game, 1 for one that stopped (halted, left, or never started)."""
    if runner is None:
        return 1
    if runner.status.halted:
        return 1
    return 0 if runner.status.finished else 1
