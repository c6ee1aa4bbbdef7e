"""A `want` for a seat's frames that only that seat can answer (PROTOCOL.md 9, "Gaps and want").

The seat sends its own frames again as they are. Before, it wrapped them in its own `evidence`
frames: new frames of its own chain, after the asker's gap in that very chain, so the asker held
them behind the gap and could never use them, and each answer was more frames the asker lacked.
In the adversary model (seed 9283) that grew one chain by thousands of frames; two honest peers
never caught up, and the others stopped the game naming one of them absent."""

from __future__ import annotations

from protocol.events import FrameRejected
from protocol.loopback import frame_kind
from protocol.messages import open_frame
from protocol.quotas import RELAY_WINDOW_FRAMES
from tests.protocol.harness import Net


def test_a_want_only_the_owner_can_answer_is_answered_with_its_frames_as_they_are() -> None:
    net = Net("skyjo", 3, {"target_score": 1})
    net.start(until=lambda: net.sessions[0].state is not None and net.sessions[0].state.phase == "turn")
    withheld: list[int] = []
    holding = [True]
    resent: dict[int, int] = {}

    def link(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if receiver != 2:
            return [frame]
        envelope = open_frame(frame, net.config)
        if sender == 0 and envelope.seat == 0 and holding[0]:
            withheld.append(envelope.seq)  # seat 0's frames do not reach seat 2 for a while
            return []
        if sender == 0 and envelope.seat == 0 and envelope.seq in withheld:
            resent[envelope.seq] = resent.get(envelope.seq, 0) + 1
        if sender == 1 and frame_kind(frame) == "evidence":
            return []  # and seat 1 does not relay them: only seat 0 can answer seat 2's want
        return [frame]

    net.filter = link
    net.run(until=lambda: len(withheld) >= 3 and net.has_sent(1, "shares"))
    holding[0] = False
    gap = net.sessions[2].next_seq_of(0)
    assert withheld and gap <= withheld[0]
    chain_before = net.sessions[0].next_seq_of(0)
    for _ in range(5):  # the want timers, as long as frames are missing (bounded)
        net.pump()
        if net.sessions[2].next_seq_of(0) > max(withheld):
            break
        net.fire_timers([2], prefix="want:")
    assert net.has_sent(2, "want")
    assert net.sessions[2].next_seq_of(0) > max(withheld), "seat 2 got seat 0's frames"
    assert resent and max(resent.values()) <= 3, resent
    # seat 0 wrapped none of its own frames in evidence frames of its own chain
    for frame in net.sessions[0].frames:
        envelope = open_frame(frame, net.config)
        if envelope.seat == 0 and envelope.kind == "evidence":
            assert open_frame(envelope.data["frame"], net.config).seat != 0
    assert net.sessions[0].next_seq_of(0) >= chain_before
    net.filter = None
    net.pump()
    assert not net.blamed()


def test_sending_our_own_frames_again_spends_the_relay_budget() -> None:
    # a flood of wants for a seat's own frames makes it send them again only within its relay
    # budget (PROTOCOL.md 10.5): what it sends for wants stays bounded as relays are
    net = Net("skyjo", 3, {"target_score": 1})
    net.start(until=lambda: net.sessions[0].state is not None and net.sessions[0].state.phase == "turn")
    session = net.sessions[0]
    quotas = session.quotas
    session.data_to_send()
    session.relays.serve_want(2, 0, 0)
    resent = session.data_to_send()
    assert resent and quotas.relayed_window[0] == len(resent)
    assert quotas.relayed_window[1] == sum(len(f) for f in resent)
    quotas.relayed_window[0] = RELAY_WINDOW_FRAMES  # the budget of this window is spent
    session.relays.served.clear()
    session.relays.serve_want(2, 0, 0)
    assert session.data_to_send() == []
    assert any(
        "relay budget is spent" in e.reason for e in session.next_events() if isinstance(e, FrameRejected)
    )
