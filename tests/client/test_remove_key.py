"""Issue 30 point 5, the screen: in a game, `K` proposes to remove a player (with a confirmation),
the others see "Anna proposes to remove Ben: y to agree" with how many agreed, `y`/`n` answer,
the log says when the table removed someone, and the removed player's screen says why it
stopped. Where nobody can be removed (an uninsured table), `K` says why. The protocol side is
tests/protocol/test_issue30_kick.py."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from client.table.peer import LogEntry
from client.table.seat import removal_news, seat_news, session_timeouts
from client.ui.app import GameUI, Remove, stop_in_names
from client.ui.narrate import Narrator
from protocol.events import RemovalChanged

from .test_evening_flows import WaitingSource, shown, waiting_on_ben

ANNA, BEN, CHLOE = 0, 1, 2


@dataclasses.dataclass
class RemovingSource(WaitingSource):
    """A live table's source that also says who may be removed and what is proposed."""

    may: tuple[tuple[int, ...], str | None] = ((BEN, CHLOE), None)
    proposals: tuple[RemovalChanged, ...] = ()

    def may_remove(self) -> tuple[tuple[int, ...], str | None]:
        return self.may

    def removals(self) -> tuple[RemovalChanged, ...]:
        return self.proposals


def screen(lang: str = "en", **kw: Any) -> GameUI:
    """Anna's screen (seat 0) at a table of Anna, Ben and Chloé."""
    ui = waiting_on_ben(None, None)
    fields = {f: getattr(ui.source, f) for f in ui.source.__dataclass_fields__}
    ui.source = RemovingSource(**fields, **kw)  # type: ignore[assignment]
    ui.lang = lang
    return ui


def test_issue30_5_K_lists_the_players_and_asks_before_proposing() -> None:
    ui = screen()
    assert ui.handle_key("K") == []
    text = shown(ui, 160)
    assert "Remove a player" in text and "only if every other player" in text
    assert "1 Ben" in text and "2 Chloé" in text
    assert ui.handle_key("2") == []  # a choice, not yet a proposal
    assert "Propose to remove Chloé from the game?" in shown(ui, 160)
    assert ui.handle_key("y") == [Remove(CHLOE)]
    assert "You proposed to remove Chloé: the others are asked." in shown(ui, 160)
    # changing one's mind at the question proposes nothing
    ui.handle_key("K")
    ui.handle_key("1")
    assert ui.handle_key("n") == [] and ui.ui.overlay is None


def test_issue30_5_a_digit_picks_the_player_the_list_showed_even_if_the_list_changed_since() -> None:
    """The list opened while a vote on Ben was open (only Chloé, as 1); the vote closed while it was
    up, which would have renumbered it (Ben 1, Chloé 2): her `1`, read on the screen, still picks
    Chloé, and the list she sees stays the one she read.
    (Under load, a real table's `1` for "1 cat" once picked ben: tests/client/ui/test_e2e_remove.py.)"""
    ui = screen(may=((CHLOE,), None))  # a vote that Ben vanished is open: only Chloé
    ui.handle_key("K")
    assert "1 Chloé" in shown(ui, 160)
    ui.source.may = ((BEN, CHLOE), None)  # type: ignore[attr-defined]  # the vote closed
    text = shown(ui, 160)
    assert "1 Chloé" in text and "1 Ben" not in text and "2 Chloé" not in text
    ui.handle_key("1")
    assert "Propose to remove Chloé from the game?" in shown(ui, 160)
    assert ui.handle_key("y") == [Remove(CHLOE)]


def test_issue30_5_the_help_lists_K() -> None:
    ui = screen()
    ui.handle_key("?")
    assert "ask to remove a player (every other must agree)" in shown(ui, 160)


def test_issue30_5_where_nobody_can_be_removed_K_says_why() -> None:
    ui = screen(may=((), "uninsured"))
    ui.handle_key("K")
    text = shown(ui, 200)
    assert "Nobody can be removed here" in text and "insured" in text
    assert ui.handle_key("1") == [] and ui.ui.overlay is None


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Ben proposes to remove Chloé (1 of 2 agree): y to agree, n to refuse."),
        ("fr", "Ben propose de retirer Chloé (1 sur 2 d'accord) : o pour accepter, n pour refuser."),
        ("de", "Ben schlägt vor, Chloé zu entfernen (1 von 2 stimmen zu): y zum Zustimmen, n zum Ablehnen."),
    ],
)
def test_issue30_5_the_others_see_the_proposal_and_answer_it(lang: str, said: str) -> None:
    proposal = RemovalChanged(CHLOE, BEN, (BEN,), (ANNA, BEN))
    ui = screen(lang, proposals=(proposal,))
    assert said in shown(ui, 200)
    assert ui.handle_key("y") == [Remove(CHLOE, True)]
    ui = screen(lang, proposals=(proposal,))
    assert ui.handle_key("n") == [Remove(CHLOE, False)]
    ui = screen(lang, proposals=(proposal,))
    assert ui.handle_key("j") == []  # `j` moves the cursor, it never agrees


def test_issue30_5_after_agreeing_the_status_counts_and_the_target_is_told() -> None:
    agreed = RemovalChanged(CHLOE, BEN, (ANNA, BEN), (ANNA, BEN))
    assert "Removing Chloé: 2 of 2 agree so far." in shown(screen(proposals=(agreed,)), 200)
    about_me = RemovalChanged(ANNA, BEN, (BEN,), (BEN, CHLOE))
    ui = screen(proposals=(about_me,))
    assert "Ben proposes to remove you from the game (1 of 2 agree)." in shown(ui, 200)
    assert ui.handle_key("y") == []  # nothing for the target to answer


def test_issue30_5_the_log_tells_the_proposal_and_the_removal() -> None:
    narrator = Narrator(3, ANNA, ["Anna", "Ben", "Chloé"], "en")
    narrator.update(
        [
            LogEntry("removal", seat=CHLOE, text="open", by=BEN),
            LogEntry("removal", seat=CHLOE, text="removed", by=BEN),
            LogEntry("takeover", seat=CHLOE, text="removed", disclosed=2),
        ]
    )
    lines = ["".join(span.text for span in line) for line in narrator.lines(10)]
    assert lines == [
        "Ben proposes to remove Chloé from the game.",
        "The table removed Chloé: every other player agreed.",
        "A bot plays Chloé's seat from now on (the table removed them). Cards made public for it: 2.",
    ]


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Every other player agreed to remove you from the game: the table plays on without you."),
        (
            "fr",
            "Tous les autres joueurs ont accepté de vous retirer de la partie : la table continue sans vous.",
        ),
        ("de", "Alle anderen Spieler haben zugestimmt, dich aus der Partie zu entfernen"),
    ],
)
def test_issue30_5_the_removed_players_screen_says_the_table_removed_them(lang: str, said: str) -> None:
    reason = "the table removed Anna: every other player agreed, and the table plays on without this program"
    assert said in stop_in_names(lang, reason, ["Anna", "Ben", "Chloé"])


def test_issue30_5_a_player_who_agreed_may_take_it_back_with_K_then_n() -> None:
    mine = RemovalChanged(CHLOE, ANNA, (ANNA,), (ANNA, BEN))
    ui = screen(proposals=(mine,))
    ui.handle_key("K")
    assert "take your agreement back (nobody is removed)" in shown(ui, 160)
    assert ui.handle_key("n") == [Remove(CHLOE, False)]


def test_issue30_5_a_headless_program_tells_the_proposal_and_the_removal() -> None:
    """What a program without a screen prints (and every program logs): whole sentences, never
    the bare "open", "refused" or "removed" of the log entry."""
    names = ["Anna", "Ben", "Chloé"]
    proposed = LogEntry("removal", seat=CHLOE, text="open", by=BEN)
    assert removal_news(names, proposed, ANNA) == (
        "Ben (seat 2) proposes to remove Chloé (seat 3) from the game (every other player must agree)."
    )
    assert removal_news(names, proposed, BEN).startswith("You propose to remove Chloé (seat 3)")
    assert removal_news(names, proposed, CHLOE).startswith("Ben (seat 2) proposes to remove you ")
    refused = LogEntry("removal", seat=CHLOE, text="refused", by=BEN)
    assert (
        removal_news(names, refused, ANNA) == "Chloé (seat 3) stays: not every player agreed to the removal."
    )
    assert removal_news(names, refused, CHLOE) == "You stay: not every player agreed to the removal."
    removed = LogEntry("removal", seat=CHLOE, text="removed", by=BEN)
    assert removal_news(names, removed, CHLOE) == "The table removed you: every other player agreed."
    taken = LogEntry("takeover", seat=CHLOE, text="removed")
    assert (
        seat_news(names, taken) == "A bot plays Chloé (seat 3)'s seat from now on (the table removed them)."
    )


def test_issue30_5_the_removal_wait_is_settable_for_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKYJO_LAN_REMOVAL_TIMEOUT", raising=False)
    assert session_timeouts()["removal_timeout"] is None  # the protocol's rule
    monkeypatch.setenv("SKYJO_LAN_REMOVAL_TIMEOUT", "8")
    assert session_timeouts()["removal_timeout"] == 8.0
