"""`skyjo-lan play` in a real terminal: a SKIP-BO round, and a SKYJO ACTION card, by keystrokes."""

from __future__ import annotations


def test_skip_bo_a_whole_round_by_keystrokes(run) -> None:
    pty = run(
        "play",
        "--game",
        "skip-bo",
        "--bots",
        "2",
        "--lang",
        "en",
        "--option",
        "stock_size=5",
        "--option",
        "single_round=on",
    )
    turns = 0
    while True:
        seen = pty.first(
            {
                "pick": lambda t: "Your turn: pick a card to play" in t,
                "empty": lambda t: "Your hand is empty" in t,
                "placing": lambda t: "Put the" in t or "fits no building pile" in t,
                "over": lambda t: "Game over" in t,
            },
            timeout=120,
        )
        if seen == "over":
            break
        turns += 1
        assert turns < 200, pty.text
        if seen == "empty":
            pty.send("e")
            pty.wait(lambda t: "Your hand is empty" not in t, 30)
            continue
        if seen == "placing":
            pty.send("esc")
            pty.wait(lambda t: "Put the" not in t and "fits no building pile" not in t, 30)
            continue
        pty.send("1")  # the first hand card ...
        pty.wait(lambda t: "Put the" in t or "fits no building pile" in t, 30, "the hand card chosen")
        pty.send("7")  # ... onto discard pile 1 (key 7, as when picking from it): the turn ends
        pty.wait(lambda t: "Put the" not in t and "fits no building pile" not in t, 30, "the discard")
    pty.send("s")
    sheet = pty.wait("Score sheet", 30)
    assert "Round 1" in sheet and "The highest total wins." in sheet
    pty.send("q")  # the game is over: q leaves at once
    assert pty.finish() == 0


def test_skyjo_action_an_action_card_through_the_ui(run) -> None:
    pty = run(
        "play",
        "--game",
        "skyjo-action",
        "--bots",
        "1",
        "--lang",
        "en",
        "--option",
        "target_score=1",
        "--option",
        "setup_reveals=8",
        "--option",
        "action_kinds=swap-own",
        "--option",
        "card_counts=swap-own:12",
        cols=100,
        rows=40,  # room for a longer log
        env={"SKYJO_LAN_BOT_THINK": "0.25"},  # the bot's move does not hide ours
    )
    pty.wait("Turn 8 of your cards face up", 90)
    pty.send(*["enter"] * 8)
    taken = played = False
    steps = 0
    while True:
        seen = pty.first(
            {
                "choose": lambda t: "Your turn: draw a card (1 draw pile" in t,
                "drawn": lambda t: "You drew a" in t and "choose the card" in t,
                "took": lambda t: "Choose the card of your grid the" in t,
                "flip": lambda t: "Turn one of your face-down cards" in t,
                "offer": lambda t: "Your star lets you take" in t,
                "lines": lambda t: (
                    "A line of your grid is complete" in t or "goes on top of the discard" in t
                ),
                "over": lambda t: "Game over" in t,
            },
            timeout=90,
        )
        steps += 1
        assert steps < 80, pty.text
        if seen == "over":
            break
        if seen == "choose" and not taken:
            pty.send("7")  # take the action deck's top card: a swap-own
            pty.wait(lambda t: "Your turn: draw a card (1 draw pile" not in t, 30)
            taken = True
        elif seen == "choose" and not played:
            pty.send("up", "enter")  # the held card, above the draw pile
            pty.wait("play it now, or discard it unused", 30)
            pty.send("1")  # play it
            pty.wait("Swap own cards: choose the first card", 30)
            pty.send("enter")
            pty.wait("choose the card to swap it with", 30)
            pty.send("right", "enter")
            pty.wait("How do they land", 30)
            pty.send("1")
            pty.wait(lambda t: "You played Swap own cards!" in t and "You swapped two of your cards" in t, 30)
            played = True
        elif seen == "choose":
            pty.send("1")
            pty.wait(lambda t: "Your turn: draw a card (1 draw pile" not in t, 30)
        elif seen == "drawn":
            pty.send("2")
            pty.wait(lambda t: "You drew a" not in t or "Turn one of" in t, 30)
        elif seen in ("took", "flip"):
            pty.send("enter")
            pty.wait(lambda t: "Choose the card of your grid the" not in t and "Turn one of" not in t, 30)
        else:
            pty.press("1")  # a star's offer: no card, thanks; a line: remove it
    assert taken
    assert played, "the round ended before the held card could be played"
    pty.send("q")
    assert pty.finish() == 0
