"""Issue 26, point 2: a seat's closing chat can be forked unseen; the player is told so.

PROTOCOL.md 11 ("Final side frames"): a side frame after its seat's last acknowledged game frame
is covered by nothing, so a seat may show one peer a closing chat and another peer a different one.
No job consumes it and the result is fixed by the round signatures, so both files stay valid and
nobody is blamed; but `verify`, the replay and the live log mark such a chat as not confirmed by
the table, and a chat the table did confirm (one before the last round signature) is not marked.
"""

from __future__ import annotations

from typing import Any

import pytest

from client.ui.narrate import Narrator
from client.ui.replay import load_replay
from protocol.events import Blamed, ChatReceived
from protocol.messages import Envelope
from protocol.transcript import dump
from protocol.verify import verify_bytes
from tests.protocol.harness import Fork, Net


def _late(envelope: Envelope) -> dict[str, Any] | None:
    return {"text": "gg, I won"} if envelope.kind == "chat" and envelope.data["text"] == "I resign" else None


@pytest.fixture(scope="module")
def table() -> Net:
    net = Net("skyjo", 3, {"target_score": 1})
    net.start(until=lambda: net.has_sent(0, "keycommit"))
    net.call(0, net.sessions[0].send_chat, "good luck")  # early: the seat's game frames follow
    net.collect(0)
    net.pump()
    assert all(s.settled and s.halted is None for s in net.sessions)
    net.filter = Fork(net, 0, 2, _late)
    net.call(0, net.sessions[0].send_chat, "I resign")
    net.collect(0)
    net.pump()
    return net


def _chats(net: Net, seat: int) -> list[ChatReceived]:
    return [e for e in net.events[seat] if isinstance(e, ChatReceived)]


def test_a_forked_closing_chat_blames_nobody_and_is_marked_live(table: Net) -> None:
    assert not any(isinstance(e, Blamed) for seat in range(3) for e in table.events[seat])
    one, two = _chats(table, 1), _chats(table, 2)
    assert [(c.text, c.final) for c in one] == [("good luck", False), ("I resign", True)]
    assert [(c.text, c.final) for c in two] == [("good luck", False), ("gg, I won", True)]


def test_both_files_verify_and_name_the_unconfirmed_chat(table: Net) -> None:
    for seat, text in ((1, "I resign"), (2, "gg, I won")):
        verdict = verify_bytes(dump(table.config, table.sessions[seat].frames))
        assert verdict.kind == "finished", verdict.fault
        assert len(verdict.unconfirmed) == 1, verdict.unconfirmed
        assert repr(text) in verdict.unconfirmed[0] and "(seat 1)" in verdict.unconfirmed[0]
        assert "good luck" not in " ".join(verdict.unconfirmed)
        assert verdict.as_dict()["unconfirmed_chats"] == verdict.unconfirmed


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "not confirmed by the table"), ("fr", "non confirmé par la table"), ("de", "nicht bestätigt")],
)
def test_the_replay_marks_the_closing_chat(table: Net, lang: str, words: str) -> None:
    for seat, text in ((1, "I resign"), (2, "gg, I won")):
        replay = load_replay(dump(table.config, table.sessions[seat].frames))
        assert replay.fault is None
        chats = [(item.text, item.unconfirmed) for item in replay.log if item.kind == "chat"]
        assert chats == [("good luck", False), (text, True)]
        narrator = Narrator(3, None, replay.names, lang)
        narrator.update(replay.log)
        told = ["".join(span.text for span in line) for line in narrator.lines(1000)]
        said = [line for line in told if text in line]
        assert len(said) == 1 and words in said[0], said
        assert not any(words in line for line in told if "good luck" in line)


def test_verify_tells_the_user_which_chat_is_not_confirmed(
    table: Net, capsys: pytest.CaptureFixture[str]
) -> None:
    from client.cli import _print_verdict

    _print_verdict(verify_bytes(dump(table.config, table.sessions[2].frames)))
    out = capsys.readouterr().out
    assert out.startswith("valid:") and "game finished" in out
    assert "1 chat message(s) not confirmed by the table: another player may have been shown" in out
    assert "p0 (seat 1), frame #" in out and "'gg, I won'" in out and "good luck" not in out
