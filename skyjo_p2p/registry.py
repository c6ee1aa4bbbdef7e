"""The games this package plays: one record per game, the one place a game is registered.

The engine finds a game's rules here, the scenario runner its scenario format, `make_bot` its
bots, the command line and discovery the names they accept. Adding a game means adding its
package (``rules.py`` with `RULES`, ``options.py`` with `check`, ``scenario.py`` with `FORMAT`)
and one `Game` below. Nothing here imports a game: a package is imported when first asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Game:
    """One game: its name on the wire, its title for people, its package, seats and bots.

    `package` holds ``RULES`` (the engine's `Rules`), an ``options`` module with
    ``check(players, options)`` and a ``scenario`` module with ``FORMAT``. `bots` maps a level
    (beyond ``random``, which plays every game) to the ``"module:Class"`` of its bot.
    """

    name: str
    title: str
    package: str
    min_players: int
    max_players: int
    bots: Mapping[str, str]

    @property
    def options_module(self) -> str:
        return f"{self.package}.options"

    @property
    def scenario_module(self) -> str:
        return f"{self.package}.scenario"


def _bots(greedy: str, strong: str) -> Mapping[str, str]:
    base = "skyjo_p2p.bots."
    return MappingProxyType({"greedy": base + greedy, "strong": base + strong})


GAMES: Mapping[str, Game] = MappingProxyType(
    {
        game.name: game
        for game in (
            Game(
                "skyjo",
                "SKYJO",
                "skyjo_p2p.skyjo",
                2,
                8,
                _bots("skyjo_greedy:SkyjoGreedyBot", "skyjo_strong:SkyjoStrongBot"),
            ),
            Game(
                "skyjo-action",
                "SKYJO ACTION",
                "skyjo_p2p.action",
                1,  # the widest range; each variant checks its own (R-A1, R-A13)
                8,
                _bots("action_greedy:ActionGreedyBot", "action_strong:ActionStrongBot"),
            ),
            Game(
                "skip-bo",
                "SKIP-BO",
                "skyjo_p2p.skipbo",
                2,
                6,
                _bots("skipbo_greedy:SkipBoGreedyBot", "skipbo_strong:SkipBoStrongBot"),
            ),
        )
    }
)
"""Game name -> its record, in the order the games are offered."""


def names() -> tuple[str, ...]:
    """Names of every game, in the order they are offered."""
    return tuple(GAMES)


def game(name: str) -> Game | None:
    """The record of the game called `name`, or None."""
    return GAMES.get(name)
