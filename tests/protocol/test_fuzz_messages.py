"""Fuzzing the message decoder and the session with random and mutated frames (hypothesis).

Attack: a peer (or anyone on the network) sends bytes crafted to crash, hang or confuse a peer:
random bytes, valid frames with flipped bits, cut or extended, bodies re-encoded with wrong
types, missing or extra fields, huge lengths or deep nesting, with or without a valid signature,
at any point of a game. The decoder raises only its typed errors; the session raises nothing,
reports only `FrameRejected` (nobody signed it) or `Blamed` naming the signer, does bounded work,
and after an unattributable frame goes on with honest traffic as if it had never come.
"""

from __future__ import annotations

import time
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.chains import MAX_BUFFERED
from protocol.errors import MalformedSignedFrame, ProtocolError
from protocol.events import Blamed, ChatReceived, FrameRejected, Halted, TimerRequest, Updated
from protocol.messages import MAX_FRAME, SCHEMAS, encode_body, open_frame
from tests.protocol.harness import Net


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    """A 2-seat game with an observer, snapshotted at three points (each with a cheap next step
    to reach: how far honest traffic must go on after a fuzzed frame); every frame sent."""
    net = Net("skyjo", 2, {"target_score": 20}, observers=1)
    snapshots = []
    net.start(until=lambda: net.has_sent(1, "keycommit"))
    snapshots.append((net.clone(), lambda n: n.has_sent(0, "key") and n.has_sent(1, "key")))
    net.pump(until=lambda: net.has_sent(0, "shares"))
    snapshots.append((net.clone(), lambda n: n.moves >= 1))  # dealt, first reveal under way
    net.pump(until=lambda: net.moves >= 5)
    snapshots.append((net.clone(), lambda n: n.moves >= 7))  # turns
    net.pump(until=lambda: net.moves >= 12)
    corpus = [(seat, frame) for seat, frame in net.sent]
    kinds = {open_frame(f, net.config).kind for _, f in corpus}
    assert {"keycommit", "key", "shuffle", "shares", "move", "echo"} <= kinds
    return {"net": net, "snapshots": snapshots, "corpus": corpus}


# --- the decoder -------------------------------------------------------------------------------


@fuzz(300)
@given(data=st.binary(max_size=3000))
def test_open_frame_on_random_bytes(recorded: dict[str, Any], data: bytes) -> None:
    with pytest.raises(ProtocolError):
        open_frame(data, recorded["net"].config)


def mutate_bytes(frame: bytes, draw: Any) -> bytes:
    """Bit flips, a cut, an extension or a splice of a frame."""
    how = draw(st.sampled_from(["flip", "cut", "extend", "splice", "flips"]))
    raw = bytearray(frame)
    if how == "flip":
        i = draw(st.integers(0, len(raw) - 1))
        raw[i] ^= 1 << draw(st.integers(0, 7))
    elif how == "flips":
        for i in draw(st.lists(st.integers(0, len(raw) - 1), min_size=2, max_size=20)):
            raw[i] ^= 0xFF
    elif how == "cut":
        raw = raw[: draw(st.integers(0, len(raw) - 1))]
    elif how == "extend":
        raw += draw(st.binary(min_size=1, max_size=64))
    else:
        i = draw(st.integers(0, len(raw)))
        raw[i:i] = draw(st.binary(min_size=1, max_size=64))
    return bytes(raw)


@fuzz(200)
@given(data=st.data())
def test_open_frame_on_mutated_frames(recorded: dict[str, Any], data: st.DataObject) -> None:
    net = recorded["net"]
    _, frame = data.draw(st.sampled_from(recorded["corpus"]))
    mutated = mutate_bytes(frame, data.draw)
    if mutated == frame:
        return
    try:
        envelope = open_frame(mutated, net.config)
    except ProtocolError:
        return
    # a mutation that still opens changed only the outer msgpack encoding, never what was signed
    assert envelope.body == open_frame(frame, net.config).body


MSGPACK_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=True)
    | st.binary(max_size=40)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(max_size=6) | st.binary(max_size=6), children, max_size=5)
    ),
    max_leaves=12,
)


def mutate_body(body: dict[str, Any], draw: Any) -> Any:
    """A structural change of a decoded body: wrong types, extra or missing fields, reordering."""
    body = dict(body)
    data = dict(body["data"])
    how = draw(
        st.sampled_from(
            [
                "head-value",
                "data-value",
                "extra-data",
                "drop-data",
                "extra-head",
                "drop-head",
                "kind",
                "order",
                "deep",
                "list",
            ]
        )
    )
    if how == "head-value":
        body[draw(st.sampled_from(sorted(body)))] = draw(MSGPACK_VALUES)
    elif how == "data-value" and data:
        data[draw(st.sampled_from(sorted(data)))] = draw(MSGPACK_VALUES)
    elif how == "extra-data":
        data[draw(st.text(min_size=1, max_size=8) | st.binary(min_size=1, max_size=8))] = draw(MSGPACK_VALUES)
    elif how == "drop-data" and data:
        del data[draw(st.sampled_from(sorted(data)))]
    elif how == "extra-head":
        body[draw(st.text(min_size=1, max_size=8))] = draw(MSGPACK_VALUES)
    elif how == "drop-head":
        del body[draw(st.sampled_from(sorted(body)))]
    elif how == "kind":
        body["kind"] = draw(st.sampled_from(sorted(SCHEMAS)))
    elif how == "order":
        keys = draw(st.permutations(sorted(body)))
        body = {k: body[k] for k in keys}
    elif how == "deep":
        nested: Any = draw(MSGPACK_VALUES)
        for _ in range(draw(st.integers(1, 400))):
            nested = [nested]
        data[draw(st.sampled_from(sorted(data) or ["x"]))] = nested
    else:
        return [body]  # not a map at all
    if "data" in body:
        body["data"] = data
    return body


def re_encoded(net: Net, seat: int, frame: bytes, draw: Any, sign: bool = True) -> bytes:
    """The frame's body, structurally mutated and re-encoded, signed by `seat` (or not)."""
    body, _ = msgpack.unpackb(frame)
    head = msgpack.unpackb(body, strict_map_key=False)
    try:
        new_body = msgpack.packb(mutate_body(head, draw), use_bin_type=True)
    except (OverflowError, ValueError, TypeError):
        new_body = body + b"\xc0"
    signature = net.keys[seat].sign(new_body) if sign else draw(st.binary(min_size=64, max_size=64))
    return msgpack.packb([new_body, signature], use_bin_type=True)


@fuzz(250)
@given(data=st.data())
def test_open_frame_on_re_encoded_bodies(recorded: dict[str, Any], data: st.DataObject) -> None:
    net = recorded["net"]
    seat, frame = data.draw(st.sampled_from(recorded["corpus"]))
    sign = data.draw(st.booleans())
    mutated = re_encoded(net, seat, frame, data.draw, sign)
    try:
        envelope = open_frame(mutated, net.config)
    except MalformedSignedFrame as exc:
        assert sign and exc.seat == seat and exc.frame == mutated
        return
    except ProtocolError:
        return
    assert sign and envelope.seat == seat  # still well-formed (e.g. reordered data fields)


BOMBS = [
    b"\xdd\xff\xff\xff\xff",  # array of 2^32-1 items, none given
    b"\xdf\xff\xff\xff\xff",  # map of 2^32-1 pairs
    b"\xc6\xff\xff\xff\xff",  # bin of 4 GiB
    b"\xdb\xff\xff\xff\xff",  # str of 4 GiB
    b"\x92\xc6\x7f\xff\xff\xff" + b"\x00" * 64,
    b"\x91" * 100_000,  # nesting far beyond any stack
    b"\x92" + b"\xc4\x05" + msgpack.packb([[[[[]]]]])[:5] + b"\xc4\x40" + b"\x00" * 64,
    b"\xd4\x01\x00",  # an ext type
    msgpack.packb([msgpack.packb({"v": 1}), b"\x00" * 64]),
    msgpack.packb([b"\x91" * 50_000, b"\x00" * 64]),  # deep nesting inside the body
    msgpack.packb([msgpack.packb([1] * 5000), b"\x00" * 64]),  # too many items
    msgpack.packb([b"\x00" * (MAX_FRAME - 100), b"\x00" * 64]),
    b"\x00" * (MAX_FRAME + 1),
    b"",
]


@pytest.mark.parametrize("bomb", BOMBS, ids=range(len(BOMBS)))
def test_decoder_bombs_are_refused_fast(recorded: dict[str, Any], bomb: bytes) -> None:
    # bounded work, in this process's CPU time (not wall-clock time, which load inflates)
    start = time.process_time()
    with pytest.raises(ProtocolError):
        open_frame(bomb, recorded["net"].config)
    assert time.process_time() - start < 1.0


# --- the session, at any point of a game -------------------------------------------------------

ALLOWED = (FrameRejected, Blamed, Halted, TimerRequest, ChatReceived, Updated)
"""What a fuzzed frame may cause (a re-signed one can be a valid chat, echo or step)."""


@fuzz(45)
@given(data=st.data())
def test_session_survives_fuzzed_frames(recorded: dict[str, Any], data: st.DataObject) -> None:
    snapshot, next_step = data.draw(st.sampled_from(recorded["snapshots"]))
    net: Net = snapshot.clone()
    target = data.draw(st.sampled_from(["seat 0", "seat 1", "observer"]))
    session = net.observers[0] if target == "observer" else net.sessions[int(target[-1])]
    seat, frame = data.draw(st.sampled_from(recorded["corpus"]))
    how = data.draw(st.sampled_from(["bytes", "unsigned", "signed"]))
    if how == "bytes":
        bad = mutate_bytes(frame, data.draw)
    else:
        bad = re_encoded(net, seat, frame, data.draw, sign=how == "signed")
    try:
        open_frame(bad, net.config)
        signed = True  # still a frame its seat signed (a re-encoding that kept it well-formed)
    except MalformedSignedFrame:
        signed = True
    except ProtocolError:
        signed = False
    before = (len(session.frames), session.transcript_hash, session.halted)
    start = time.process_time()  # CPU time: load on the machine does not inflate it
    session.receive_frame(bad)  # never raises
    assert time.process_time() - start < 5.0, "bounded work per frame"
    events = session.next_events()
    assert all(isinstance(e, ALLOWED) for e in events), events
    assert all(b.seat == seat for b in events if isinstance(b, Blamed)), (events, seat)
    if target != "observer":
        net.events[int(target[-1])].extend(events)
    if signed:  # whatever it does, only its signer can be blamed for it, now or later
        net.pump(until=lambda: next_step(net))
        assert {b.seat for b in net.blamed()} <= {seat}, (
            [(s, b.reason) for s in range(2) for b in net.blamed(s)],
            target,
            msgpack.unpackb(msgpack.unpackb(bad)[0], strict_map_key=False),
        )
        return
    # unattributable: refused, nothing changed, and the game goes on as if it had never come
    assert [type(e) for e in events] == [FrameRejected], events
    assert (len(session.frames), session.transcript_hash, session.halted) == before
    net.pump(until=lambda: next_step(net))
    assert next_step(net)
    assert not net.blamed() and all(s.halted is None for s in net.sessions)
    assert not net.observers[0].blamed and net.observers[0].halted is None
    assert len(session.frames) > before[0], "honest frames keep being accepted"


@fuzz(30)
@given(data=st.data())
def test_session_survives_fuzzed_evidence(recorded: dict[str, Any], data: st.DataObject) -> None:
    # a seat relays, as evidence, a fuzzed frame (garbage, signed garbage, or a real frame of
    # any seat): only the relayer or the enclosed frame's signer can be blamed for it
    snapshot, _ = data.draw(st.sampled_from(recorded["snapshots"]))
    net: Net = snapshot.clone()
    target = data.draw(st.sampled_from([0, 1]))
    relayer = 1 - target
    session = net.sessions[target]
    seat, frame = data.draw(st.sampled_from(recorded["corpus"]))
    how = data.draw(st.sampled_from(["bytes", "signed", "as-is"]))
    inner = (
        frame
        if how == "as-is"
        else mutate_bytes(frame, data.draw)
        if how == "bytes"
        else re_encoded(net, seat, frame, data.draw)
    )
    if len(inner) > MAX_FRAME - 1024:
        return
    chain = session.chains[relayer]
    body = encode_body(net.config, relayer, chain.next_seq, chain.last_digest, "evidence", {"frame": inner})
    session.receive_frame(msgpack.packb([body, net.keys[relayer].sign(body)]))
    events = session.next_events()
    assert all(isinstance(e, ALLOWED) for e in events), events
    assert {e.seat for e in events if isinstance(e, Blamed)} <= {relayer, seat}, (events, relayer, seat)


def test_a_flood_of_frames_ahead_of_a_gap_is_bounded(recorded: dict[str, Any]) -> None:
    # a seat signs thousands of frames far ahead of its chain: they are buffered up to a cap,
    # then refused; the receiver neither grows without bound nor stops
    net: Net = recorded["snapshots"][2][0].clone()
    receiver = net.sessions[1]
    chain = receiver.chains[0]
    key = net.keys[0]
    for offset in range(MAX_BUFFERED + 5):
        body = encode_body(net.config, 0, chain.next_seq + 10 + offset, bytes(32), "chat", {"text": "x"})
        receiver.receive_frame(msgpack.packb([body, key.sign(body)]))
    events = receiver.next_events()
    assert len(chain.ahead) == MAX_BUFFERED
    assert [type(e) for e in events] == [FrameRejected] * 5
    assert receiver.halted is None
