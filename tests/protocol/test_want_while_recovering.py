"""A `want` that falls due while a restored session recovers its tail (PROTOCOL.md 9, "Gaps and
want"; 10.10, the lost tail).

Found on real programs (tests/client/test_lan_back_waits.py): a player's program, killed, came
back with `--resume` while another program's lid had just closed. The frames of the closed lid
that it lacked (among them that program's vote and uphold about the player's own seat) showed in
the acknowledgements of the others' frames, so it set a `want:` timer; the timer ran out before
the others had said what they hold of its chain, while a recovering session signs nothing, and the
`want` was dropped. The gap is asked about once, so it was never asked about again: the program
never saw the vote that gave its seat to the table, never sent its `return`, and stopped as cut
off while the table waited for it. Now the `want` waits until the session may sign, then goes.
"""

from __future__ import annotations

from protocol.messages import SIDE_KINDS, open_frame
from protocol.session import Session
from tests.protocol.harness import Net

BACK, ABSENT = 2, 1
"""The seat that comes back, and the seat whose frames reach it only as relays."""


def _run_out_wants(net: Net, done: int) -> int:
    """Each `want:` timer BACK asked for since its `done` first timer requests runs out, once
    (as a real clock runs each timer out once). Returns how many requests it has made now."""
    requests = net.timers[BACK]
    upto = len(requests)
    for timer in requests[done:upto]:
        if timer.name.startswith("want:") and net.sessions[BACK].timer_needed(timer.name):
            net.sessions[BACK].timer_expired(timer.name)
    net.collect(BACK)
    net.pump(play=False)
    return upto


def test_a_want_due_while_recovering_goes_out_once_the_tail_is_back_and_fills_the_gap() -> None:
    net = Net("skyjo", 3, {"target_score": 1})
    net.start(until=lambda: net.moves >= 4 and net.wants_move(0))
    old = net.sessions[BACK]
    saved = (old.secrets(), list(old.frames))
    # its program stops; seat 0 moves, ABSENT sends its part of the reveal (a game frame) and
    # seat 0 acknowledges it (each frame acknowledges the latest game frame held of each seat)
    net.silent.add(BACK)
    net.filter = lambda s, r, f: [] if r == BACK else [f]
    net.pump()
    opened = [open_frame(f, net.config) for f in net.sessions[ABSENT].frames]
    lacked = max(e.seq for e in opened if e.seat == ABSENT and e.kind not in SIDE_KINDS)
    assert lacked >= old.next_seq_of(ABSENT), "ABSENT signed a game frame the program that stopped lacks"
    # it comes back; ABSENT's own frames never reach it directly, only as the others' relays
    restored = Session.restore(net.config, BACK, net.keys[BACK], *saved, recover=True)
    net.sessions[BACK] = restored
    net.silent.discard(BACK)

    def link(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if receiver == BACK and open_frame(frame, net.config).seat == ABSENT:
            return []
        return [frame]

    net.filter = link
    net.collect(BACK)
    for frame in net.sessions[0].own_frames_from(restored.next_seq_of(0)):
        net.put(0, BACK, frame)  # seat 1's chat acknowledges ABSENT's: a gap shows
    net.pump(play=False)
    assert restored.recovering
    wants = [t.name for t in net.timers[BACK] if t.name.startswith(f"want:{ABSENT}:")]
    assert wants, "the acknowledgements showed the gap"
    fired = _run_out_wants(net, 0)  # they run out before the others say what they hold
    assert not net.has_sent(BACK, "want"), "a recovering session signs nothing"
    for seat in (0, ABSENT):
        restored.peer_holds(seat, net.sessions[seat].next_seq_of(BACK))
    assert not restored.recovering
    net.collect(BACK)
    fired = _run_out_wants(net, fired)
    assert net.has_sent(BACK, "want"), "the want goes out once the session may sign"
    for _ in range(10):  # each answer fills part of the gap; what is still lacking shows again
        net.pump(play=False)
        if restored.next_seq_of(ABSENT) > lacked:
            break
        fired = _run_out_wants(net, fired)
    assert restored.next_seq_of(ABSENT) > lacked, "the gap is filled"
    assert not net.blamed()
