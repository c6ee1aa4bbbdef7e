"""Attack: biasing a joint coin (who starts the round). A seat commits to a contribution, sees the
others' reveals, then reveals another value that suits it better (or garbage). The reveal must
not open its commitment: every honest peer blames that seat, and the coin never settles.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from protocol.session import Session
from skyjo_p2p.core.events import RandomRequest
from tests.protocol.harness import Net, assert_blamed, cheater


@pytest.fixture(scope="module")
def before_reveal() -> Net:
    """Two seats after the deal with no setup reveals (all tie: a coin picks the first player);
    seat 1 (able to cheat) has committed, not revealed."""
    net = Net("skyjo", 2, {"target_score": 20, "setup_reveals": 0}, session_factory=cheater(1))
    net.start(until=lambda: net.has_sent(1, "coincommit"))
    assert not net.has_sent(1, "coin")
    return net


REVEALS = {
    "other-value": lambda reveal: [reveal[0], secrets.token_bytes(32)],
    "other-nonce": lambda reveal: [secrets.token_bytes(32), reveal[1]],
    "others-value": lambda reveal: [reveal[0], bytes(32)],
}


@pytest.mark.parametrize("cheat", sorted(REVEALS))
def test_coin_reveal_that_does_not_open_its_commitment_is_blamed(before_reveal: Net, cheat: str) -> None:
    net = before_reveal.clone()

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "reveal": REVEALS[cheat](data["reveal"])} if kind == "coin" else data

    net.set_tamper(1, tamper)
    net.pump()
    assert net.has_sent(0, "coin") and net.has_sent(1, "coin")
    assert_blamed(net, 1, "coin reveal refused")
    state = net.sessions[0].state
    assert state is not None and isinstance(state.pending[0], RandomRequest)
    assert state.random_value is None


def test_honest_coin_from_the_same_point_settles(before_reveal: Net) -> None:
    net = before_reveal.clone()
    net.pump(until=lambda: net.moves >= 1)
    assert not net.blamed()
    state = net.sessions[0].state
    assert state is not None and state.phase == "turn"
    assert not any(isinstance(r, RandomRequest) for r in state.pending)
