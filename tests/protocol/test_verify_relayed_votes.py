"""An offline check foresees the table's decisions from votes its file holds only as relays
(PROTOCOL.md 10.9, "The return": a verifier reads every vote first; `relays.with_relayed`).

Found on real programs (tests/client/test_lan_lid_missing_vote.py): the file of a player back from
a closed lid held the host's vote about it only inside the other seats' `evidence` frames (the
host's own link never brought it). `verify` learns the table's decisions before it replays the
game, so that the frames of a seat the table plays that the table did not count are never
counted; it read only the frames at the top of the file, missed the host's vote, counted a move
the player had signed as its lid closed, and named the honest host a cheat for its decryption
shares of the game the table had played ("invalid decryption shares", seat 1 blamed).
"""

from __future__ import annotations

from protocol.ballots import Held
from protocol.config import TableConfig
from protocol.messages import Envelope, open_frame, seal
from protocol.session import Session

from .test_seat_insurance import GONE, insured, vanish

HOST, RELAYER = 0, 1


def _foreseen(config: TableConfig, order: list[Envelope]) -> dict[int, list[Held]]:
    """The decisions to play a seat that an offline check of a file in this order knows at once."""
    observer = Session(config, None, None)
    observer.foresee(order)
    return dict(observer.insurance.foreseen)


def test_an_offline_check_foresees_a_vote_its_file_holds_only_inside_a_relay() -> None:
    net = insured("skyjo", players=4)
    vanish(net, (GONE,))
    order = [open_frame(f, net.config) for f in net.sessions[HOST].frames]
    assert GONE in _foreseen(net.config, order), "the host's own file: every vote at the top"
    vote = next(e for e in order if e.kind == "vacate" and e.seat == HOST and e.data["owner"] == GONE)
    without = [e for e in order if e is not vote]
    assert GONE not in _foreseen(net.config, without), "the host's vote is needed"
    # the host's vote, relayed by another seat (its frame wrapped in that seat's `evidence`)
    wrap = {"frame": vote.frame}
    relay = seal(net.config, net.keys[RELAYER], RELAYER, 10_000, bytes(32), "evidence", wrap)
    relayed = [relay if e is vote else e for e in order]
    assert GONE in _foreseen(net.config, relayed), "a relayed vote counts as the vote itself"
    # a relay of a vote forged in the host's name does not
    key = net.keys[RELAYER]
    forged = seal(net.config, key, HOST, vote.seq, vote.prev, "vacate", dict(vote.data), vote.acks)
    fake = seal(net.config, key, RELAYER, 10_000, bytes(32), "evidence", {"frame": forged.frame})
    assert GONE not in _foreseen(net.config, [fake if e is vote else e for e in order])
    # nor does junk relayed in its place (read past, as the replay reads it)
    junk = seal(net.config, key, RELAYER, 10_000, bytes(32), "evidence", {"frame": b"\x92\xc4\x01x\x01"})
    assert GONE not in _foreseen(net.config, [junk if e is vote else e for e in order])
