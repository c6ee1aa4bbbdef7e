"""The terminal user interface: what people see and press.

Entry points (all under trio; each opens the terminal itself unless given one, so that a lobby
and the game that follows can share one screen)::

    from client.ui import open_terminal, detect_caps, run_lobby_ui, run_game_ui, LobbyView, LobbySeat

    async with open_terminal(detect_caps(no_color=..., ascii_only=...)) as terminal:
        outcome = await run_lobby_ui(lobby_source, terminal=terminal)  # "start", "leave" or "closed"
        if outcome == "start":
            await run_game_ui(runner, terminal=terminal, saved=str(transcript_path))

* `run_game_ui(runner, *, lang, caps, terminal, saved, footer)` plays the seat of a
  `runner.GameRunner` (a `client.table.peer.PeerRunner`) that something else runs
  (`client.table.local.LocalTable` for `skyjo-lan play`, the LAN mesh for `host`/`join`). It reads
  `runner.view`, `log`, `status`, `links` (the status line shows each seat's `LinkState`: connected,
  reconnecting with `retry_in` counting down, blamed, gone) and waits on `runner.changed`; it
  calls `submit_move` and `send_chat`. It returns when the player leaves (`q`), which the caller
  turns into cancelling the table. `saved` is the transcript's path, shown on the result screen.
* `run_lobby_ui(source, *, lang, caps, terminal)` shows a `LobbyView` and returns "start" when
  the view says `starting`, "leave" when the player leaves (after `await source.leave()`), or
  "closed" after a key once the view says `closed`. `source` follows `lobby.LobbySource`:
  ``lobby() -> LobbyView``, ``changed() -> trio.Event`` (a fresh event set at the next change),
  ``async set_ready(bool)``, ``async start()`` (host only), ``async send_chat(text)``,
  ``async leave()``.
* `LobbyView` fields: `table` (name), `game`, `seats` (a `LobbySeat` per seat: `name`,
  `fingerprint` (`client.storage.fingerprint`), `ready`, `bot`, `host`, `me`, `link`,
  `retry_in`, `known` (seen before on this machine, or None), `empty` for a free seat),
  `options` (name -> value), `password` (bool), `is_host`, `address` ("HOST:PORT" friends can
  join), `status` (a message in the player's language), `can_start`, `starting`, `closed` (why
  the table closed), `chat` ((name, text) pairs).

How it is built (see docs/user-guide.md for what it looks like):

==================  ===========================================================================
module              does
==================  ===========================================================================
`caps`              Unicode or ASCII (the locale's codeset), colour or not, the language
`i18n`, `catalogue` every string, English, French and German (gettext files `catalogue/*.po`)
`model`             the view-model: `ScreenModel`, `Decision` (legal moves as paths of targets)
`targets`           what the cursor can be on: `GridTarget`, `PileTarget`, `ButtonTarget` ...
`games`             one `GameScreen` per game (`games.skyjo`, ...): table model (`model`),
                    decisions, prompts, the log's sentences (`narrate`), drawing (`draw`)
`app`               `GameUI`: the controller (keys -> effects; builds the `ScreenModel`)
`decisions`         walking a decision's paths; the cursor's moves
`render`, `cards`   pure drawing: (model, width, height, caps) -> `canvas.Frame`
`widgets`           drawing every screen shares (log, buttons, dialogs)
`runner`            `GameRunner`: what the screen needs of a live table
`terminal`, `run`   the thin curses layer and the trio screen loop
`lobby`, `replay`   the lobby screen; `skyjo-lan replay`
`play`              `skyjo-lan play`
==================  ===========================================================================
"""

from __future__ import annotations

from .caps import Caps, detect_caps, detect_lang
from .lobby import LobbySeat, LobbySource, LobbyView, run_lobby_ui
from .run import run_game_ui
from .terminal import open_terminal

__all__ = [
    "Caps",
    "LobbySeat",
    "LobbySource",
    "LobbyView",
    "detect_caps",
    "detect_lang",
    "open_terminal",
    "run_game_ui",
    "run_lobby_ui",
]
