"""`skyjo-lan history`: this machine's saved games, each verified (once: the cache), newest first,
with the players by name and fingerprint, the scores and the winners; a game that does not count
(tampered, unfinished, unreadable, a second copy) is listed with why."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from client import storage
from client.cli import main
from client.records import cache as cache_module
from client.records import history
from client.records.history import game_time, scan
from client.table.saved import ResumeInfo
from protocol.verify import verify_bytes, verify_stream
from tests.client.saved_games import Saved, fingerprint, play


@pytest.fixture(scope="module")
def games() -> dict[str, Saved]:
    return {
        "skyjo": play("skyjo"),
        "skyjo-action": play("skyjo-action", ("Ben", "Chloé", "Anna")),
        "skip-bo": play("skip-bo", ("Chloé", "Anna")),
        "left": play("skyjo", leaver=2),
        "bots": play("skyjo", ("Anna", "bot 1", "Ben"), owners=[0, 0, 2]),
    }


@pytest.fixture(autouse=True)
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "data"


def three(games: dict[str, Saved], folder: Path) -> list[Path]:
    """One game of each kind, the oldest first."""
    return [
        games["skyjo"].write(folder, "20261101-200000"),
        games["skyjo-action"].write(folder, "20261102-200000"),
        games["skip-bo"].write(folder, "20261103-200000"),
    ]


def test_every_game_is_listed_newest_first_with_fingerprints_scores_and_winners(games, tmp_path):
    paths = three(games, tmp_path / "g")
    result = scan(tmp_path / "g")
    assert [g.path for g in result.games] == paths[::-1]
    assert [g.checked.game for g in result.games] == ["skip-bo", "skyjo-action", "skyjo"]
    for entry, name in zip(result.games, ["skip-bo", "skyjo-action", "skyjo"], strict=True):
        verdict = verify_bytes(games[name].data)
        assert entry.counts and entry.why_not is None
        assert [s.name for s in entry.checked.seats] == list(games[name].config.names)
        assert [s.fingerprint for s in entry.checked.seats] == [
            fingerprint(n) for n in games[name].config.names
        ]
        assert [s.total for s in entry.checked.seats] == verdict.totals
        assert [s.seat for s in entry.winners] == verdict.winners
    assert result.verified == 3


def test_a_tampered_copy_is_listed_as_not_counting_blaming_nobody(games, tmp_path):
    folder = tmp_path / "g"
    games["skyjo"].write(folder, "20261101-200000")
    games["skyjo"].write(folder, "20261101-210000", games["skyjo"].tampered())
    entries = {g.path.name[:15]: g for g in scan(folder).games}
    good, bad = entries["20261101-200000"], entries["20261101-210000"]
    assert good.counts and not bad.counts
    assert bad.checked.status == "invalid"
    assert bad.why_not is not None and bad.why_not.startswith("does not verify: ")
    assert "signature" in bad.why_not and bad.why_not.endswith("no seat is to blame")


def test_a_fault_a_seat_signed_names_that_seat_and_its_name(games, tmp_path, monkeypatch):
    real = verify_stream

    def blaming(*args, **kwargs):
        checked = real(*args, **kwargs)
        checked.verdict._invalid("equivocation: seat 2 signed two different frames #7", 1)
        return checked

    monkeypatch.setattr(history, "verify_stream", blaming)
    games["skyjo"].write(tmp_path / "g", "20261101-200000")
    (entry,) = scan(tmp_path / "g").games
    assert (
        entry.why_not
        == "does not verify: equivocation: seat 2 signed two different frames #7, blames seat 2 (Ben)"
    )


def test_an_unfinished_game_is_listed_as_unfinished_with_where_it_stops(games, tmp_path):
    path = games["skyjo"].write(tmp_path / "g", "20261101-200000", games["skyjo"].cut())
    (entry,) = scan(tmp_path / "g").games
    assert entry.checked.status == "unfinished" and not entry.counts
    assert entry.why_not is not None and entry.why_not.startswith("unfinished: stops in round ")
    assert "waits for" in entry.why_not and "resume" not in entry.why_not
    # one still running here (its .resume file says it may go on) says so
    info = ResumeInfo(path, games["skyjo"].config.encode(), 0, "127.0.0.1", 1, [])
    info.save()
    (entry,) = scan(tmp_path / "g").games
    assert (
        entry.resumable
        and entry.why_not is not None
        and entry.why_not.endswith("(it may still go on: --resume)")
    )


def test_an_unreadable_file_is_listed_as_unreadable(tmp_path):
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "20261101-200000-skyjo-00000000.skyjo").write_bytes(b"not a transcript at all")
    (folder / "notes.txt").write_text("not a saved game")
    (entry,) = scan(folder).games
    assert entry.checked.status == "unreadable" and not entry.counts
    assert entry.why_not is not None and entry.why_not.startswith("unreadable: not a transcript")


def test_a_second_copy_of_a_game_counts_once(games, tmp_path):
    folder = tmp_path / "g"
    first = games["skyjo"].write(folder, "20261101-200000")
    second = folder / "copied-from-ben.skyjo"
    second.write_bytes(games["skyjo"].data)
    os.utime(second, (first.stat().st_mtime + 3600,) * 2)
    entries = {g.path: g for g in scan(folder).games}
    assert entries[first].counts
    assert not entries[second].counts and entries[second].copy_of == first
    assert entries[second].why_not == f"a copy of {first.name}, which counts instead"


def test_the_games_time_is_the_stamp_of_its_name_else_its_modification_time(tmp_path):
    assert game_time(Path("20261101-200000-skyjo-ab12cd34.skyjo"), 5.0) != 5.0
    assert game_time(Path("20261101-200000-x.skyjo"), 5.0) < game_time(Path("20261101-200001-x.skyjo"), 5.0)
    assert game_time(Path("game.skyjo"), 5.0) == 5.0
    assert game_time(Path("20261399-200000-skyjo.skyjo"), 5.0) == 5.0  # no such date


def test_the_seats_the_tables_bot_finished_and_the_hosts_bots_are_shown(games, tmp_path):
    games["left"].write(tmp_path / "g", "20261101-200000")
    games["bots"].write(tmp_path / "g", "20261102-200000")
    bots, left = scan(tmp_path / "g").games
    assert left.counts and [s.taken_over for s in left.checked.seats] == [None, None, "left"]
    assert bots.counts and [s.bot for s in bots.checked.seats] == [False, True, False]


# --- the cache ---------------------------------------------------------------------------------


def _fail(*args, **kwargs):
    raise AssertionError("verified again: the cache was not used")


def test_the_cache_is_used_on_the_second_run(games, tmp_path, monkeypatch):
    three(games, tmp_path / "g")
    first = scan(tmp_path / "g")
    assert first.verified == 3 and cache_module.cache_path().is_file()
    monkeypatch.setattr(history, "verify_stream", _fail)
    second = scan(tmp_path / "g")
    assert second.verified == 0
    assert [(g.path, g.checked) for g in second.games] == [(g.path, g.checked) for g in first.games]


def test_a_file_that_changes_is_verified_again(games, tmp_path, monkeypatch):
    paths = three(games, tmp_path / "g")
    scan(tmp_path / "g")
    stat = paths[0].stat()
    paths[0].write_bytes(games["skyjo"].tampered())  # same size, same modification time
    os.utime(paths[0], ns=(stat.st_atime_ns, stat.st_mtime_ns))
    calls = []
    real = history.verify_stream
    monkeypatch.setattr(history, "verify_stream", lambda *a, **k: calls.append(1) or real(*a, **k))
    result = scan(tmp_path / "g")
    assert result.verified == 1 and len(calls) == 1
    assert {g.path: g.checked.status for g in result.games}[paths[0]] == "invalid"


def test_a_copied_or_touched_file_keeps_its_entry(games, tmp_path, monkeypatch):
    paths = three(games, tmp_path / "g")
    scan(tmp_path / "g")
    os.utime(paths[0], (1, 1))
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / paths[1].name).write_bytes(paths[1].read_bytes())
    monkeypatch.setattr(history, "verify_stream", _fail)
    assert scan(tmp_path / "g").verified == 0 and scan(other).verified == 0


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\xff not json",
        b"[1, 2, 3]",
        b'{"kind": "something else", "version": 1, "entries": {}}',
        b'{"kind": "skyjo-lan history cache", "version": 999, "entries": {}}',
        b'{"kind": "skyjo-lan history cache", "version": 1, "verifier": "another", "entries": {}}',
    ],
)
def test_a_corrupt_or_foreign_cache_is_ignored_and_rebuilt(games, tmp_path, content):
    three(games, tmp_path / "g")
    path = cache_module.cache_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    result = scan(tmp_path / "g")
    assert result.verified == 3 and all(g.counts for g in result.games)
    rebuilt = json.loads(path.read_text())
    assert rebuilt["kind"] == "skyjo-lan history cache" and len(rebuilt["entries"]) == 3


def test_bad_entries_of_a_cache_of_this_verifier_are_checked_again(games, tmp_path):
    paths = three(games, tmp_path / "g")
    scan(tmp_path / "g")
    path = cache_module.cache_path()
    document = json.loads(path.read_text())
    bad = [{"checked": {"status": "finished"}}, {"checked": {"status": "won", "seats": 3}}, {"checked": 7}]
    for key, entry in zip(sorted(document["entries"]), bad, strict=True):
        document["entries"][key] = entry
    path.write_text(json.dumps(document))
    result = scan(tmp_path / "g")
    assert result.verified == 3 and [g.path for g in result.games] == paths[::-1]
    assert all(g.counts for g in result.games)


def test_a_new_verifier_checks_every_game_again(games, tmp_path, monkeypatch):
    three(games, tmp_path / "g")
    scan(tmp_path / "g")
    monkeypatch.setattr(cache_module, "verifier_id", lambda: "a newer verifier")
    assert scan(tmp_path / "g").verified == 3


def test_an_unwritable_cache_costs_time_only(games, tmp_path):
    three(games, tmp_path / "g")
    path = cache_module.cache_path()
    path.mkdir(parents=True)  # a folder where the file should be: neither read nor written
    assert scan(tmp_path / "g").verified == 3
    assert scan(tmp_path / "g").verified == 3


# --- the command -------------------------------------------------------------------------------


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_history_prints_each_game_its_players_and_whether_it_counts(games, tmp_path, capsys):
    folder = storage.games_dir()
    three(games, folder)
    games["skyjo"].write(folder, "20261104-200000", games["skyjo"].tampered())
    games["left"].write(folder, "20261105-200000")
    code, out, err = run(["history"], capsys)
    assert code == 0 and err == ""
    assert out.startswith(f"5 saved game(s) in {folder}, 4 counting for the ranking\n")
    blocks = out.split("\n\n")[1:]
    assert [b.split("  ")[1] for b in blocks] == ["SKYJO", "SKYJO", "SKIP-BO", "SKYJO ACTION", "SKYJO"]
    assert blocks[0].startswith("2026-11-05 20:00  SKYJO  3 players  20261105-200000-skyjo-")
    assert "played by the table's bot at the end: left" in blocks[0]
    assert blocks[1].splitlines()[-1].startswith("  does not count: does not verify: ")
    anna = fingerprint("Anna")
    assert any(line[5:].startswith(f"Anna   {anna}") for line in blocks[4].splitlines())  # "  2. " or "     "
    assert blocks[4].splitlines()[-1] == "  counts"
    winners = [s.name for s in scan(folder).games[4].winners]
    assert all(
        f"{w} " in "".join(line for line in blocks[4].splitlines() if "winner" in line) for w in winners
    )


def test_history_limit_all_and_game(games, capsys):
    three(games, storage.games_dir())
    code, out, _ = run(["history", "--limit", "1"], capsys)
    assert (
        code == 0 and out.count("  counts") == 1 and "(2 older game(s) not shown: --all, or --limit N)" in out
    )
    assert run(["history", "--all"], capsys)[1].count("  counts") == 3
    out = run(["history", "--game", "skyjo-action"], capsys)[1]
    assert out.count("  counts") == 1 and "SKYJO ACTION" in out and "SKIP-BO" not in out


def test_history_json_has_the_documented_keys(games, tmp_path, capsys):
    three(games, tmp_path / "elsewhere")
    code, out, _ = run(["history", "--json", "--dir", str(tmp_path / "elsewhere")], capsys)
    document = json.loads(out)
    assert code == 0
    assert set(document) == {"folder", "missing", "total", "shown", "games"}
    assert document["total"] == document["shown"] == 3 and not document["missing"]
    game = document["games"][0]
    assert set(game) == {
        "file", "path", "time", "timestamp", "game", "title", "status", "counts", "reason", "copy_of",
        "resumable", "session", "round", "rounds_signed", "seats", "winners",
    }  # fmt: skip
    assert game["game"] == "skip-bo" and game["status"] == "finished" and game["counts"]
    assert game["time"].startswith("2026-11-03T20:00:00")
    assert set(game["seats"][0]) == {
        "seat",
        "name",
        "key",
        "fingerprint",
        "total",
        "winner",
        "bot",
        "taken_over",
    }
    assert [s["seat"] for s in game["seats"]] == [1, 2]  # as people count seats
    assert game["winners"] == [s["name"] for s in game["seats"] if s["winner"]]


def test_a_missing_folder_is_no_saved_games_yet(tmp_path, capsys):
    code, out, err = run(["history"], capsys)
    assert code == 0 and err == ""
    assert out == f"no saved games yet ({storage.games_dir()} does not exist)\n"
    code, out, _ = run(["history", "--json", "--dir", str(tmp_path / "nowhere")], capsys)
    assert code == 0 and json.loads(out)["missing"] and json.loads(out)["games"] == []
    storage.games_dir().mkdir(parents=True)
    assert run(["history"], capsys)[1] == f"no saved games yet in {storage.games_dir()}\n"


def test_a_folder_that_cannot_be_listed_is_one_line_and_exit_2(tmp_path, capsys):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    code, out, err = run(["history", "--dir", str(not_a_folder)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"skyjo-lan history: cannot read {not_a_folder}: ")
    assert run(["ranking", "--dir", str(not_a_folder)], capsys)[0] == 2


def test_a_file_too_large_for_a_saved_game_is_not_read(games, tmp_path, monkeypatch):
    games["skyjo"].write(tmp_path / "g", "20261101-200000")
    monkeypatch.setattr(history, "MAX_FILE", 1000)
    monkeypatch.setattr(history, "verify_stream", _fail)
    (entry,) = scan(tmp_path / "g").games
    assert entry.why_not is not None and entry.why_not.startswith("unreadable: too large for a saved game")


def test_names_cannot_send_escape_sequences_to_the_terminal(tmp_path, capsys):
    sneaky = "Eve\x1b[2J\u202eevE"
    play("skyjo", ("Anna", sneaky), seed="esc").write(storage.games_dir(), "20261101-200000")
    for command in ("history", "ranking"):
        code, out, _ = run([command], capsys)
        assert code == 0 and "Eve?[2J?evE" in out
        assert "\x1b" not in out and "\u202e" not in out
    code, out, _ = run(["history", "--json"], capsys)
    assert "\x1b" not in out and json.loads(out)["games"][0]["seats"][1]["name"] == sneaky
    # and `verify` of that file, which prints the names too
    (saved,) = storage.games_dir().glob("*.skyjo")
    code, out, _ = run(["verify", str(saved)], capsys)
    assert code == 0 and "(Eve?[2J?evE)" in out and "\x1b" not in out and "\u202e" not in out


def test_a_game_a_player_left_before_it_began_says_who_left(tmp_path):
    from protocol.transcript import dump
    from tests.protocol.harness import Net

    net = Net("skyjo", 3, {"target_score": 20})
    net.sessions[2].start()  # only its key commitment: nobody has its key yet
    assert net.sessions[2].leave()
    net.start()
    net.pump()
    net.fire_timers([0, 1, 2])
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "20261101-200000-skyjo-00000000.skyjo").write_bytes(dump(net.config, net.sessions[0].frames))
    (entry,) = scan(folder).games
    assert entry.checked.status == "unfinished"
    assert entry.why_not == "unfinished: stopped: p2 (seat 3) left the table"
