"""`skyjo-lan ranking`: a rating per identity and game (openskill Plackett-Luce, mu - 3 sigma) from
the verified, finished games only, in the order they were played; ties, bots and games that do
not count as docs/ranking.md says."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from client import storage
from client.cli import main
from client.records.history import Checked, GameEntry, SeatResult, scan, transcripts
from client.records.ranking import SETTLED_AFTER, order, rank, records
from client.records.report import ranking_lines
from tests.client.saved_games import Saved, fingerprint, play


@pytest.fixture(autouse=True)
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


# --- the rules, on games made up for them -----------------------------------------------------


def entry(
    game: str,
    totals: dict[str, int],
    when: float,
    *,
    status: str = "finished",
    bots: tuple[str, ...] = (),
    taken: dict[str, str] | None = None,
) -> GameEntry:
    """A checked game of `game` with these final totals (seat order = the dict's order)."""
    best = (max if game == "skip-bo" else min)(totals.values())
    seats = tuple(
        SeatResult(
            seat=n,
            name=name,
            key=name.encode().hex(),
            fingerprint=f"fp-{name}",
            total=total,
            winner=status == "finished" and total == best,
            bot=name in bots,
            taken_over=(taken or {}).get(name),
        )
        for n, (name, total) in enumerate(totals.items())
    )
    checked = Checked(status, None if status == "finished" else "x", game, f"session-{game}-{when}", seats)  # type: ignore[arg-type]
    return GameEntry(Path(f"{when}.skyjo"), when, checked)


def standings(entries: list[GameEntry], game: str = "skyjo") -> list[tuple[int, str]]:
    return [(s.rank, s.name) for s in rank(entries)[game].standings]


def test_the_order_of_a_game_is_lowest_first_in_skyjo_and_highest_first_in_skip_bo():
    assert order("skyjo", [30, 12, 55, 12]) == [3, 1, 4, 1]
    assert order("skyjo-action", [30, 12]) == [2, 1]
    assert order("skip-bo", [0, 75, 0]) == [2, 1, 2]  # one round: the winner, the others tied


def test_a_player_who_wins_every_game_ranks_first():
    games = [
        entry("skyjo", {"Anna": 10 + n, "Ben": 30 + (n * 7) % 11, "Chloé": 35 - (n * 5) % 9}, float(n))
        for n in range(6)
    ]
    table = rank(games)["skyjo"]
    assert table.standings[0].name == "Anna"
    anna = table.standings[0]
    assert (anna.rank, anna.games, anna.wins) == (1, 6, 6)
    assert anna.rating > table.standings[1].rating
    assert anna.average == pytest.approx(sum(10 + n for n in range(6)) / 6)


def test_equal_totals_tie_and_equal_ratings_share_a_place():
    games = [entry("skyjo", {"Anna": 20, "Ben": 20, "Chloé": 40}, float(n)) for n in range(3)]
    assert standings(games) == [(1, "Anna"), (1, "Ben"), (3, "Chloé")]
    table = rank(games)["skyjo"]
    assert table.standings[0].rating == pytest.approx(table.standings[1].rating)
    assert table.standings[0].wins == table.standings[1].wins == 3  # both won each game


def test_skip_bo_ranks_the_highest_total_first():
    games = [entry("skip-bo", {"Anna": 0, "Ben": 75, "Chloé": 0}, float(n)) for n in range(3)]
    assert standings(games, "skip-bo") == [(1, "Ben"), (2, "Anna"), (2, "Chloé")]


def test_each_game_has_its_own_ranking():
    games = [entry("skyjo", {"Anna": 10, "Ben": 40}, float(n)) for n in range(3)]
    games += [entry("skip-bo", {"Anna": 0, "Ben": 75}, 10.0 + n) for n in range(3)]
    rankings = rank(games)
    assert set(rankings) == {"skyjo", "skip-bo"}
    assert standings(games, "skyjo") == [(1, "Anna"), (2, "Ben")]
    assert standings(games, "skip-bo") == [(1, "Ben"), (2, "Anna")]
    assert rankings["skyjo"].standings[0].rating == pytest.approx(rankings["skip-bo"].standings[0].rating)
    assert set(rank(games, "skip-bo")) == {"skip-bo"}


def test_the_hosts_bots_are_not_ranked_and_a_person_alone_with_bots_moves_no_rating():
    alone = [
        entry("skyjo", {"Anna": 10, "bot 1": 40, "bot 2": 50}, float(n), bots=("bot 1", "bot 2"))
        for n in range(4)
    ]
    table = rank(alone)["skyjo"]
    assert [s.name for s in table.standings] == ["Anna"]
    anna = table.standings[0]
    assert (anna.games, anna.wins, table.games, table.rated_games) == (4, 4, 4, 0)
    assert anna.mu == pytest.approx(25.0)  # no person to be rated against
    # with two people the bot is left out of the order: Ben, last of the people, is second
    mixed = [entry("skyjo", {"Anna": 10, "bot 1": 5, "Ben": 40}, 1.0, bots=("bot 1",))]
    assert standings(mixed) == [(1, "Anna"), (2, "Ben")]
    assert rank(mixed)["skyjo"].standings[0].wins == 0  # the bot won the game


def test_a_seat_the_tables_bot_finished_is_its_players_result():
    games = [entry("skyjo", {"Anna": 10, "Ben": 40}, float(n), taken={"Anna": "left"}) for n in range(2)]
    assert standings(games) == [(1, "Anna"), (2, "Ben")]
    assert rank(games)["skyjo"].standings[0].games == 2


def test_games_that_do_not_count_change_nothing():
    games = [entry("skyjo", {"Anna": 10, "Ben": 40}, float(n)) for n in range(3)]
    extra = [
        entry("skyjo", {"Anna": 90, "Ben": 0}, 10.0, status="invalid"),
        entry("skyjo", {"Anna": 90, "Ben": 0}, 11.0, status="unfinished"),
    ]
    assert [s.as_dict() for s in rank(games + extra)["skyjo"].standings] == [
        s.as_dict() for s in rank(games)["skyjo"].standings
    ]


def test_games_are_rated_in_the_order_they_were_played_whatever_the_order_given():
    games = [
        entry("skyjo", {"Anna": 10 + (n * 13) % 29, "Ben": 20 + (n * 7) % 17, "Chloé": 15 + n}, float(n))
        for n in range(8)
    ]
    expected = [s.as_dict() for s in rank(games)["skyjo"].standings]
    for seed in range(5):
        shuffled = list(games)
        random.Random(seed).shuffle(shuffled)
        assert [s.as_dict() for s in rank(shuffled)["skyjo"].standings] == expected
    # and the order matters: the same games played the other way round rate differently
    backwards = [
        entry("skyjo", {s.name: s.total or 0 for s in g.checked.seats}, 100.0 - g.when) for g in games
    ]
    assert [s.as_dict() for s in rank(backwards)["skyjo"].standings] != expected


def test_the_lobby_record_is_games_wins_and_place():
    games = [entry("skyjo", {"Anna": 10, "Ben": 40, "Chloé": 50}, float(n)) for n in range(3)]
    book = records(rank(games))
    assert book["skyjo"]["fp-Anna"].games == 3 and book["skyjo"]["fp-Anna"].wins == 3
    assert (book["skyjo"]["fp-Anna"].rank, book["skyjo"]["fp-Chloé"].rank, book["skyjo"]["fp-Anna"].of) == (
        1,
        3,
        3,
    )


# --- real saved games ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved() -> list[Saved]:
    return [
        play("skyjo", seed="r1"),
        play("skyjo", ("Ben", "Anna"), seed="r2"),
        play("skyjo", ("Chloé", "Anna", "Ben"), seed="r3"),
        play("skip-bo", ("Anna", "Ben"), seed="r4"),
    ]


def write_all(saved: list[Saved], folder: Path) -> list[Path]:
    return [game.write(folder, f"202611{n + 1:02d}-200000") for n, game in enumerate(saved)]


def test_a_tampered_copy_does_not_change_the_ranking(saved, tmp_path):
    write_all(saved, tmp_path / "g")
    before = {g: [s.as_dict() for s in r.standings] for g, r in rank(scan(tmp_path / "g").games).items()}
    saved[0].write(tmp_path / "g", "20261120-200000", saved[0].tampered())
    saved[1].write(tmp_path / "g", "20261121-200000", saved[1].cut())
    after = {g: [s.as_dict() for s in r.standings] for g, r in rank(scan(tmp_path / "g").games).items()}
    assert after == before
    assert rank(scan(tmp_path / "g").games)["skyjo"].games == 3


def test_the_ranking_of_real_games_follows_their_verified_results(saved, tmp_path):
    write_all(saved, tmp_path / "g")
    entries = scan(tmp_path / "g").games
    table = rank(entries)["skyjo"]
    assert table.games == table.rated_games == 3
    by_name = {s.name: s for s in table.standings}
    assert set(by_name) == {"Anna", "Ben", "Chloé"}
    assert by_name["Anna"].fingerprint == fingerprint("Anna") and by_name["Anna"].games == 3
    won = sum(1 for e in entries if e.checked.game == "skyjo" for s in e.winners if s.name == "Anna")
    assert by_name["Anna"].wins == won


def test_the_ranking_does_not_depend_on_the_order_files_are_listed_in(saved, tmp_path):
    write_all(saved, tmp_path / "g")

    def listed(reverse: bool):
        return lambda folder: sorted(transcripts(folder), reverse=reverse)

    forward = rank(scan(tmp_path / "g", listing=listed(False)).games)
    backward = rank(scan(tmp_path / "g", listing=listed(True)).games)
    assert {g: [s.as_dict() for s in r.standings] for g, r in forward.items()} == {
        g: [s.as_dict() for s in r.standings] for g, r in backward.items()
    }


def test_ranking_prints_a_table_per_game(saved, capsys):
    write_all(saved, storage.games_dir())
    assert main(["ranking"]) == 0
    out = capsys.readouterr().out
    skyjo, skipbo, footer = out.split("\n\n")
    assert skyjo.splitlines()[0] == "SKYJO: 3 game(s) counted, 3 rated"
    assert skyjo.splitlines()[1].split() == [
        "rank",
        "name",
        "fingerprint",
        "games",
        "wins",
        "average",
        "rating",
    ]
    rows = [line.split() for line in skyjo.splitlines()[2:]]
    assert rows[0][0] == "1" and {r[1] for r in rows} == {"Anna", "Ben", "Chloé"}
    assert skipbo.startswith("SKIP-BO: 1 game(s) counted, 1 rated")
    assert "openskill Plackett-Luce" in footer
    assert main(["ranking", "--game", "skip-bo"]) == 0
    assert "SKYJO:" not in capsys.readouterr().out


def test_ranking_json_has_the_documented_keys(saved, tmp_path, capsys):
    write_all(saved, tmp_path / "g")
    assert main(["ranking", "--json", "--dir", str(tmp_path / "g")]) == 0
    document = json.loads(capsys.readouterr().out)
    assert set(document) == {"folder", "missing", "method", "rankings"}
    assert [r["game"] for r in document["rankings"]] == ["skyjo", "skip-bo"]
    first = document["rankings"][0]
    assert set(first) == {"game", "title", "games", "rated_games", "standings"}
    assert set(first["standings"][0]) == {
        "rank", "name", "fingerprint", "key", "rating", "mu", "sigma", "games", "wins", "average",
        "rated_games", "provisional",
    }  # fmt: skip
    assert all(s["provisional"] for s in first["standings"])  # 3 games: all provisional
    wins = [s["wins"] for s in first["standings"]]
    assert wins == sorted(wins, reverse=True)
    assert all(s["rating"] == pytest.approx(s["mu"] - 3 * s["sigma"], abs=0.01) for s in first["standings"])


def test_ranking_with_no_game_that_counts_says_so(tmp_path, capsys):
    assert main(["ranking"]) == 0
    assert "no saved games yet" in capsys.readouterr().out
    storage.games_dir().mkdir(parents=True)
    (storage.games_dir() / "x.skyjo").write_bytes(b"junk")
    assert main(["ranking"]) == 0
    assert capsys.readouterr().out.startswith("no game counts yet")


def test_an_identity_is_shown_with_the_name_of_its_latest_game():
    first = entry("skyjo", {"Anna": 10, "Ben": 40}, 1.0)
    later = entry("skyjo", {"Anna": 10, "Ben": 40}, 2.0)
    renamed = GameEntry(
        later.path,
        later.when,
        Checked(
            "finished",
            None,
            "skyjo",
            later.checked.session,
            (
                SeatResult(0, "Annie", b"Anna".hex(), "fp-Anna", 10, True),
                later.checked.seats[1],
            ),
        ),
    )
    for order_given in ([first, renamed], [renamed, first]):
        table = rank(order_given)["skyjo"]
        assert [(s.name, s.games) for s in table.standings] == [("Annie", 2), ("Ben", 2)]


def test_plays_bots_are_written_as_seat_0s_so_they_are_not_ranked():
    from client.table.local import LocalTable

    config = LocalTable("skyjo", 2, save=False, think_time=0.0).config
    assert [config.owners[s] != s for s in range(config.players)] == [False, True, True]
    assert not config.insured  # nothing else changes at such a table


# --- provisional ratings (issue 28, point 12) -----------------------------------------------------

# Chloé is second every time with the worst totals; Anna wins twice, Ben once. openskill's
# mu - 3 sigma puts Chloé first (her steady second place is "certain"): noise after 3 games.
NOISY = [
    entry("skyjo", {"Anna": 5, "Ben": 61, "Chloé": 60}, 0.0),
    entry("skyjo", {"Anna": 61, "Ben": 5, "Chloé": 60}, 1.0),
    entry("skyjo", {"Anna": 5, "Ben": 61, "Chloé": 60}, 2.0),
]


def test_after_three_games_the_winner_is_first_not_the_steady_loser():
    table = rank(NOISY)["skyjo"]
    chloe = next(s for s in table.standings if s.name == "Chloé")
    assert chloe.rating > max(s.rating for s in table.standings if s.name != "Chloé")  # the noise
    assert standings(NOISY) == [(1, "Anna"), (2, "Ben"), (3, "Chloé")]
    assert all(s.provisional and s.rated == 3 for s in table.standings)


def test_a_rating_settles_after_enough_games_and_settled_ones_rank_first():
    steady = [entry("skyjo", {"Anna": 5, "Ben": 61, "Chloé": 60}, float(n)) for n in range(SETTLED_AFTER)]
    late = [entry("skyjo", {"Dan": 0, "Anna": 70}, float(SETTLED_AFTER))]
    table = rank(steady + late)["skyjo"]
    settled = [s.name for s in table.standings if not s.provisional]
    assert settled == ["Anna", "Chloé", "Ben"]
    assert [s.name for s in table.standings][3:] == ["Dan"]  # one win, but one game only


def test_ranking_shows_wins_and_average_first_and_marks_provisional_ratings(tmp_path, capsys):
    result = scan(tmp_path / "none")
    lines = ranking_lines(result, rank(NOISY))
    assert lines[1].split() == ["rank", "name", "fingerprint", "games", "wins", "average", "rating"]
    rows = [line.split() for line in lines[2:5]]
    assert [(r[0], r[1], r[4]) for r in rows] == [("1", "Anna", "2"), ("2", "Ben", "1"), ("3", "Chloé", "0")]
    assert all(r[-1].endswith("?") for r in rows)
    assert any(line.startswith("?: provisional, fewer than 5 rated games") for line in lines)
