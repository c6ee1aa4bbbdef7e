"""The `skyjo-lan` command line."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from protocol.config import DEFAULT_GRACE
from protocol.errors import GroupUnavailable
from skyjo_p2p.core.errors import EngineError, OptionError
from skyjo_p2p.core.options import parse_assignments
from skyjo_p2p.engine import games, new_game

from . import cmdline
from .cmdline import DEFAULT_TURN, InputError
from .net import wordcode
from .net.ports import DEFAULT_RANGE as DEFAULT_PORT_RANGE

GAMES = games()


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=None, separators=(", ", ": ")) + "\n")


def cmd_scenario(args: argparse.Namespace) -> int:
    from skyjo_p2p.scenario import MalformedScenario, run

    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        print(f"skyjo-lan scenario: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"skyjo-lan scenario: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        print(
            f"skyjo-lan scenario: bad JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            file=sys.stderr,
        )
        return 2
    try:
        report, code = run(document)
    except MalformedScenario as exc:
        print(f"skyjo-lan scenario: {exc}", file=sys.stderr)
        return 2
    _print_json(report)
    return code


def _options(args: argparse.Namespace) -> dict[str, str]:
    return parse_assignments(args.option or [])


def cmd_simulate(args: argparse.Namespace) -> int:
    from skyjo_p2p.simulate import simulate

    options = _options(args)
    new_game(args.game, args.players, options)  # checks game, player count and options up front
    started = time.perf_counter()
    result = simulate(args.game, args.players, args.games, args.seed, options)
    wall = time.perf_counter() - started
    report = result.as_dict()
    if not args.no_timing:
        report["wall_seconds"] = round(wall, 3)
        report["moves_per_second"] = round(result.moves / wall) if wall > 0 else None
    _print_json(report)
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from . import tournament

    seats = [s.strip() for s in args.seats.split(",") if s.strip()]
    options = _options(args)
    new_game(args.game, len(seats), options)  # checks the table before any game is played
    if args.games < 1 or args.jobs < 1:
        print("skyjo-lan tournament: --games and --jobs must be at least 1", file=sys.stderr)
        return 2

    def progress(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\r{done}/{total} games", end="", file=sys.stderr, flush=True)

    try:
        report = tournament.run(args.game, seats, args.games, args.seed, options, args.jobs, progress)
    except ValueError as exc:
        print(f"skyjo-lan tournament: {exc}", file=sys.stderr)
        return 2
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)
    if args.csv:
        tournament.write_csv(report, args.csv)
    print(tournament.dumps(report) if args.json else tournament.table(report))
    return 0


def version() -> str:
    """This program's version, as installed ("0.1.0"); "unknown" when it runs from a folder that
    was never installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("skyjo-lan")
    except PackageNotFoundError:
        return "unknown"


class _VerifyProgress:
    """`verify`'s progress line on a terminal (standard error), for files long enough to wait
    for: "checking: 1,200 of 4,287 frames (28 %)", rewritten in place, erased at the end."""

    SHOW_FROM = 500
    """Frames to replay from which the line is shown."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.shown = False

    def __call__(self, checked: int, total: int) -> None:
        if total < self.SHOW_FROM:
            return
        if checked >= total:
            if self.shown:
                self.out.write("\r\x1b[K")
                self.out.flush()
            return
        self.out.write(f"\rchecking: {checked:,} of {total:,} frames ({100 * checked // total} %)")
        self.out.flush()
        self.shown = True


def cmd_verify(args: argparse.Namespace) -> int:
    """`skyjo-lan verify FILE`: exit 0 valid (finished or unfinished), 1 invalid, 2 unreadable or
    not this game's transcript (its genesis does not match the signed frames)."""
    from protocol.errors import MalformedMessage

    from .storage import verify_file

    progress = _VerifyProgress(sys.stderr) if sys.stderr.isatty() and not args.json else None
    try:
        verdict = verify_file(args.file, progress=progress).verdict
    except OSError as exc:
        print(f"skyjo-lan verify: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except MalformedMessage as exc:
        print(f"skyjo-lan verify: {args.file} is not a readable transcript: {exc.reason}", file=sys.stderr)
        return 2
    checker = f"skyjo-lan {version()}"
    if args.json:
        _print_json({**verdict.as_dict(), "checker": checker})
    else:
        _print_verdict(verdict)
        print(f"checked by {checker}")
    if verdict.not_this_game:
        return 2
    return 0 if verdict.valid else 1


def _scan(args: argparse.Namespace) -> Any:
    """This machine's saved games (or those of --dir), verified or from the history cache."""
    from pathlib import Path

    from .records.history import scan

    return scan(Path(args.dir) if args.dir else None)


def _records_command(args: argparse.Namespace, show: Callable[[Any], None]) -> int:
    """Scan, then `show` the result; a folder that cannot be listed is one line and exit 2."""
    from .records.history import FolderError

    try:
        result = _scan(args)
    except FolderError as exc:
        print(f"skyjo-lan {args.command}: {exc}", file=sys.stderr)
        return 2
    show(result)
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    """`skyjo-lan history`: the saved games, newest first, and whether each counts (exit 0)."""
    from .records import report

    def show(result: Any) -> None:
        games = [g for g in result.games if args.only is None or g.checked.game == args.only]
        shown = len(games) if args.all else max(0, args.limit)
        if args.json:
            _print_json(report.history_json(result, games, shown))
        else:
            print("\n".join(report.history_lines(result, games, shown)))

    return _records_command(args, show)


def cmd_ranking(args: argparse.Namespace) -> int:
    """`skyjo-lan ranking`: a rating per identity and game from the games that count (exit 0)."""
    from .records import report
    from .records.ranking import rank

    def show(result: Any) -> None:
        rankings = rank(result.games, args.only)
        if args.json:
            _print_json(report.ranking_json(result, rankings))
        else:
            print("\n".join(report.ranking_lines(result, rankings)))

    return _records_command(args, show)


def _print_verdict(verdict: Any) -> None:
    """The three verdicts of `verify` (finished, unfinished, invalid) for a person (names and
    reasons come from the file: a control character in them is printed as "?")."""
    from .records.report import printable

    def _say(line: str = "") -> None:
        print(printable(line))

    names = verdict.names or tuple(f"seat {s + 1}" for s in range(verdict.players))
    if verdict.valid:
        state = "finished" if verdict.finished else f"unfinished (round {verdict.round})"
        _say(
            f"valid: {verdict.game}, {verdict.players} players, {verdict.frames} frames, "
            f"{verdict.rounds_signed} round(s) signed by every seat, game {state}"
        )
        if not verdict.finished and getattr(verdict, "left", None) is not None:
            _say(f"  {verdict.stops_at}")  # "stopped: Anna (seat 2) left the table"
        elif not verdict.finished:
            where = verdict.stops_at or "before the end of the game"
            if where.startswith(("in ", "after ", "before ")):  # "in round 2, at job 57: waits for ..."
                where = f"stops {where}"  # else a sentence of its own: "the game was stopped: ..."
            _say(f"  {where}")
            _say("  everything up to there checks; nothing after it can be judged")
        if verdict.truncated:
            _say("  note: the file ends with an incomplete record (a crash?); checked up to it")
        if getattr(verdict, "duplicates", 0):
            _say(
                f"  note: the file also holds {verdict.duplicates} copies of frames it already holds: "
                "not frames of the game, not counted"
            )
        unconfirmed = getattr(verdict, "unconfirmed", [])
        if unconfirmed:  # closing chats: authentic, but no later frame of their seat was acknowledged
            _say(
                f"  note: {len(unconfirmed)} chat message(s) not confirmed by the table: another player "
                "may have been shown a different version (the result does not depend on them)"
            )
            for line in unconfirmed:
                _say(f"    {line}")
        for line in getattr(verdict, "seat_events", []):  # away, left, taken over, back (checked)
            _say(f"  {line}")
        taken = getattr(verdict, "taken_over", {})
        for seat, total in enumerate(verdict.totals):
            mark = "  winner" if verdict.finished and seat in verdict.winners else ""
            bot = f" (played by the table's bot: {taken[seat]})" if seat in taken else ""
            _say(f"  seat {seat + 1} ({names[seat]}){bot}: {total}{mark}")
        return
    if verdict.blame is not None:
        who = f"seat {verdict.blame + 1} ({names[verdict.blame]}), who signed the evidence"
    else:
        who = "no seat named (nothing in the file proves a seat at fault)"
    _say(f"INVALID: {verdict.fault}")
    _say(f"  to blame: {who}")
    for line in verdict.unconsumed:
        _say(f"  not checked: {line}")


def cmd_play(args: argparse.Namespace) -> int:
    from .ui.play import play

    if args.bots < 1:
        print("skyjo-lan play: --bots must be at least 1", file=sys.stderr)
        return 2
    return play(
        args.game,
        args.bots,
        args.bot_level,
        _options(args),
        name=args.name,
        lang=args.lang,
        no_color=args.no_color,
        ascii_only=args.ascii,
        no_bell=args.no_bell,
    )


def cmd_replay(args: argparse.Namespace) -> int:
    from .ui.replay import replay

    return replay(args.file, lang=args.lang, no_color=args.no_color, ascii_only=args.ascii)


def _setup_logging(verbose: bool, command: str = "skyjo-lan") -> None:
    """The log goes to a file (`client.logs`); to standard error too until a screen takes the
    terminal (warnings, or everything with `verbose`)."""
    from . import logs

    logs.setup(command, verbose)


PASSWORD_ENV = "SKYJO_LAN_PASSWORD"


def _bot_without_screen(args: argparse.Namespace, command: str) -> None:
    """Without a screen (standard input or output not a terminal: a service, `nohup`, a pipe)
    nobody could make this seat's moves, and the table would wait for it until it is declared
    absent. A bot plays it instead, and the first line says so and how to choose its level."""
    if args.bot is None:
        args.bot = "greedy"
        print(
            f"skyjo-lan {command}: no terminal to play on: a greedy bot plays your seat "
            "(choose it with --bot LEVEL, or run this in a terminal to play yourself)",
            file=sys.stderr,
            flush=True,
        )


def _has_terminal() -> bool:
    """Whether a person can be asked something (standard input is a terminal, and open)."""
    return sys.stdin is not None and sys.stdin.isatty()


def _password(args: argparse.Namespace, *, hosting: bool) -> str | None:
    """The table password for `--password`, as SPAKE2 will use it, or None without `--password`
    and without $SKYJO_LAN_PASSWORD.

    From $SKYJO_LAN_PASSWORD (set, it is the password even without `--password`), else asked at
    the terminal. A host that gives none (Enter at the
    prompt, or no terminal at all) gets a generated word code, printed so it can be read aloud;
    a joiner without a terminal or the variable gets a line saying how to give it. Word codes are
    rewritten to one spelling here, on both sides (`wordcode.canonical`), so that a joiner typing
    "42 Guitarist revenge hurricane" matches the host's "42-guitarist-revenge-hurricane"."""
    env = os.environ.get(PASSWORD_ENV)
    if not args.password and not (env or "").strip():
        return None  # (a password in the variable is used without `--password` too: issue 28)
    if env is not None:
        if not env.strip():
            raise InputError(
                f"{PASSWORD_ENV} is empty: put the table's password in it, or unset it to be asked"
            )
        return wordcode.canonical(_utf8(env, PASSWORD_ENV))
    if not _has_terminal():
        if hosting:
            return _announce_code(wordcode.generate())
        raise InputError(
            f"this table needs a password and there is no terminal to ask it: set {PASSWORD_ENV}"
        )
    import getpass

    code = wordcode.generate() if hosting else ""
    prompt = f"table password (press Enter to use the code {code}): " if hosting else "table password: "
    try:
        typed = getpass.getpass(prompt)
    except EOFError:
        typed = ""
    except UnicodeDecodeError:
        raise InputError("the password typed is not valid text in this terminal's encoding") from None
    if not typed.strip():
        if hosting:
            return _announce_code(code)
        raise InputError(f"no password given (the table needs one; {PASSWORD_ENV} also gives it)")
    return wordcode.canonical(_utf8(typed, "the password"))


def _utf8(text: str, what: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{what} is not valid UTF-8 text") from None
    return text


def _announce_code(code: str) -> str:
    """Print a generated password where the host (or the log of a service) shows it."""
    print(f"table password: {code} (read it to the players; spaces or capitals do not matter)", flush=True)
    return code


def _default_nick() -> str:
    """The name given before (stored with the identity), else $USER ($USERNAME on Windows) when it
    makes a usable name at the table, else "player"."""
    from . import storage

    for name in (
        storage.stored_name(),
        (os.environ.get("USER") or os.environ.get("USERNAME") or "player")[: cmdline.NICK_MAX_CHARS],
    ):
        try:
            if name:
                return cmdline.nick(name)
        except InputError:
            continue
    return "player"


def _player_nick(args: argparse.Namespace, given: str | None, option: str) -> str:
    """The player's name at a network table, as `play` finds it: the one given (kept as this
    user's name when none is kept yet, so that `join --name Ben` is Ben next time too), else the
    kept one, else asked at a terminal (the first time, as `play` asks) and kept, else the
    default (`_default_nick`)."""
    from . import storage

    if given is not None:
        nick = cmdline.nick(given, option)
        if storage.stored_name() is None:
            storage.store_name(nick)
        return nick
    stored = storage.stored_name()
    if stored is None and getattr(args, "bot", None) is None and _has_terminal():
        from .ui.caps import detect_lang
        from .ui.i18n import tr

        default = _default_nick()
        try:
            typed = input(tr(detect_lang(args.lang), "play.ask_name", default=default)).strip()
        except (EOFError, UnicodeDecodeError):
            typed = ""
        try:
            nick = cmdline.nick(typed) if typed else default
        except InputError as exc:
            print(f"skyjo-lan: {exc}; playing as {default}", file=sys.stderr)
            nick = default
        storage.store_name(nick)
        return nick
    return _default_nick()


NAME_NOTICE = "--name now names the player; use --table for the table"
"""What `host --name X` without `--table` prints: X still names the table, as it used to."""


def _network_args(args: argparse.Namespace) -> None:
    """Check (and normalise in place) what `host` and `join` were given, before anything opens:
    one clear line (`InputError`) for a port out of range or in use, an address that is not this
    machine's, a table name mDNS cannot carry, an address without its port...

    `--name` names the player and `--table` the table, in every command. The old spelling of `host`,
    `--name` for the table, still works when `--table` is not given: `--name` then names the table
    (with a one-line notice), and the player's name comes from `--nick`/`--as` or the default."""
    player = args.player
    table_option = "--table"
    if args.command == "host" and args.name is None and player is not None:
        print(NAME_NOTICE, file=sys.stderr)
        args.name, player, table_option = player, None, "--name"
    if args.command == "join" and args.table_flag is not None:
        if args.table is not None and args.table != args.table_flag:
            raise InputError("give the table once: as --table NAME or as the first argument")
        args.table = args.table_flag
    given = player if player is not None else args.nick
    args.nick = _player_nick(args, given, "--name" if player else "--nick")
    if args.games is not None and args.games < 0:
        raise InputError(f"--games is 0 (no bound) or more, not {args.games}")
    if args.interface is not None:
        args.interface = cmdline.interface(args.interface)
    if args.command == "host":
        args.port = cmdline.port(args.port)
        cmdline.port_is_free(args.interface or "0.0.0.0", args.port)
        args.name = (
            cmdline.table_name(args.name, table_option)
            if args.name is not None
            else _default_table(args.nick)
        )
    else:
        args.table = cmdline.join_target(args.table)


def _default_table(nick: str) -> str:
    """The default table name, "NICK's table", shortened to fit in 63 bytes, without '.' or ':'."""
    name = nick.replace(".", " ").replace(":", " ").strip() or "player"
    while len(f"{name}'s table".encode()) > cmdline.TABLE_NAME_MAX_BYTES:
        name = name[:-1]
    return cmdline.table_name(f"{name.rstrip()}'s table")


def _port_range(args: argparse.Namespace) -> None:
    """Listen in `--port-range` from now on (the default range when it is not given)."""
    from .net import ports

    try:
        ports.use(ports.parse_range(args.port_range))
    except ValueError as exc:
        raise InputError(str(exc)) from None


def cmd_host(args: argparse.Namespace) -> int:
    _setup_logging(args.verbose, args.command)
    _port_range(args)
    if args.resume:
        return _resume(args)
    _network_args(args)
    options = _options(args)
    seats = args.seats
    new_game(args.game, seats, options)  # checks game, seat count and options before opening
    if args.bots >= seats:
        print("skyjo-lan host: --bots must leave at least the host's seat", file=sys.stderr)
        return 2
    if args.bot is None and _has_terminal() and sys.stdout.isatty():
        return _with_screen("host", args, options)
    _bot_without_screen(args, "host")
    # the table's code (trio, the sessions, mDNS: most of a start's time) is imported once the
    # arguments are known to be right: a mistyped option is answered at once
    from .table.commands import run_host
    from .table.host import HostOptions

    opts = HostOptions(
        game=args.game,
        options=options,
        table=args.name,
        seats=seats,
        bots=args.bots,
        bot_level=args.bot_level,
        password=_password(args, hosting=True),
        port=args.port,
        interface=args.interface or "0.0.0.0",
        name=args.nick,
        headless=args.bot,
        advertise=not args.no_mdns,
        think_time=args.think_time,
        games=_games(args, screen=False),
        **_table_settings(args),
    )
    return run_host(opts)


def _games(args: argparse.Namespace, *, screen: bool) -> int:
    """How many games to play at the table (`--games`; 0: no bound): by default one without a
    screen (a bot, a script: the command ends as it always did), no bound for a person at the
    screen (the table stays open until they leave it)."""
    if args.games is not None:
        return int(args.games)
    return 0 if screen else 1


def _table_settings(args: argparse.Namespace) -> dict[str, Any]:
    """`host`'s table settings: the move countdown, the grace, seat insurance, spectators."""
    from .table.spectators import MOST_SPECTATORS

    return {
        "turn": args.turn,
        "grace": args.grace,
        "insured": not args.no_seat_insurance,
        "spectators": 0 if args.no_spectators else MOST_SPECTATORS,
        "fill_after": args.fill_with_bots,
    }


def cmd_join(args: argparse.Namespace) -> int:
    _setup_logging(args.verbose, args.command)
    _port_range(args)
    if args.resume:
        return _resume(args)
    _network_args(args)
    if args.bot is None and _has_terminal() and sys.stdout.isatty():
        return _with_screen("join", args, {})
    pick = _pick_table if _has_terminal() and args.bot is None else None
    _bot_without_screen(args, "join")
    from .table.commands import run_join
    from .table.join import JoinOptions

    opts = JoinOptions(
        target=args.table,
        name=args.nick,
        password=_password(args, hosting=False),
        headless=args.bot,
        interface=args.interface or "0.0.0.0",
        pick=pick,
        think_time=args.think_time,
        games=_games(args, screen=False),
    )
    return run_join(opts)


def _resume(args: argparse.Namespace) -> int:
    """`--resume`: the game screen again for a person at a terminal, else a bot plays the seat."""
    if args.bot is None and _has_terminal() and sys.stdout.isatty():
        from .ui.network import run_resume_screen

        return run_resume_screen(
            lang=args.lang, no_color=args.no_color, ascii_only=args.ascii, no_bell=args.no_bell
        )
    _bot_without_screen(args, args.command)
    from .table.commands import run_resume

    return run_resume(args.bot)


def _with_screen(command: str, args: argparse.Namespace, options: dict[str, str]) -> int:
    """host/join in the terminal UI (a person at this seat)."""
    import trio

    from . import logs, storage

    logs.screen_owns_terminal()  # the log goes to its file only: nothing lands on the screen
    from .table.commands import _network_errors
    from .table.host import HostOptions
    from .table.join import JoinOptions
    from .ui.network import host_with_screen, join_with_screen

    identity = storage.load_identity()
    screen = {"lang": args.lang, "no_color": args.no_color, "ascii_only": args.ascii, "no_bell": args.no_bell}
    password = _password(args, hosting=command == "host")
    if command == "host":
        opts = HostOptions(
            game=args.game,
            options=options,
            table=args.name,
            seats=args.seats,
            bots=args.bots,
            bot_level=args.bot_level,
            password=password,
            port=args.port,
            interface=args.interface or "0.0.0.0",
            name=args.nick,
            advertise=not args.no_mdns,
            games=_games(args, screen=True),
            **_table_settings(args),
        )
        return _network_errors(lambda: trio.run(lambda: host_with_screen(opts, identity, **screen)), "host")
    join_opts = JoinOptions(
        target=args.table,
        name=args.nick,
        password=password,
        interface=args.interface or "0.0.0.0",
        pick=_pick_table,
        games=_games(args, screen=True),
    )
    return _network_errors(lambda: trio.run(lambda: join_with_screen(join_opts, identity, **screen)), "join")


def cmd_watch(args: argparse.Namespace) -> int:
    """`skyjo-lan watch [TABLE | HOST:PORT]`: follow a running table read-only (a spectator)."""
    from .table.commands import _network_errors
    from .table.watch import WatchOptions, watch

    _setup_logging(args.verbose, args.command)
    if args.table_flag is not None:
        if args.table is not None and args.table != args.table_flag:
            raise InputError("give the table once: as --table NAME or as the first argument")
        args.table = args.table_flag
    opts = WatchOptions(
        target=cmdline.join_target(args.table),
        password=_password(args, hosting=False),
        interface=cmdline.interface(args.interface) if args.interface else "0.0.0.0",
    )
    import trio

    if _has_terminal() and sys.stdout.isatty() and not args.plain:
        from . import logs
        from .ui.caps import detect_caps, detect_lang
        from .ui.watching import watch_with_screen

        logs.screen_owns_terminal()
        lang = detect_lang(args.lang)
        caps = detect_caps(no_color=args.no_color, ascii_only=args.ascii, no_bell=True)
        return _network_errors(
            lambda: trio.run(lambda: watch_with_screen(opts, lang=lang, caps=caps)), "watch"
        )
    return _network_errors(lambda: trio.run(watch, opts), "watch")


def _pick_table(tables: list[Any]) -> Any:
    for number, ad in enumerate(tables, start=1):
        lock = " (password)" if ad.password else ""
        print(f"  {number}. {ad.name}: {ad.game}, {_seated(ad)}, {ad.host}:{ad.port}{lock}")
    while True:
        try:
            answer = input("table number (Enter for 1, q to quit): ").strip().lower()
        except EOFError:
            return None
        if answer in ("q", "quit"):
            return None
        if not answer:
            return tables[0]
        if answer.isdigit() and 1 <= int(answer) <= len(tables):
            return tables[int(answer) - 1]


def _seated(ad: Any) -> str:
    """A table's seats as a list shows them: "2/3 seated", "full (3/3)", or "playing (watch it)"."""
    if ad.playing:
        return f"playing, {ad.taken}/{ad.seats} (`skyjo-lan watch` follows it)"
    if ad.taken >= ad.seats:
        return f"full ({ad.taken}/{ad.seats})"
    return f"{ad.taken}/{ad.seats} seated"


def cmd_discover(args: argparse.Namespace) -> int:
    import trio

    from .net.discovery import browse

    interfaces = [cmdline.interface(args.interface)] if args.interface else None
    tables = trio.run(browse, args.seconds, interfaces)
    if args.json:
        _print_json([t.as_dict() for t in tables])
        return 0
    if not tables:
        print("no table found on the LAN")
        return 0
    for ad in tables:
        if ad.compatible:
            lock = ", password" if ad.password else ""
            print(f"{ad.name}: {ad.game}, {_seated(ad)}{lock}, {ad.host}:{ad.port}")
        else:
            print(f"{ad.name}: incompatible ({ad.problem})")
    return 0


class _VersionAction(argparse.Action):
    """`--version`: "skyjo-lan 0.1.0 (crypto: ...)", the backend of `protocol.crypto.group`."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from protocol.crypto import group

        print(f"skyjo-lan {version()} (crypto: {group.backend()})")
        parser.exit()


class _DefaultsShown(argparse.HelpFormatter):
    """Help that shows each option's default ("(default: 3)"), unless its text already says it or
    there is none worth saying (no value, a flag that is off)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (
            not action.option_strings
            or "default" in text
            or action.default is None
            or action.default is False
            or action.default == argparse.SUPPRESS
        ):
            return action.help
        return f"{text} (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skyjo-lan",
        description="SKYJO, SKYJO ACTION and SKIP-BO with friends on a home network.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="show the version and the crypto backend, and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def screen_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--lang", choices=("en", "fr", "de"), help="the screen's language (default: the locale's)"
        )
        p.add_argument("--no-color", action="store_true", help="no colours (also: NO_COLOR=1, TERM=dumb)")
        p.add_argument(
            "--ascii",
            action="store_true",
            help="ASCII drawing only (chosen for you if the locale is not UTF-8)",
        )

    p = sub.add_parser(
        "play", help="play on this machine against bots (no network needed)", formatter_class=_DefaultsShown
    )
    p.add_argument("--game", choices=GAMES, default="skyjo", help="the game")
    p.add_argument("--bots", type=int, default=3, help="how many bots sit at the table")
    p.add_argument(
        "--bot-level", choices=("random", "greedy", "strong"), default="greedy", help="how well they play"
    )
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="a game option (repeatable)")
    p.add_argument(
        "--name", help="your name at the table (default: the name given before; asked on the first run)"
    )
    p.add_argument(
        "--no-bell", action="store_true", help="no bell (and no window title) when your turn comes"
    )
    screen_options(p)
    p.set_defaults(func=cmd_play)

    def network_options(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--name",
            dest="player",
            default=None,
            help="your name at the table (at most 32 characters; default: the name given before, else $USER)",
        )
        p.add_argument(
            "--nick", "--as", dest="nick", default=None, help="the same as --name (older spellings)"
        )
        p.add_argument(
            "--password", action="store_true", help="the table has a password (asked, or $SKYJO_LAN_PASSWORD)"
        )
        p.add_argument(
            "--bot",
            metavar="LEVEL",
            choices=("random", "greedy", "strong"),
            help="play this seat with a bot (no terminal needed)",
        )
        p.add_argument(
            "--resume", action="store_true", help="continue this machine's unfinished game after a crash"
        )
        p.add_argument(
            "--interface",
            default=None,
            metavar="IP",
            help="listen and announce on this IPv4 address of this machine only",
        )
        p.add_argument(
            "--port-range",
            default=str(DEFAULT_PORT_RANGE),
            metavar="LOW-HIGH",
            help=f"listen on free ports of this range, so one firewall rule covers the evening "
            f"(default {DEFAULT_PORT_RANGE}; 'any': any free port)",
        )
        p.add_argument(
            "--games",
            type=int,
            default=None,
            metavar="N",
            help="play N games at the table, one after another (0: no bound); default: no bound "
            "for a person at the screen (the table stays open until you leave), 1 otherwise",
        )
        p.add_argument("--think-time", type=float, default=0.0, help=argparse.SUPPRESS)
        p.add_argument(
            "-v",
            "--verbose",
            action="store_true",
            help="log everything to standard error too (without a screen)",
        )
        p.add_argument("--lang", choices=("en", "fr", "de"), default=None, help="language of the screen")
        p.add_argument("--no-color", action="store_true", help="no colours (also NO_COLOR or TERM=dumb)")
        p.add_argument("--ascii", action="store_true", help="ASCII drawing instead of Unicode")
        p.add_argument(
            "--no-bell", action="store_true", help="no bell (and no window title) when your turn comes"
        )

    p = sub.add_parser("host", help="open a table on the LAN and play", formatter_class=_DefaultsShown)
    p.add_argument("--game", choices=GAMES, default="skyjo", help="the game")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="a game option (repeatable)")
    p.add_argument(
        "--table",
        dest="name",
        help="the table's name, shown to others (at most 63 bytes of UTF-8; no '.' or ':'); "
        "--name alone, the old spelling, still names the table (with a notice)",
    )
    p.add_argument("--seats", type=int, default=4, help="players at the table, bots included")
    p.add_argument("--bots", type=int, default=0, help="bot peers this machine adds")
    p.add_argument(
        "--bot-level", choices=("random", "greedy", "strong"), default="greedy", help="how well they play"
    )
    p.add_argument("--port", default="0", help="the lobby's TCP port, 1-65535 (default 0: any free port)")
    p.add_argument("--no-mdns", action="store_true", help="do not announce the table (join with HOST:PORT)")
    p.add_argument(
        "--turn",
        type=int,
        default=DEFAULT_TURN,
        metavar="SECONDS",
        help=f"a person's move countdown; at zero their own program plays until they press a key "
        f"(default {DEFAULT_TURN}; 0: no countdown)",
    )
    p.add_argument(
        "--grace",
        type=int,
        default=DEFAULT_GRACE,
        metavar="SECONDS",
        help=f"how long a seat that stopped answering may come back before the others go on "
        f"without it (default {DEFAULT_GRACE})",
    )
    p.add_argument(
        "--fill-with-bots",
        type=int,
        default=None,
        metavar="AFTER_SECONDS",
        help="a seat still free AFTER_SECONDS after a lobby opens is given to a bot (each game of "
        "the evening); in the lobby, b does it at once",
    )
    p.add_argument(
        "--no-spectators",
        action="store_true",
        help="refuse spectators (`skyjo-lan watch`); default: up to 16",
    )
    p.add_argument(
        "--no-seat-insurance",
        action="store_true",
        help="no key escrow: the game stops if a player vanishes, instead of a bot taking the seat",
    )
    network_options(p)
    p.set_defaults(func=cmd_host)

    p = sub.add_parser(
        "join", help="find a table on the LAN (or HOST:PORT) and play", formatter_class=_DefaultsShown
    )
    p.add_argument(
        "table", nargs="?", help="a table name, or HOST:PORT; without it, choose from the tables found"
    )
    p.add_argument("--table", dest="table_flag", metavar="TABLE", help="the same as the first argument")
    network_options(p)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser(
        "watch", help="follow a running table read-only, as a spectator", formatter_class=_DefaultsShown
    )
    p.add_argument("table", nargs="?", help="a table name, or HOST:PORT; without it, the first table found")
    p.add_argument("--table", dest="table_flag", metavar="TABLE", help="the same as the first argument")
    p.add_argument(
        "--password", action="store_true", help="the table has a password (asked, or $SKYJO_LAN_PASSWORD)"
    )
    p.add_argument(
        "--interface", default=None, metavar="IP", help="look for the table on this address's network"
    )
    p.add_argument("--plain", action="store_true", help="print the game as lines, even in a terminal")
    p.add_argument("-v", "--verbose", action="store_true", help="log everything to standard error too")
    p.add_argument("--lang", choices=("en", "fr", "de"), default=None, help="language of the screen")
    p.add_argument("--no-color", action="store_true", help="no colours (also NO_COLOR or TERM=dumb)")
    p.add_argument("--ascii", action="store_true", help="ASCII drawing instead of Unicode")
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser(
        "discover", help="list the tables announced on the LAN", formatter_class=_DefaultsShown
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--seconds", type=float, default=3.0, help="how long to listen")
    p.add_argument("--interface", default=None, metavar="IP")
    p.set_defaults(func=cmd_discover)

    p = sub.add_parser("history", help="list this machine's saved games, each verified, newest first")
    p.add_argument("--game", dest="only", choices=GAMES, default=None, help="this game only")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="show the N newest (default 20)")
    p.add_argument("--all", action="store_true", help="show every saved game")
    p.add_argument("--json", action="store_true", help="print the listing as JSON")
    p.add_argument("--dir", metavar="FOLDER", help="the games of FOLDER (default: this machine's)")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("ranking", help="rate each player per game from the verified, finished games")
    p.add_argument("--game", dest="only", choices=GAMES, default=None, help="this game only")
    p.add_argument("--json", action="store_true", help="print the rankings as JSON")
    p.add_argument("--dir", metavar="FOLDER", help="the games of FOLDER (default: this machine's)")
    p.set_defaults(func=cmd_ranking)

    p = sub.add_parser("verify", help="re-check a saved game: every signature, proof, move and score")
    p.add_argument("file", help="a transcript file (saved games are under $XDG_DATA_HOME/skyjo-lan/games/)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("replay", help="step through a saved game, forward and back")
    p.add_argument("file", help="a saved game (under $XDG_DATA_HOME/skyjo-lan/games/)")
    screen_options(p)
    p.set_defaults(func=cmd_replay)

    # for developers: scripted games, statistics, bot tournaments
    p = sub.add_parser("scenario", help="play a scripted game from a JSON file and print the table")
    p.add_argument("file", help="the scenario file, or - for standard input")
    p.set_defaults(func=cmd_scenario)

    p = sub.add_parser("simulate", help="play many games with random legal moves and print statistics")
    p.add_argument("--game", choices=GAMES, default="skyjo")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="a game option (repeatable)")
    p.add_argument(
        "--no-timing",
        action="store_true",
        help="leave out wall time and speed (output depends on the seed only)",
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("tournament", help="play bots against each other and print win rates and scores")
    p.add_argument("--game", choices=GAMES, default="skyjo")
    p.add_argument(
        "--seats", default="strong,greedy,greedy,greedy", help="bot level per seat, comma-separated"
    )
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes (use 2 for both cores)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="a game option (repeatable)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--csv", metavar="FILE", help="also write the table to FILE as CSV")
    p.set_defaults(func=cmd_tournament)
    return parser


def _ctrl_c_ends_the_program() -> None:
    """A player at the terminal who presses Ctrl-C means it: SIGINT ends the program (one line,
    exit status 130) even when it was started with SIGINT ignored or blocked, as a launcher or a
    parent process may leave it (Python then leaves it ignored, and the screen's own Ctrl-C key,
    which raises SIGINT, would do nothing). Only with a terminal on standard input: a program a
    script started in the background (standard input not a terminal) keeps what it was given."""
    try:
        if sys.stdin is None or not sys.stdin.isatty():
            return
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    except (ValueError, OSError):  # not the main thread (a test calling `main`), or no stdin
        return


def main(argv: Sequence[str] | None = None) -> int:
    _ctrl_c_ends_the_program()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if hasattr(args, "game") and args.game not in games():
        print(f"skyjo-lan: the game {args.game!r} is not available yet", file=sys.stderr)
        return 2
    if args.command in ("play", "replay", "discover"):
        _setup_logging(False, args.command)  # host and join: with their --verbose
    try:
        code: int = args.func(args)
    except (OptionError, EngineError, InputError) as exc:
        print(f"skyjo-lan {args.command}: {exc.reason}", file=sys.stderr)
        return 2
    except GroupUnavailable as exc:  # the crypto library cannot load here: say why, no traceback
        print(f"skyjo-lan {args.command}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `skyjo-lan verify FILE | head`: the reader has what it wanted
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 0
    except BaseException as exc:  # Ctrl-C anywhere: one line, never a traceback
        from . import logs

        if not logs.is_interrupt(exc):
            raise
        print(logs.interrupted(args.command), file=sys.stderr, flush=True)
        return 130
    return code
