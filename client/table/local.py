"""A table on this machine: one person and N bots, each a real peer with its own keys.

`skyjo-lan play` uses it. The peers run the full protocol (keys, shuffle proofs, shares, signed
frames), joined by in-memory links instead of sockets: nothing listens and nothing is sent on any
network. The game is saved like any other and can be checked with `skyjo-lan verify`.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net.mesh import LinkState
from client.storage import TranscriptWriter
from protocol.config import TableConfig
from protocol.errors import MalformedMessage
from protocol.session import Session
from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.base import Bot
from skyjo_p2p.core.errors import OptionError

from .peer import PeerRunner
from .seat import autopilot_for


def _settings(turn: int, grace: int | None, players: int = 1) -> dict[str, Any]:
    """The genesis's table settings: the countdown and grace when set, and that seat 0's
    program runs every seat (so the saved game says which seats are bots: `skyjo-lan ranking`
    does not rank them). Not insured: the owners change nothing else (`TableConfig.owners`)."""
    settings: dict[str, Any] = {"turn": turn} if turn else {}
    if grace is not None:
        settings["grace"] = grace
    if players > 1:
        settings["owners"] = [0] * players
    return settings


class LocalTable:
    """Seat 0 (or none, with `watch=True`) is the person; the others are bots of `bot_level`."""

    def __init__(
        self,
        game: str,
        bots: int,
        bot_level: str = "greedy",
        options: dict[str, Any] | None = None,
        *,
        names: Sequence[str] | None = None,
        identity: Ed25519PrivateKey | None = None,
        save: bool = True,
        think_time: float = 0.4,
        human: bool = True,
        seed: str | None = None,
        turn: int = 0,
        grace: int | None = None,
    ) -> None:
        """`turn`: the person's move countdown in seconds (0, `play`'s choice: none); at zero
        their autopilot plays (`PeerRunner`). `grace`: the table's grace, when set."""
        players = bots + (1 if human else 0)
        keys = [identity or Ed25519PrivateKey.generate()] + [
            Ed25519PrivateKey.generate() for _ in range(players - 1)
        ]
        if not human:
            keys[0] = Ed25519PrivateKey.generate()
        # a name, never "you": the names are saved in the game, and a replay reads them as names
        default_names = (["player"] if human else []) + [f"bot {i + 1}" for i in range(bots)]
        try:
            self.config = TableConfig(
                session_id=secrets.token_bytes(32),
                game=game,
                players=players,
                identities=tuple(k.public_key().public_bytes_raw() for k in keys),
                options=dict(options or {}),
                names=tuple(names or default_names),
                table=_settings(turn, grace, players),
            )
        except MalformedMessage as exc:  # options the rules accept but no genesis carries (long text)
            raise OptionError(exc.reason) from None
        self.writer = TranscriptWriter(self.config) if save else None
        self.runners: list[PeerRunner] = []
        for seat in range(players):
            policy: Bot | None = None
            if seat > 0 or not human:
                policy = make_bot(bot_level, game, f"{seed or secrets.token_hex(8)}:{seat}")
            saving = seat == 0 and self.writer is not None
            record = self.writer if saving else None
            sync = self.writer.sync if saving and self.writer is not None else None  # round ends, the end
            session = Session(self.config, seat, keys[seat])
            autopilot = autopilot_for(self.config) if policy is None else None
            self.runners.append(
                PeerRunner(
                    session,
                    policy,
                    record=record,
                    sync=sync,
                    think_time=think_time if seat else 0.0,
                    autopilot=autopilot,
                )
            )
        for runner in self.runners:
            runner.links = {s: LinkState("local") for s in range(players) if s != runner.seat}

    @property
    def human(self) -> PeerRunner:
        return self.runners[0]

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run every peer until the game ends (or the caller cancels)."""

        def broadcaster(sender: int):  # type: ignore[no-untyped-def]
            async def broadcast(frame: bytes) -> None:
                for seat, runner in enumerate(self.runners):
                    if seat != sender:
                        runner.deliver(frame)

            return broadcast

        try:
            async with trio.open_nursery() as nursery:
                for seat, runner in enumerate(self.runners):
                    await nursery.start(runner.run, broadcaster(seat))
                task_status.started()
                while not all(r.status.finished or r.status.halted for r in self.runners):
                    await self.human.changed.wait()
                await trio.sleep(0.2)  # let the last round signatures settle
                for runner in self.runners:
                    runner.close()
        finally:
            if self.writer is not None:
                if self.runners:
                    self.runners[0].final_save()  # the last signatures came after the end's fsync
                self.writer.close()
