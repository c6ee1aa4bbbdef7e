"""Private re-reveals (issue 12, part 1): a card some seats know privately is shown to one more
seat by a share encrypted to it, never by a share published in the clear; a packet that does not
check is settled by a public complaint that every peer judges the same way."""

from __future__ import annotations

from typing import Any

from protocol import crypto
from protocol.jobs import RevealsJob as _Reveals
from protocol.messages import open_frame
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes
from skyjo_p2p.bots import make_bot
from skyjo_p2p.core.events import RevealRequest
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply, legal_moves

from .harness import Net, TamperingSession, assert_blamed

OPTIONS = {"action_kinds": "peek-line", "target_score": 30}
TARGET = 2


class Peeker:
    """A policy that takes every action card it can, plays it at once and peeks at a column of
    seat 2's grid that shows it something, the same column as the other peeker when it can;
    otherwise it plays as the greedy bot. Two peekers make a re-reveal certain, whatever the deal."""

    def __init__(self, seat: int, shared: dict[str, Any], target: int = TARGET) -> None:
        self.greedy = make_bot("greedy", "skyjo-action", f"peeker:{seat}")
        self.shared = shared
        self.target = target

    def choose(self, state: TableState, seat: int) -> Move:
        moves = legal_moves(state, seat)
        peeks = [m for m in moves if m.kind == "peek" and m.to_dict().get("target") == self.target]
        if peeks:
            showing = [m for m in peeks if _shows_something(state, m)]
            wanted = self.shared.get("line")
            for move in showing:
                if (move.to_dict()["line"], move.to_dict()["index"]) == wanted:
                    return move
            if showing:
                self.shared["line"] = (showing[0].to_dict()["line"], showing[0].to_dict()["index"])
                return showing[0]
            return peeks[0]
        for kind in ("play", "take"):
            for move in moves:
                if move.kind == kind and (kind == "play" or move.to_dict().get("from") == "market"):
                    return move
        return self.greedy.choose(state, seat)


def _shows_something(state: TableState, move: Move) -> bool:
    _, events = apply(state, move)
    return any(isinstance(e, RevealRequest) for e in events)


def peeking_table(session_factory: Any = None) -> Net:
    net = Net("skyjo-action", 3, OPTIONS, observers=1, session_factory=session_factory)
    shared: dict[str, Any] = {}
    # seat 2 never looks at its own grid (that would make the column known to all three)
    net.bots = [Peeker(0, shared), Peeker(1, shared), Peeker(2, {}, target=0)]
    return net


def _true_value(net: Net, handle: int) -> int:
    """What the card is, computed with every seat's secret (only a test can do this)."""
    session = net.sessions[0]
    ciphertext = session.cards.ciphertexts[handle]
    shares = [crypto.decryption_share(s.secret or 0, ciphertext) for s in net.sessions]
    deck = session.cards.deck_of[handle]
    assert session.state is not None
    composition = session._rules.composition(session.state, deck)
    index = session.cards.codebook(deck, len(composition)).index_of(crypto.combine_shares(ciphertext, shares))
    return int(composition[index])


def _seen_by_both_peekers(net: Net) -> list[int]:
    state = net.observers[0].state
    if state is None:
        return []
    return [h for h, seen in enumerate(state.seen) if seen & 0b011 == 0b011 and seen != state.everyone]


def _played_until_two_peekers_share_a_card(net: Net) -> None:
    net.start(until=lambda: bool(_seen_by_both_peekers(net)))
    assert _seen_by_both_peekers(net), "the peekers never looked at the same card"


def test_a12_peek_line_second_private_peek_of_a_card_publishes_no_completing_share() -> None:
    net = peeking_table()
    _played_until_two_peekers_share_a_card(net)
    net.pump(play=False)
    observer = net.observers[0]
    for handle in _seen_by_both_peekers(net):
        published = observer.cards.shares.get(handle, {})
        assert len(published) < net.config.players, f"card {handle}: every share is public"
        value = _true_value(net, handle)
        for peeker in (0, 1):
            state = net.sessions[peeker].state
            assert state is not None and state.values[handle] == value
        third = net.sessions[2].state
        assert third is not None and third.values[handle] is None
    assert not net.blamed()


def test_a12_peek_line_private_re_reveal_game_plays_to_the_end_and_verifies() -> None:
    net = peeking_table()
    _played_until_two_peekers_share_a_card(net)
    net.bots = [make_bot("greedy", "skyjo-action", f"net:{s}") for s in range(3)]  # now finish
    net.pump()
    assert not net.blamed()
    state = net.sessions[0].state
    assert state is not None and state.phase == "game_over"
    verdict = verify_bytes(dump(net.config, net.sessions[2].frames))
    assert verdict.valid and verdict.finished, verdict.fault


def _bad_packets(cheaters: list[int]) -> Any:
    """A tamper by which a keeper re-seals its packet around shares of the wrong card (a valid
    proof for another c1): the recipient's check fails. Records who cheated."""

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        if kind != "shares" or not data["private"] or cheaters:
            return data
        job = session._job
        assert isinstance(job, _Reveals) and session.me is not None and session.secret is not None
        cheaters.append(session.me)
        context = session.context(session.me, job.start_hash)
        packets = []
        for to, handles in sorted(job.sealed[session.me].items()):
            wrong = [session.cards.ciphertexts[max(session.cards.ciphertexts)]] * len(handles)
            packet = crypto.seal_shares(
                session.secret,
                session.public_keys[session.me],
                to,
                session.public_keys[to],
                wrong,
                context,
                session.me,
            )
            packets.append(packet.to_wire())
        return {**data, "private": packets}

    return tamper


def test_a12_peek_line_keeper_sending_a_bad_private_share_is_blamed_by_everyone() -> None:
    # whichever peeker looked first keeps its share of the column; it cheats on the re-reveal
    cheaters: list[int] = []
    tamper = _bad_packets(cheaters)

    def factory(config: Any, s: int, key: Any) -> Session:
        return TamperingSession(config, s, key, tamper) if s in (0, 1) else Session(config, s, key)

    net = peeking_table(factory)
    net.start()
    assert cheaters, "no re-reveal happened"
    culprit = cheaters[0]
    found = assert_blamed(net, culprit, "private shares")
    assert all(len(b.evidence) == 2 for b in found)
    verdict = verify_bytes(dump(net.config, net.sessions[2].frames))
    assert not verdict.valid and verdict.blame == culprit


def test_a12_peek_line_false_complaint_blames_the_complainer() -> None:
    net = peeking_table()
    _played_until_two_peekers_share_a_card(net)
    net.pump(play=False)
    # the recipient of the re-reveal got a good packet from the keeper; it complains anyway,
    # with a true opening of the key: every peer opens the box, finds good shares, blames it
    (sender, recipient) = next(
        (key[0], to) for session in net.sessions for key, by in session.complaints.sealed.items() for to in by
    )
    session = net.sessions[recipient]
    key = next(k for k, by in session.complaints.sealed.items() if recipient in by and k[0] == sender)
    packet, _, _, frame = session.complaints.sealed[key][recipient]
    z, proof = crypto.make_complaint(
        session.secret or 0,
        session.public_keys[recipient],
        packet,
        crypto.complaint_context(net.config.session_id, recipient, open_frame(frame, net.config).digest),
    )
    session._emit("complaint", {"frame": frame, "key": z, "proof": list(proof.to_wire())})
    net.pump(play=False)
    assert_blamed(net, recipient, "complained")
