"""Attacks on the message layer: replayed, reordered, forged, truncated or foreign frames, and
frames that break their sender's hash chain.

What nobody signed (a forged or truncated frame, another seat's signature, a stranger's key,
another session, an oversized frame) cannot be blamed on anyone: it must be refused with a
`FrameRejected` event, change nothing (accepted frames, transcript hash, game state), and the
session must go on with honest traffic as if it had never come. What a seat signed and that is
wrong (a broken chain, a malformed message) is that seat's fault: it is blamed.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import PROTOCOL_VERSION
from protocol.events import Blamed, FrameRejected
from protocol.messages import KINDS, MAX_FRAME, encode_body, seal
from protocol.session import Session
from skyjo_p2p.engine import deciders
from tests.protocol.harness import Net, assert_blamed, forge

SENDER, RECEIVER = 0, 1


@pytest.fixture(scope="module")
def mid_game() -> Net:
    """Two seats in the first turns of a SKYJO round, every queue empty."""
    net = Net("skyjo", 2, {"target_score": 20})

    def in_turns() -> bool:
        state = net.sessions[0].state
        return state is not None and state.phase == "turn" and bool(deciders(state)) and not net.queue

    net.start(until=in_turns)
    assert in_turns()
    return net


def next_frame(net: Net, seat: int, kind: str = "chat", data: dict | None = None, **changes) -> bytes:
    """A frame `seat` could send next (right seq and prev), signed with its key."""
    chain = net.sessions[seat].chains[seat]
    fields = {"seq": chain.next_seq, "prev": chain.last_digest, **changes}
    return seal(
        net.config, net.keys[seat], seat, fields["seq"], fields["prev"], kind, data or {"text": "hello"}
    ).frame


def snapshot(session: Session) -> tuple:
    assert session.state is not None
    return (len(session.frames), session.transcript_hash, session.state.state_hash(), session.halted)


def refuse_and_go_on(net: Net, frames: list[bytes], reason: str) -> None:
    """Deliver `frames` to the receiver: each refused, nothing changed, and the game goes on."""
    receiver = net.sessions[RECEIVER]
    before = snapshot(receiver)
    for frame in frames:
        receiver.receive_frame(frame)
        events = receiver.next_events()
        assert [type(e) for e in events] == [FrameRejected], events
        assert reason in events[0].reason, events[0].reason
        assert snapshot(receiver) == before, "a refused frame changed nothing"
    assert not receiver.data_to_send(), "nothing to answer to a refused frame"
    # honest traffic goes on as if nothing had happened
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 6)
    assert net.moves >= moves + 6
    net.pump(play=False)
    assert not net.blamed()
    hashes = {s.state.state_hash() for s in net.sessions if s.state is not None}
    assert len(hashes) == 1
    assert all(f in {sent for _, sent in net.sent} for f in receiver.frames)


def test_forged_signature_is_refused(mid_game: Net) -> None:
    net = mid_game.clone()
    body, signature = msgpack.unpackb(next_frame(net, SENDER))
    forged = [
        msgpack.packb([body, secrets.token_bytes(64)]),
        msgpack.packb([body, bytes([signature[0] ^ 1]) + signature[1:]]),
        msgpack.packb([body, bytes(64)]),
    ]
    refuse_and_go_on(net, forged, "does not verify")


def test_altered_body_is_refused(mid_game: Net) -> None:
    # one changed bit anywhere in the body (a digest, the session id, the text): refused
    net = mid_game.clone()
    body, signature = msgpack.unpackb(next_frame(net, SENDER, "chat", {"text": "I fold"}))
    altered = []
    for index in range(0, len(body), 7):
        changed = bytearray(body)
        changed[index] ^= 0x04
        altered.append(msgpack.packb([bytes(changed), signature]))
    refuse_and_go_on(net, altered, "")


def test_frame_signed_with_another_seats_key_is_refused(mid_game: Net) -> None:
    # seat 1's key (the receiver's own) and a third key sign a body that claims seat 0
    net = mid_game.clone()
    chain = net.sessions[SENDER].chains[SENDER]
    body = encode_body(net.config, SENDER, chain.next_seq, chain.last_digest, "chat", {"text": "hi"})
    frames = [
        msgpack.packb([body, key.sign(body)]) for key in (net.keys[RECEIVER], Ed25519PrivateKey.generate())
    ]
    refuse_and_go_on(net, frames, "signature of a frame claiming seat 1")


def test_stranger_claiming_a_seat_that_does_not_exist_is_refused(mid_game: Net) -> None:
    net = mid_game.clone()
    stranger = Ed25519PrivateKey.generate()
    body = encode_body(net.config, 5, 0, net.config.genesis_hash, "chat", {"text": "let me in"})
    refuse_and_go_on(net, [msgpack.packb([body, stranger.sign(body)])], "no seat 5")


def test_frame_of_another_session_is_refused(mid_game: Net) -> None:
    # the same players (same identity keys) at another table: a genuine frame of that game,
    # and one numbered to fit this game's chain, are both refused
    net = mid_game.clone()
    other = dataclasses.replace(net.config, session_id=secrets.token_bytes(32))
    chain = net.sessions[SENDER].chains[SENDER]
    frames = [
        seal(
            other, net.keys[SENDER], SENDER, 0, other.genesis_hash, "keycommit", {"commit": bytes(32)}
        ).frame,
        seal(
            other, net.keys[SENDER], SENDER, chain.next_seq, chain.last_digest, "chat", {"text": "hi"}
        ).frame,
    ]
    refuse_and_go_on(net, frames, "another session")


def test_frame_of_an_earlier_game_is_refused(mid_game: Net) -> None:
    # replay across sessions: the first frames seat 0 sent in a previous game with the same key
    net = mid_game.clone()
    earlier = dataclasses.replace(net.config, session_id=secrets.token_bytes(32))
    old = Net("skyjo", 2)
    old.config, old.keys = earlier, net.keys
    old.sessions = [Session(earlier, s, net.keys[s]) for s in range(2)]
    old.start(until=lambda: old.has_sent(1, "key"))
    replayed = [f for seat, f in old.sent if seat == SENDER]
    assert replayed
    refuse_and_go_on(net, replayed, "another session")


def test_truncated_and_extended_frames_are_refused(mid_game: Net) -> None:
    net = mid_game.clone()
    frame = next_frame(net, SENDER)
    cut = [frame[:n] for n in (0, 1, 2, 40, len(frame) // 2, len(frame) - 1)]
    refuse_and_go_on(net, [*cut, frame + b"\x00", frame + frame], "")


def test_oversized_frame_is_refused(mid_game: Net) -> None:
    net = mid_game.clone()
    big = msgpack.packb([b"\x00" * MAX_FRAME, bytes(64)])
    refuse_and_go_on(net, [big, b"\x92" + b"\xc6" + (2**32 - 1).to_bytes(4, "big")], "")


def test_frame_signed_with_the_receivers_own_key_is_refused(mid_game: Net) -> None:
    # a frame in the receiver's own name that it never sent (its key is not at risk: this is what
    # a receiver sees if its own frames are reflected back with a changed sequence number)
    net = mid_game.clone()
    frame = next_frame(net, RECEIVER)
    refuse_and_go_on(net, [frame], "own key")


def test_replayed_frame_of_this_session_is_ignored(mid_game: Net) -> None:
    # an old frame delivered again (a resend, or an attacker replaying it) is a no-op
    net = mid_game.clone()
    receiver = net.sessions[RECEIVER]
    before = snapshot(receiver)
    old = [f for seat, f in net.sent if seat == SENDER]
    for frame in [old[0], old[len(old) // 2], old[-1], *old]:
        receiver.receive_frame(frame)
    assert receiver.next_events() == [] and snapshot(receiver) == before
    assert not receiver.data_to_send()
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 4)
    assert not net.blamed()


def test_reordered_and_duplicated_delivery_plays_the_same_game() -> None:
    # the network reorders, delays and duplicates frames (and drops nothing): the game is the same
    net = Net("skyjo", 3, {"target_score": 1}, observers=1)
    rng = random.Random(1)
    held: dict[tuple[int, int], list[bytes]] = {}

    def scramble(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        pile = held.setdefault((sender, receiver), [])
        pile.append(frame)
        if rng.random() < 0.6 and len(pile) < 8:
            return []  # held back: delivered later, after frames sent after it
        rng.shuffle(pile)
        out = [*pile, *rng.sample(pile, k=min(2, len(pile)))]  # and a few duplicates
        pile.clear()
        return out

    net.filter = scramble
    net.start()
    for _ in range(50):  # release whatever is still held when the table waits
        leftovers = [(s, r, f) for (s, r), pile in held.items() for f in reversed(pile)]
        if not leftovers:
            break
        held.clear()
        net.filter = None
        net.queue.extend(leftovers)
        net.pump()
        net.filter = scramble
        net.pump()
    states = [s.state for s in net.sessions + net.observers]
    assert all(s is not None and s.phase == "game_over" for s in states)
    assert len({s.state_hash() for s in states if s is not None}) == 1
    assert not net.blamed() and not any(net.rejected(s) for s in range(3))
    # and every timer the delays made anyone ask for runs out late: it concerns finished steps
    assert any(net.timers)
    net.fire_timers()
    assert not net.blamed() and all(s.halted is None for s in net.sessions)


# --- signed, and wrong: the signer is blamed ------------------------------------------------


def test_frame_whose_prev_breaks_the_chain_is_blamed(mid_game: Net) -> None:
    net = mid_game.clone()
    frame = next_frame(net, SENDER, prev=secrets.token_bytes(32))
    net.sessions[RECEIVER].receive_frame(frame)
    net.pump()
    assert_blamed(net, SENDER, "broken chain")


def test_frame_that_skips_and_rewrites_history_is_blamed(mid_game: Net) -> None:
    # seat 0 signs a second, different frame #k for a k the receiver already has (a rewritten
    # past): equivocation, with both signed frames as evidence
    net = mid_game.clone()
    chain = net.sessions[RECEIVER].chains[SENDER]
    seq = chain.next_seq - 3
    (original,) = chain.first_version(seq)  # a game frame, or a side frame kept as bytes
    rewritten = forge(net.config, net.keys[SENDER], original, kind="chat", data={"text": "rewritten"})
    net.sessions[RECEIVER].receive_frame(rewritten)
    net.pump()
    blames = assert_blamed(net, SENDER, "equivocation")
    receiver_blame = next(b for b in net.blamed(RECEIVER) if isinstance(b, Blamed))
    assert set(receiver_blame.evidence) == {original, rewritten}
    assert blames


DRAW = {"seat": 0, "move": "draw", "from": "deck"}


@pytest.mark.parametrize(
    ("kind", "acks", "data"),
    [
        ("move", [], [1, [1, 2]]),
        ("move", [], [1, DRAW, 1]),  # a field too many
        ("shuffle", [], [-1, [], []]),
        ("move", [], {"job": 1, "move": DRAW}),  # fields by name: data is an array
        ("chat", [], [""]),
        ("echo", [[0, 1, b"short"]], []),
        ("echo", [[1, 1, bytes(32)], [1, 2, bytes(32)]], []),  # one seat twice
        ("echo", [[SENDER, 1, bytes(32)]], []),  # itself
        ("echo", [[7, 1, bytes(32)]], []),  # no such seat at this table
        ("chat", {"0": [1, 1, bytes(32)]}, ["hi"]),
        ("no-such-kind", [], []),
    ],
)
def test_signed_malformed_message_is_blamed(mid_game: Net, kind: str, acks: Any, data: Any) -> None:
    # the signature shows who sent it: a malformed message is its sender's fault, not noise
    net = mid_game.clone()
    chain = net.sessions[SENDER].chains[SENDER]
    code = KINDS.index(kind) if kind in KINDS else 99
    body = msgpack.packb(
        [
            PROTOCOL_VERSION,
            net.config.session_id,
            SENDER,
            chain.next_seq,
            chain.last_digest,
            code,
            acks,
            data,
        ]
    )
    frame = msgpack.packb([body, net.keys[SENDER].sign(body)])
    net.sessions[RECEIVER].receive_frame(frame)
    net.pump()
    blames = assert_blamed(net, SENDER, "")
    assert any(frame in b.evidence for b in blames)
