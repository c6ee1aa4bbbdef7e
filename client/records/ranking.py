"""Ratings per identity and game, from the games that count (docs/ranking.md explains them).

Each game is a free-for-all of several players with ties, so the method is openskill's
Plackett-Luce model (Weng & Lin, "A Bayesian Approximation Method for Online Ranking", JMLR 12,
2011, algorithm 4): each player's skill is a normal belief (mu, sigma), updated
after each game from the order the players finished in. The number shown is the *ordinal*,
mu - 3 sigma: a skill the player is very likely (99.7 %) to be above, which rises with wins and
with the number of games played. Until an identity has `SETTLED_AFTER` rated games its rating is
provisional (noise: three steady second places can outrate two wins) and it is placed after the
settled ones, by wins and then average.

Who is rated: an identity (an Ed25519 key; shown by its fingerprint and the name it played
under last) for each seat it played in a game that counts (`GameEntry.counts`), the seats the
host's program runs (its bots: `SeatResult.bot`) excepted. A seat the table's bot finished for a
player who left or vanished is that player's result. The order of a game is by final total:
the lowest first in SKYJO and SKYJO ACTION, the highest first in SKIP-BO (its points come from
the cards left in the others' stock piles); equal totals are a tie. A game with fewer than two
rated seats (a person against the host's bots) counts in the person's games, wins and average,
and moves no rating.

Games are taken in the order they were played (`GameEntry.when`, then the genesis hash), so the
ratings are the same whatever order the files are listed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .history import GameEntry

if TYPE_CHECKING:
    # openskill is imported by `model()` only (about 35 ms): `verify` and `history`, which show
    # no rating, never load it
    from openskill.models import PlackettLuce, PlackettLuceRating

HIGHEST_WINS = frozenset({"skip-bo"})
"""Games whose highest total wins (the others: the lowest)."""

SETTLED_AFTER = 5
"""Rated games an identity must have played before its rating is more than noise. Until then
its rating is *provisional*: shown marked, and it ranks after the settled ones, by wins and
then by average (the numbers people read first), not by a rating a single game can swing."""


@dataclass
class Standing:
    """One identity in one game's ranking."""

    key: str
    fingerprint: str
    name: str
    """The name it played under in its latest game."""
    mu: float = 0.0
    sigma: float = 0.0
    games: int = 0
    rated: int = 0
    """Its games that moved its rating (two rated seats or more)."""
    wins: int = 0
    points: int = 0
    """The sum of its final totals (for the average)."""
    rank: int = 0
    """Its place, from 1 (equal ratings share a place)."""
    last: float = 0.0

    @property
    def rating(self) -> float:
        """The conservative estimate shown: mu - 3 sigma (openskill's `ordinal`)."""
        return self.mu - 3 * self.sigma

    @property
    def average(self) -> float:
        """Its mean final total."""
        return self.points / self.games if self.games else 0.0

    @property
    def provisional(self) -> bool:
        """Whether its rating rests on fewer than `SETTLED_AFTER` rated games."""
        return self.rated < SETTLED_AFTER

    def as_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "name": self.name,
            "fingerprint": self.fingerprint,
            "key": self.key,
            "rating": round(self.rating, 3),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "games": self.games,
            "wins": self.wins,
            "average": round(self.average, 2),
            "rated_games": self.rated,
            "provisional": self.provisional,
        }


@dataclass
class Ranking:
    """The ranking of one game: `standings` best first; `games` the games it counts."""

    game: str
    standings: list[Standing] = field(default_factory=list)
    games: int = 0
    rated_games: int = 0
    """Games with two rated seats or more (the others move no rating)."""


@dataclass(frozen=True)
class PlayerRecord:
    """An identity's record in one game, as the lobby shows it."""

    games: int
    wins: int
    rank: int
    of: int
    """How many identities the ranking holds."""


def order(game: str, totals: list[int]) -> list[int]:
    """The place of each total in a game's finishing order, from 1 (ties share a place)."""
    sign = -1 if game in HIGHEST_WINS else 1
    return [1 + sum(1 for other in totals if sign * other < sign * total) for total in totals]


def model() -> PlackettLuce:
    """The rating model, with openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def rank(entries: Iterable[GameEntry], game: str | None = None) -> dict[str, Ranking]:
    """The ranking of each game (or of `game` only) from the entries that count."""
    counted = sorted(
        (e for e in entries if e.counts and (game is None or e.checked.game == game)),
        key=lambda e: (e.when, e.checked.session),
    )
    rate = model()
    rankings: dict[str, Ranking] = {}
    ratings: dict[tuple[str, str], PlackettLuceRating] = {}
    for entry in counted:
        checked = entry.checked
        table = rankings.setdefault(checked.game, Ranking(checked.game))
        table.games += 1
        people = [s for s in checked.seats if not s.bot and s.total is not None]
        by_key = {s.key: s for s in table.standings}
        for seat in people:
            standing = by_key.get(seat.key)
            if standing is None:
                standing = Standing(seat.key, seat.fingerprint, seat.name)
                table.standings.append(standing)
                by_key[seat.key] = standing
            standing.games += 1
            standing.wins += seat.winner
            standing.points += seat.total or 0
            standing.name, standing.last = seat.name, entry.when
            ratings.setdefault((checked.game, seat.key), rate.rating(name=seat.key))
        if len(people) < 2:
            continue
        table.rated_games += 1
        for seat in people:
            by_key[seat.key].rated += 1
        teams = [[ratings[(checked.game, s.key)]] for s in people]
        places = order(checked.game, [s.total or 0 for s in people])
        updated = rate.rate(teams, ranks=[float(p) for p in places])
        for seat, team in zip(people, updated, strict=True):
            ratings[(checked.game, seat.key)] = team[0]
    for name, table in rankings.items():
        for standing in table.standings:
            rating = ratings[(name, standing.key)]
            standing.mu, standing.sigma = float(rating.mu), float(rating.sigma)
        sign = -1 if name in HIGHEST_WINS else 1
        table.standings.sort(key=lambda s: (*_place_key(s, sign), -s.games, s.fingerprint))
        for index, standing in enumerate(table.standings):
            previous = table.standings[index - 1] if index else None
            same = previous is not None and _place_key(previous, sign) == _place_key(standing, sign)
            standing.rank = previous.rank if same and previous is not None else index + 1
    return rankings


def _place_key(standing: Standing, sign: int) -> tuple[float, ...]:
    """What places an identity: settled ratings first, best first; then the provisional ones by
    wins, then average (lower first, higher in SKIP-BO), then rating."""
    rating = -round(standing.rating, 9)
    if not standing.provisional:
        return (0, rating, 0.0, 0.0)
    return (1, -standing.wins, sign * round(standing.average, 9), rating)


def records(rankings: Mapping[str, Ranking]) -> dict[str, dict[str, PlayerRecord]]:
    """game -> fingerprint -> the identity's record in that game (for the lobby)."""
    out: dict[str, dict[str, PlayerRecord]] = {}
    for game, table in rankings.items():
        size = len(table.standings)
        out[game] = {s.fingerprint: PlayerRecord(s.games, s.wins, s.rank, size) for s in table.standings}
    return out
