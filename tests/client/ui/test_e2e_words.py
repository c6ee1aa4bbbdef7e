"""Issue 15 points 9 and 11 in a real terminal: the bell on your turn (and `--no-bell`), SKIP-BO's
keys for the discard piles, `host --table/--name` and the old spelling's notice, and the player's
name asked on the first run, saved in the game and read back by `replay`."""

from __future__ import annotations

import re
from pathlib import Path

from .pty_driver import Pty

BEL = b"\x07"


def _to_my_turn(pty: Pty) -> str:
    """Through SKYJO's setup (two cards) to the first moment the player must choose a pile."""
    pty.wait("Turn 2 of your cards face up", 60, "the setup prompt")
    pty.send("enter", "enter")
    return pty.wait("Your turn: take the top card", 90, "my turn")


def test_the_bell_rings_once_when_the_turn_comes(run) -> None:
    pty = run("play", "--bots", "1", "--lang", "en")
    pty.wait("Turn 2 of your cards face up", 60, "the setup prompt")
    assert BEL not in pty.raw  # not during the setup
    pty.send("enter", "enter")
    pty.wait("Your turn: take the top card", 90, "my turn")
    pty.wait(lambda _t: BEL in pty.raw, 30, "the bell")
    assert pty.raw.count(BEL) == 1
    # the b key turns it off, and the help says so
    pty.send("b")
    pty.wait("No bell on your turn.", 30)
    pty.send("?")
    assert "the bell on your turn: off" in pty.wait("Keys", 30)
    pty.send("esc")
    pty.send("q", "y")
    assert pty.finish() == 0


def test_no_bell(run) -> None:
    pty = run("play", "--bots", "1", "--lang", "en", "--no-bell")
    _to_my_turn(pty)
    pty.send("1")  # draw: the turn goes on, and the next one comes
    pty.wait("You drew", 30)
    pty.send("2")
    pty.wait("Turn one of your face-down cards", 30)
    pty.send("enter")
    pty.wait("Your turn: take the top card", 90, "my next turn")
    assert BEL not in pty.raw
    pty.send("q", "y")
    assert pty.finish() == 0


def test_skip_bo_discard_piles_have_the_same_keys_to_take_and_to_place(run) -> None:
    pty = run("play", "--game", "skip-bo", "--bots", "1", "--lang", "en", "--option", "stock_size=5")
    text = pty.wait("Your turn: pick a card to play", 90, "my turn")
    assert "hand 1-5, stock 6, discard piles 7-0" in text.replace("\n", " ")
    pty.send("1")
    text = pty.wait(lambda t: "Put the" in t or "fits no building pile" in t, 90, "the hand card chosen")
    assert "discard pile (7-0)" in text.replace("\n", " ")
    assert "(5-8)" not in text
    pty.send("7")  # onto discard pile 1: the turn ends
    pty.wait(lambda t: "Put the" not in t and "fits no building pile" not in t, 90, "the discard")
    pty.send("q", "y")
    assert pty.finish() == 0


def test_host_table_and_name_and_the_old_spelling(run, tmp_path: Path) -> None:
    base = ["host", "--no-mdns", "--interface", "127.0.0.1", "--seats", "3", "--lang", "en"]
    old = run(*base, "--name", "Old table", "--nick", "ana", home=tmp_path / "old")
    old.wait(lambda t: "Lobby" in t and "Old table" in t and "ana" in t, 60, "the lobby")
    assert b"--name now names the player; use --table for the table" in old.raw
    old.send("q", "y")
    old.finish()
    new = run(*base, "--table", "Kitchen", "--name", "Zoé", home=tmp_path / "new")
    new.wait(lambda t: "Lobby" in t and "Kitchen" in t and "Zoé" in t, 60, "the lobby")
    assert b"now names the player" not in new.raw
    new.send("q", "y")
    new.finish()


def test_the_name_asked_on_the_first_run_is_saved_and_replayed(run, tmp_path: Path) -> None:
    pty = run("play", "--bots", "1", "--lang", "en", env={"SKYJO_LAN_FIRST_RUN": "1"})
    pty.wait("Your name at the table", 30, "the question")
    pty.send("Zoé", "enter")
    _to_my_turn(pty)
    pty.send("q", "y")
    assert pty.finish() == 0
    saved = re.search(rb"Game saved: (\S+)", bytes(pty.raw))
    assert saved, pty.text
    assert (tmp_path / "config" / "skyjo-lan" / "name").read_text(encoding="utf-8").strip() == "Zoé"
    # the next game does not ask again
    again = run("play", "--bots", "1", "--lang", "en")
    again.wait("Turn 2 of your cards face up", 60)
    assert b"Your name at the table" not in again.raw
    again.send("q", "y")
    again.finish()
    replay = run("replay", saved.group(1).decode(), "--lang", "en")
    text = replay.wait("Zoé", 60, "the player's name in the replay")
    assert "you has" not in text.lower()
    replay.send("q")
    replay.finish()
