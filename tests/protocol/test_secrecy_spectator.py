"""The secrecy property (issue 12) for what a spectator receives (issue 18, `skyjo-lan watch`).

A spectator is sent the genesis and the host's transcript, frame by frame in the host's own
order (`client.table.spectators`: what seat 0's session accepted, in its order), and runs a live
observer session on them (`client.table.watch`). Here seat 0 is the host: after every frame
delivered anywhere, every frame seat 0 has accepted so far goes to a spectator session, which the
checker of tests/protocol/secrecy.py checks at each of its state changes as it checks the
observer: it decrypts exactly the cards the rules made public, to their public values, never a
hidden one, at every prefix of the stream (not only at the end). At the end it has consumed
everything and reached the players' result.

`test_the_check_sees_a_spectator_leak` is the control: a seat's own share of a card only it saw,
put in the spectator's store, is reported.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from protocol import crypto
from protocol.session import Session
from protocol.verify import unconsumed
from tests.protocol.harness import Net
from tests.protocol.secrecy import (
    GameSpec,
    RecordingObserver,
    SecrecyChecker,
    SecrecyViolation,
    make_bots,
    peek_spec,
    sample_spec,
    seeded_randomness,
)

HOST = 0
SPECTATOR = -2
"""The spectator's viewer id for the checker (negative: no seat, no key share, like -1)."""

SPECS = {
    "skyjo": (3, 3, None),
    "skyjo-action": (3, 3, "peek"),
    "skip-bo": (2, 3, None),
}
"""(seed, seats, policy) per game: the sample of test_secrecy_property's CI list."""


class Spectator:
    """A live observer fed seat 0's transcript in seat 0's order, as the host's hub feeds it."""

    def __init__(self, net: Net, checker: SecrecyChecker, leak: bool = False) -> None:
        self.net = net
        self.checker = checker
        self.session = Session(net.config, None, None)
        self.session.start()
        self.fed = 0
        self.leak = leak
        self.last: object = None
        self.checks = 0

    def poll(self) -> bool:
        """`Net.pump`'s `until`: feed what the host accepted since, checking each state change."""
        host = self.net.sessions[HOST]
        while self.fed < host.frame_count:
            self.session.receive_frame(host.frame_at(self.fed))
            self.fed += 1
            self.session.next_events()
            assert self.session.data_to_send() == [], "a spectator sends nothing"
            if self.leak:
                self._leak()
            if self.session.state is not self.last:
                self.last = self.session.state
                self.checks += 1
                self.checker.check(SPECTATOR, self.session)
        return self.checker.poll()

    def _leak(self) -> None:
        """The control: a card only one seat has seen gets that seat's own share in the
        spectator's store (the share its owner must never publish)."""
        state = self.session.state
        if state is None or state.pending:
            return
        for handle, seen in enumerate(state.seen):
            if seen.bit_count() == 1 and handle in self.session.cards.ciphertexts:
                owner = seen.bit_length() - 1
                secret = self.net.sessions[owner].secret
                assert secret is not None
                ciphertext = self.session.cards.ciphertexts[handle]
                self.session.cards.published(handle)[owner] = crypto.decryption_share(secret, ciphertext)
                self.leak = False
                return


def sampled(seed: int, game: str, players: int, policy: str | None) -> GameSpec:
    spec = sample_spec(seed, game, players)
    return spec if policy is None else replace(spec, policy=policy)


def spectated(spec: GameSpec, leak: bool = False) -> Spectator:
    with seeded_randomness(spec.seed):
        net = Net(spec.game, spec.players, dict(spec.options), bots=list(spec.bots))
        net.observers = [RecordingObserver(net.config, Counter())]
        net.observer_events = [[]]
        net.bots = make_bots(spec)
        checker = SecrecyChecker(net, spec)
        spectator = Spectator(net, checker, leak)
        net.start(until=spectator.poll)
        net.pump(until=spectator.poll)
        spectator.poll()
    return spectator


@pytest.mark.parametrize("game", sorted(SPECS))
def test_a_spectator_can_decrypt_no_hidden_card(game: str) -> None:
    spectator = spectated(sampled(*SPECS[game][:1], game, *SPECS[game][1:]))
    session = spectator.session
    host = spectator.net.sessions[HOST]
    assert spectator.checks > 10, "the spectator was checked along the game"
    assert session.state is not None and session.state.phase == "game_over"
    assert host.state is not None and list(session.state.totals) == list(host.state.totals)
    assert session.halted is None and unconsumed(session) == []
    assert session.secret is None and not session.cards.private, "a spectator holds no private share"
    opened = spectator.checker.observer_opens(session)
    assert opened and all(value is not None for value in opened.values())


def test_peeks_of_the_same_card_stay_hidden_from_a_spectator() -> None:
    spectator = spectated(peek_spec(12, 3))
    assert unconsumed(spectator.session) == []


def test_the_check_sees_a_spectator_leak() -> None:
    with pytest.raises(SecrecyViolation, match="the observer can decrypt card"):
        spectated(sampled(3, "skyjo", 3, None), leak=True)
