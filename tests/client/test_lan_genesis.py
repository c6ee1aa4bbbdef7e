"""A split genesis (issue 12): seats holding different tables under one session id refuse each
other at the link, before any game frame, and nobody is blamed unless the host signed both.

Peers run in this process on loopback. Only the lower seat dials, so which side detects the split
first is fixed, and the tests wait on the peers' own end, not on a delay."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net import link as link_module
from client.net.link import Link, LinkError, accept
from client.net.mesh import sign_genesis
from client.table.join import JoinOptions, join
from client.table.peer import PeerRunner
from client.table.seat import LOBBY_TABLE, Peer, open_listener
from protocol.config import TableConfig
from skyjo_p2p.bots import make_bot

GAME = {"target_score": 30}
LIMIT = 30  # seconds: every test ends well within (a split stops at the handshake)


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(link_module, "HANDSHAKE_TIMEOUT", 4.0)


@pytest.fixture
def sent(monkeypatch) -> list[tuple[str, dict[str, Any]]]:
    """Every message any link of this process sends after its handshake, with its receiver."""
    log: list[tuple[str, dict[str, Any]]] = []
    original = Link.send

    def spy(self: Link, message: dict[str, Any]) -> bool:
        log.append((self.peer.name, message))
        return original(self, message)

    monkeypatch.setattr(Link, "send", spy)
    return log


def table(keys: list[Ed25519PrivateKey], names: list[str], session_id: bytes) -> TableConfig:
    return TableConfig(
        session_id=session_id,
        game="skyjo",
        players=len(keys),
        identities=tuple(k.public_key().public_bytes_raw() for k in keys),
        options=dict(GAME),
        names=tuple(names),
    )


async def run_seats(
    seats: list[tuple[TableConfig, int, Ed25519PrivateKey, bytes]],
    keys: list[Ed25519PrivateKey],
    until: Any = None,
) -> list[PeerRunner]:
    """Run one peer per (config, seat, key, host signature) on loopback until each has stopped,
    or until `until(runners)` is true (then cancel them). Seats not listed never run."""
    listeners = {seat: await open_listener("127.0.0.1") for _, seat, _, _ in seats}
    addresses = [
        ("127.0.0.1", listeners[s].socket.getsockname()[1] if s in listeners else 9) for s in range(len(keys))
    ]
    peers = [
        Peer(
            config,
            seat,
            key,
            listeners[seat],
            addresses,
            make_bot("greedy", "skyjo", secrets.token_hex(8)),
            save=False,
            genesis_signature=signature,
        )
        for config, seat, key, signature in seats
    ]
    runners = [peer.build() for peer in peers]
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            for peer in peers:
                nursery.start_soon(peer.play)
            if until is not None:
                while not until(runners):
                    await trio.sleep(0.05)
                nursery.cancel_scope.cancel()
    return runners


def frames(sent: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    return [(to, message) for to, message in sent if message["t"] == "frame"]


async def test_split_genesis_refused_at_the_link_and_nobody_blamed(caplog, sent):
    caplog.set_level(logging.INFO)
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    sid = secrets.token_bytes(32)
    ours, theirs = table(keys, ["anna", "bob"], sid), table(keys, ["anna", "bobby"], sid)
    assert ours.genesis_hash != theirs.genesis_hash

    first, second = await run_seats([(ours, 0, keys[0], b""), (theirs, 1, keys[1], b"")], keys)

    assert not frames(sent), "no game frame crossed the refused link"
    assert first.session.next_seq_of(1) == 0 and second.session.next_seq_of(0) == 0
    # seats as people count them, from 1
    for runner, other in ((first, "bob (seat 2)"), (second, "anna (seat 1)")):
        halted = runner.status.halted
        assert halted is not None and halted.startswith(
            f"{other} holds a different table than ours (genesis differs): the host gave us different tables"
        ), halted
        assert "nobody is blamed" in halted
        assert runner.status.blamed == [] and runner.session.blamed == []
        assert all(entry.kind != "blame" for entry in runner.log)
        assert all(state.status != "blamed" for state in runner.links.values())
        assert not runner.status.finished
    assert "refused the link to seat 1" in caplog.text and "refused the link to seat 0" in caplog.text
    assert "broken" not in caplog.text.lower()


async def test_same_genesis_links_fine(sent):
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    config = table(keys, ["anna", "bob"], secrets.token_bytes(32))
    signature = sign_genesis(keys[0], config)

    def linked(runners: list[PeerRunner]) -> bool:
        # linked, and a game frame has crossed each way: a link can be up a moment before its
        # first frame is taken, and how long that moment lasts is the scheduler's business (if
        # frames never cross, LIMIT ends the test as a failure)
        return all(
            r.status.started
            and r.links[1 - (r.seat or 0)].status == "connected"
            and r.session.next_seq_of(1 - (r.seat or 0)) > 0
            for r in runners
        )

    first, second = await run_seats(
        [(config, 0, keys[0], signature), (config, 1, keys[1], signature)], keys, until=linked
    )
    assert frames(sent), "game frames flow on a link between seats holding the same table"
    assert first.session.next_seq_of(1) > 0 and second.session.next_seq_of(0) > 0
    for runner in (first, second):
        assert runner.status.halted is None and runner.status.blamed == []


@pytest.mark.parametrize("forged", [False, True], ids=["signed-by-host", "forged-signature"])
async def test_split_genesis_signed_by_host_names_the_host(caplog, sent, forged):
    caplog.set_level(logging.INFO)
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]  # seat 0, the host, does not play
    sid = secrets.token_bytes(32)
    first = table(keys, ["anna", "bob", "carol"], sid)
    second = table(keys, ["anna", "bob", "caroline"], sid)
    # a forged second table: signed by seat 2 itself, not by the host
    signer = keys[2] if forged else keys[0]
    bob, carol = await run_seats(
        [
            (first, 1, keys[1], sign_genesis(keys[0], first)),
            (second, 2, keys[2], sign_genesis(signer, second)),
        ],
        keys,
    )

    assert not frames(sent)
    # seats as people count them, from 1
    for runner, other in ((bob, "carol (seat 3)"), (carol, "bob (seat 2)")):
        halted = runner.status.halted
        assert halted is not None and halted.startswith(
            f"{other} holds a different table than ours (genesis differs)"
        ), halted
        named = [blamed.seat for blamed in runner.status.blamed]
        if forged:
            assert named == [] and "nobody is blamed" in halted
            assert all(state.status != "blamed" for state in runner.links.values())
        else:
            assert named == [0], "the host, and only the host, is named"
            assert "signed by the host anna (seat 1): the host gave us different tables" in halted
            assert runner.links[0].status == "blamed"
            assert [s for s, state in runner.links.items() if state.status == "blamed"] == [0]
        assert runner.session.blamed == [], "the session itself blamed nobody"


@pytest.mark.parametrize("fault", ["signed-by-another-key", "host-not-seat-0"])
async def test_a_joiner_refuses_a_table_its_host_did_not_sign(fault):
    host_key, joiner_key, other_key = (Ed25519PrivateKey.generate() for _ in range(3))
    keys = [host_key, joiner_key] if fault == "signed-by-another-key" else [other_key, joiner_key]
    config = table(keys, ["anna", "bob"], secrets.token_bytes(32))
    signer = other_key if fault == "signed-by-another-key" else host_key
    lobby = await open_listener("127.0.0.1")

    async def fake_host(stream: trio.SocketStream) -> None:
        link, _ = await accept(
            stream,
            host_key,
            name="anna",
            table=LOBBY_TABLE,
            password=None,
            admit=lambda peer, hello: None,
            accepted=lambda peer, hello: {"seat": 1},
        )
        link.send(
            {
                "t": "start",
                "genesis": config.encode(),
                "gsig": sign_genesis(signer, config),
                "seat": 1,
                "addresses": [["127.0.0.1", 9], ["127.0.0.1", 9]],
            }
        )
        with trio.move_on_after(5):
            await link.writer()

    port = lobby.socket.getsockname()[1]
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, fake_host, [lobby])
            opts = JoinOptions(
                target=f"127.0.0.1:{port}", name="bob", headless="greedy", interface="127.0.0.1"
            )
            with pytest.raises(LinkError, match="not signed by the host we joined"):
                await join(opts, joiner_key, lambda line: None)
            nursery.cancel_scope.cancel()
