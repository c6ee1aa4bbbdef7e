"""The scores of the evening: the games this program played at one table, one after another.

`host` and `join` keep one `Evening` while the table stays open between games ("play again"):
each finished game adds its `GameResult` (read from this seat's own session, which checked every
frame of the game), and the lobby between games and the game-over screen show `rows()`: per
player, by key (under their latest name), the games played, the wins and the total and average score.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from client.storage import fingerprint
from protocol.config import TableConfig
from skyjo_p2p.core.state import TableState


@dataclass(frozen=True)
class GameResult:
    """One finished game as the evening counts it."""

    session: bytes
    """The game's session id (a new one each game): the same game is never counted twice."""
    game: str
    names: tuple[str, ...]
    fingerprints: tuple[str, ...]
    totals: tuple[int, ...]
    winners: tuple[int, ...]

    @property
    def winner_names(self) -> tuple[str, ...]:
        """The winners' names, in seat order."""
        return tuple(self.names[seat] for seat in self.winners)


@dataclass(frozen=True)
class EveningRow:
    """One player's evening so far."""

    name: str
    fingerprint: str
    played: int
    wins: int
    total: int

    @property
    def average(self) -> float:
        """The average final score of the games this player played."""
        return self.total / self.played if self.played else 0.0


def result_of(config: TableConfig, state: TableState | None) -> GameResult | None:
    """The result of a game whose final state is `state`; None while it is not over."""
    if state is None or state.phase != "game_over":
        return None
    names = tuple(config.names) if config.names else tuple(f"seat {s + 1}" for s in range(config.players))
    return GameResult(
        session=config.session_id,
        game=config.game,
        names=names,
        fingerprints=tuple(fingerprint(key) for key in config.identities),
        totals=tuple(state.totals),
        winners=tuple(state.winners),
    )


@dataclass
class Evening:
    """The games finished at this table so far, oldest first."""

    results: list[GameResult] = field(default_factory=list)

    def add(self, result: GameResult | None) -> bool:
        """Count a finished game (once: a session already counted is not added again)."""
        if result is None or any(r.session == result.session for r in self.results):
            return False
        self.results.append(result)
        return True

    def plus(self, result: GameResult | None) -> Evening:
        """This evening with `result` counted too (the game-over screen, before it is added)."""
        evening = Evening(list(self.results))
        evening.add(result)
        return evening

    @property
    def last(self) -> GameResult | None:
        """The game that ended last."""
        return self.results[-1] if self.results else None

    def rows(self) -> list[EveningRow]:
        """Every player of the evening: most wins first, then most games, then in order of
        arrival. A player is the same player by key, under the name of their latest game (a key
        that played as "player" and then as "Ben" is one row, Ben's); a new key is a new row."""
        order: list[str] = []
        names: dict[str, str] = {}
        counts: dict[str, list[int]] = {}
        for result in self.results:
            for seat, (name, fp) in enumerate(zip(result.names, result.fingerprints, strict=True)):
                if fp not in counts:
                    order.append(fp)
                    counts[fp] = [0, 0, 0]
                names[fp] = name
                counts[fp][0] += 1
                counts[fp][1] += seat in result.winners
                counts[fp][2] += result.totals[seat]
        rows = [EveningRow(names[fp], fp, *counts[fp]) for fp in order]
        arrival = {fp: index for index, fp in enumerate(order)}
        return sorted(rows, key=lambda r: (-r.wins, -r.played, arrival[r.fingerprint]))


def evening_lines(evening: Evening) -> list[str]:
    """The evening so far as plain lines (headless programs, the log)."""
    count = len(evening.results)
    lines = [f"evening after {count} game{'s' if count != 1 else ''}:"]
    for row in evening.rows():
        lines.append(
            f"  {row.name} [{row.fingerprint}]: {row.played} played, {row.wins} won, "
            f"total {row.total}, average {row.average:.1f}"
        )
    return lines
