"""`verify` checks a file's signatures in one batch (protocol version 6, PROTOCOL.md 11.1 and
12.11): a file whose signatures all hold gets the verdict checking each on arrival gives, and a
file with one forged signature is surveyed again frame by frame, so exactly that frame is refused.
A seat that signs with R off by a point of small order (valid under the cofactored rule, never
made by an honest signer) is accepted by the live peers and by `verify` alike."""

from __future__ import annotations

import random

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.crypto import group, signatures
from protocol.errors import BadSignature, MalformedMessage
from protocol.events import FrameRejected, Halted
from protocol.messages import open_frame
from protocol.transcript import dump
from protocol.verify import Verdict, verify_bytes
from tests.protocol.harness import Net
from tests.protocol.signature_support import ORDER_2, ORDER_8, sign_twisted


class Twisted:
    """A `FrameSigner` stand-in: every signature's R moved by a point of small order."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self.key = key
        self.public = key.public_key().public_bytes_raw()
        self.rng = random.Random(7)
        self.made = 0

    def sign(self, data: bytes) -> bytes:
        self.made += 1
        return sign_twisted(self.key, data, self.rng.choice((ORDER_8, ORDER_2)))


@pytest.fixture(scope="module")
def twisted_game() -> tuple[Net, Twisted]:
    """A whole 2-seat SKYJO game of one round in which seat 1 signs every frame twisted."""
    net = Net("skyjo", 2, {"target_score": 1})
    signer = Twisted(net.keys[1])
    net.sessions[1]._signer = signer  # type: ignore[assignment]
    net.run_game()
    return net, signer


def _strict(data: bytes, monkeypatch: pytest.MonkeyPatch) -> Verdict:
    """The verdict of a survey that checks each signature on arrival (the batch never holds)."""
    with monkeypatch.context() as patch:
        patch.setattr(signatures.SignatureBatch, "holds", lambda self: False)
        return verify_bytes(data)


def test_live_peers_and_verify_accept_a_seat_whose_signatures_are_twisted(
    twisted_game: tuple[Net, Twisted], monkeypatch: pytest.MonkeyPatch
) -> None:
    net, signer = twisted_game
    assert signer.made > 20
    for seat in (0, 1):
        session = net.sessions[seat]
        assert session.state is not None and session.state.phase == "game_over"
        assert not [e for e in net.events[seat] if isinstance(e, FrameRejected | Halted)]
    data = dump(net.config, net.sessions[0].frames)
    verdict = verify_bytes(data)
    assert verdict.finished and not verdict.rejected, verdict.fault
    assert verdict.as_dict() == _strict(data, monkeypatch).as_dict()


def _forge(frame: bytes) -> bytes:
    """The frame with one bit of its signature's S flipped (the body unchanged)."""
    return frame[:-20] + bytes([frame[-20] ^ 4]) + frame[-19:]


@pytest.mark.parametrize("compiled", [True, False])
def test_a_forged_signature_is_refused_exactly_as_one_by_one(
    twisted_game: tuple[Net, Twisted], monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    if compiled and not group.msm_available():
        pytest.skip("the extension is not built here")
    net, _ = twisted_game
    frames = list(net.sessions[0].frames)
    config = net.config
    was = group.use_extension(compiled)
    try:
        honest = verify_bytes(dump(config, frames))
        assert honest.finished
        # a forged copy beside the real frame (and a copy of another): refused and reported
        beside = [*frames[:5], _forge(frames[5]), *frames[5:], frames[7]]
        verdict = verify_bytes(dump(config, beside))
        assert verdict.as_dict() == _strict(dump(config, beside), monkeypatch).as_dict()
        assert verdict.kind == "invalid" and verdict.blame is None and verdict.duplicates == 1
        assert verdict.rejected == ["signature of a frame claiming seat 2 does not verify"]
        assert verdict.totals == honest.totals
        # the forgery twice, a real frame three times, at both ends of the file
        copies = [_forge(frames[5]), frames[9], *frames, frames[9], _forge(frames[5])]
        verdict = verify_bytes(dump(config, copies))
        assert verdict.as_dict() == _strict(dump(config, copies), monkeypatch).as_dict()
        assert verdict.duplicates == 2 and len(verdict.rejected) == 2
        # the real frame replaced by the forgery: a hole in seat 2's chain, as one by one
        index = next(i for i, f in enumerate(frames) if open_frame(f, config).seat == 1 and i > 10)
        replaced = [*frames[:index], _forge(frames[index]), *frames[index + 1 :]]
        verdict = verify_bytes(dump(config, replaced))
        assert verdict.as_dict() == _strict(dump(config, replaced), monkeypatch).as_dict()
        assert not verdict.finished and verdict.rejected
    finally:
        group.use_extension(was)


def test_the_batch_is_checked_before_the_replay_and_only_redone_when_it_fails(
    twisted_game: tuple[Net, Twisted], monkeypatch: pytest.MonkeyPatch
) -> None:
    net, _ = twisted_game
    frames = list(net.sessions[0].frames)
    sizes: list[int] = []
    real = signatures.SignatureBatch.holds

    def counted(self: signatures.SignatureBatch) -> bool:
        sizes.append(len(self))
        return real(self)

    monkeypatch.setattr(signatures.SignatureBatch, "holds", counted)
    verify_bytes(dump(net.config, frames))
    assert sizes == [len(frames)]  # one batch: every frame's signature, nothing checked twice
    calls: list[str] = []
    monkeypatch.setattr(signatures.SodiumEd25519PublicKey, "verify", lambda *a: calls.append("one"))
    verify_bytes(dump(net.config, [*frames, _forge(frames[3])]))
    assert len(calls) == len(frames) + 1, "a failed batch: the survey again, each signature alone"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damaged_file_gets_the_verdict_of_checking_each_signature_alone(
    twisted_game: tuple[Net, Twisted], monkeypatch: pytest.MonkeyPatch, data: st.DataObject
) -> None:
    net, _ = twisted_game
    frames = list(net.sessions[0].frames)
    for _ in range(data.draw(st.integers(1, 4))):
        how = data.draw(st.sampled_from(["forge", "copy", "drop", "byte", "resign", "move"]))
        i = data.draw(st.integers(0, len(frames) - 1))
        if how == "forge":
            frames.insert(data.draw(st.integers(0, len(frames))), _forge(frames[i]))
        elif how == "copy":
            frames.insert(data.draw(st.integers(0, len(frames))), frames[i])
        elif how == "drop":
            del frames[i]
        elif how == "byte":  # anywhere: the body, the signature or the framing
            j = data.draw(st.integers(0, len(frames[i]) - 1))
            frames[i] = frames[i][:j] + bytes([frames[i][j] ^ 0x10]) + frames[i][j + 1 :]
        elif how == "resign":  # the same body signed again by its seat, twisted: still its frame
            try:
                envelope = open_frame(frames[i], net.config)
            except (BadSignature, MalformedMessage):
                continue  # a frame an earlier step forged or damaged: nobody's body to sign again
            twisted = sign_twisted(net.keys[envelope.seat], envelope.body)
            frames.insert(i + 1, msgpack.packb([envelope.body, twisted], use_bin_type=True))
        else:
            frames.insert(data.draw(st.integers(0, len(frames))), frames.pop(i))
    file = dump(net.config, frames)
    assert verify_bytes(file).as_dict() == _strict(file, monkeypatch).as_dict()
