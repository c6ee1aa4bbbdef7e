"""Fuzz the side messages issue 12 added (`halt`, `want`, `complaint`), relays (`evidence`, free
after a halt that names a culprit: PROTOCOL.md 10.5) and removals (`remove`, issue 30): whatever a
seat signs in them, nothing escapes `receive_frame`, and only that seat can ever be blamed."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import Net

ATTACKER = 2

_seat = st.integers(0, 7)
_frames = st.lists(st.binary(min_size=1, max_size=300), max_size=3)


@st.composite
def side_message(draw: st.DrawFn, recorded: list[bytes]) -> tuple[str, dict[str, Any]]:
    kind = draw(st.sampled_from(["halt", "want", "complaint", "evidence", "remove"]))
    real = st.sampled_from(recorded)
    if kind == "evidence":
        return kind, {"frame": draw(st.one_of(real, st.binary(min_size=1, max_size=200)))}
    if kind == "remove":
        held = st.tuples(_seat, st.integers(0, 1 << 20), st.binary(min_size=32, max_size=32))
        return kind, {
            "owner": draw(_seat),
            "attempt": draw(st.integers(0, 12)),
            "say": draw(st.sampled_from(["agree", "confirm", "refuse"])),
            "held": [list(h) for h in draw(st.lists(held, max_size=3))],
        }
    if kind == "halt":
        evidence = draw(st.lists(st.one_of(real, st.binary(min_size=1, max_size=200)), max_size=3))
        culprit = draw(st.lists(_seat, max_size=1))
        return kind, {
            "reason": draw(st.text(min_size=1, max_size=40)),
            "culprit": culprit,
            "absent": draw(st.lists(_seat, max_size=3)),
            "evidence": evidence,
        }
    if kind == "want":
        return kind, {"seat": draw(_seat), "from": draw(st.integers(0, 1 << 39))}
    return kind, {
        "frame": draw(st.one_of(real, st.binary(min_size=1, max_size=200))),
        "key": draw(st.binary(min_size=32, max_size=32)),
        "proof": [draw(st.binary(min_size=32, max_size=32)), draw(st.binary(min_size=32, max_size=32))],
    }


_BASE: dict[str, Net] = {}


def _base() -> Net:
    if "net" not in _BASE:
        net = Net("skyjo", 3, {"target_score": 20}, observers=1)
        net.start(until=lambda: net.moves >= 4)
        net.pump(play=False)
        _BASE["net"] = net
    return _BASE["net"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_signed_side_messages_never_blame_another_seat(data: st.DataObject) -> None:
    net = _base().clone()
    recorded = [frame for _, frame in net.sent][:60]
    for _ in range(data.draw(st.integers(1, 3))):
        kind, body = data.draw(side_message(recorded))
        try:
            net.sessions[ATTACKER]._emit(kind, body)
        except ValueError:  # too large for one frame: nothing was signed
            continue
    net.pump()
    net.fire_timers()
    for seat in (0, 1):
        assert {b.seat for b in net.blamed(seat)} <= {ATTACKER}, [
            (b.seat, b.reason) for b in net.blamed(seat)
        ]
        assert all(h.culprit in (None, ATTACKER) for h in net.halted(seat))
        assert not [r for r in net.rejected(seat) if "internal error" in r.reason], net.rejected(seat)
    assert {b.seat for b in net.observers[0].blamed} <= {ATTACKER}
