"""Issue 26 point 2: two peers given different genesis blocks with one session id.

Driven in process, with no link check (which refuses such a peer at the handshake): the session
itself says "not the same game" and blames nobody. Before, the peer whose first frame followed
its own (other) genesis was blamed for a "broken chain": an honest seat named a cheat for the
host's mistake (or a mixed-up file)."""

from __future__ import annotations

from protocol.config import TableConfig
from protocol.events import Blamed, Halted
from protocol.loopback import make_table
from protocol.session import Session


def _two_tables() -> tuple[TableConfig, TableConfig, list]:  # type: ignore[type-arg]
    config, keys = make_table("skyjo", 2, {"target_score": 20}, names=("Anna", "Ben"))
    other = TableConfig(
        session_id=config.session_id,
        game=config.game,
        players=config.players,
        identities=config.identities,
        options={"target_score": 30},  # the same seats and session, another table
        names=config.names,
        table=dict(config.table),
    )
    assert other.genesis_hash != config.genesis_hash
    return config, other, keys


def test_issue26_2_different_genesis_is_not_the_same_game_and_blames_nobody() -> None:
    config, other, keys = _two_tables()
    anna = Session(config, 0, keys[0])
    ben = Session(other, 1, keys[1])  # the host told Ben another table
    anna.start()
    ben.start()
    for frame in ben.data_to_send():
        anna.receive_frame(frame)
    for frame in anna.data_to_send():
        ben.receive_frame(frame)
    for session in (anna, ben):
        events = session.next_events()
        assert not [e for e in events if isinstance(e, Blamed)], events
        halts = [e for e in events if isinstance(e, Halted)]
        assert halts and halts[0].culprit is None, events
        assert "not the same game" in halts[0].reason, halts
        assert session.culprit is None and not session.blamed


def test_issue26_2_an_observer_of_the_mixed_file_blames_nobody_either() -> None:
    config, other, keys = _two_tables()
    anna = Session(config, 0, keys[0])
    ben = Session(other, 1, keys[1])
    anna.start()
    ben.start()
    observer = Session(config, None, None)  # `verify` of Anna's file, holding Ben's first frame
    for frame in [*anna.data_to_send(), *ben.data_to_send()]:
        observer.receive_frame(frame)
    assert observer.halted is not None and "not the same game" in observer.halted
    assert observer.culprit is None and not observer.blamed
