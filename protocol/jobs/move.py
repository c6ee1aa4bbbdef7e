"""The move job: the move of the lowest seat the engine lets decide."""

from __future__ import annotations

from skyjo_p2p.core.errors import IllegalMove, MalformedMove
from skyjo_p2p.core.events import Event, RevealRequest
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply

from ..errors import Misbehaviour
from .base import Blocked, Job, JobContext, Unattributable
from .reveals import RevealsJob


class MoveJob(Job):
    """The move of `seat`, the lowest seat the engine lets decide now."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.disclosure: RevealsJob | None = None
        """For a seat the table plays: its private cards made public first, so that the common
        bot chooses from public information only (`protocol.takeover`)."""
        self.waits: Blocked | None = None
        """What the job waits for (the same until it is done: `blocked`)."""
        self.applied: tuple[TableState, Move, TableState, list[Event]] | None = None
        """Our own move as our engine applied it before we sent it: (the state it was applied
        to, the move, the new state, the events); consuming our frame takes them again."""

    def run(self, ctx: JobContext) -> bool:
        seat = self.seat
        # `acting` is our seat or None: only our own move asks it (`stands_in` may change it)
        if (
            self.disclosure is None
            and (ctx.me != seat or seat != ctx.acting)
            and not ctx.has_queued(seat)
            and ctx.stands_in(seat, boundary=True)
        ):
            requests = tuple(RevealRequest(h, None) for h in ctx.undisclosed(seat))
            self.disclosure = RevealsJob(requests, disclose=True)
            self.disclosure.begin(ctx, self.number)
        if self.disclosure is not None:
            if not self.disclosure.run(ctx):
                return False
            return self._common_bot_move(ctx)
        if ctx.me == seat and seat == ctx.acting and not ctx.has_queued(seat):
            move = ctx.take_submitted()
            if move is None:
                ctx.your_move()
                return False
            assert ctx.state is not None
            try:
                after, facts = apply(ctx.state, move)
            except IllegalMove as exc:
                ctx.refuse_submitted(exc.reason)
                ctx.your_move()
                return False
            self.applied = (ctx.state, move, after, facts)
            ctx.emit("move", {"job": self.number, "move": move.to_dict()})
        envelope = ctx.head(seat, "move", self.number)
        if envelope is None:
            return False
        try:
            move = Move.from_dict(envelope.data["move"], ctx.move_schema)
        except MalformedMove as exc:
            raise Misbehaviour(seat, f"malformed move: {exc.reason}", (envelope.frame,)) from None
        if move.seat != seat:
            raise Misbehaviour(seat, f"sent a move for seat {move.seat + 1}", (envelope.frame,))
        assert ctx.state is not None
        applied, self.applied = self.applied, None
        if applied is not None and applied[0] is ctx.state and applied[1] == move:
            state, events = applied[2], applied[3]  # (the engine is a function of its inputs)
        else:
            try:
                state, events = apply(ctx.state, move)
            except IllegalMove as exc:
                raise Misbehaviour(
                    seat, f"illegal move {move.to_dict()}: {exc.reason}", (envelope.frame,)
                ) from None
        ctx.consume(envelope)
        ctx.state = state
        ctx.after_engine(events)
        return True

    def _common_bot_move(self, ctx: JobContext) -> bool:
        assert ctx.state is not None
        move = ctx.stand_in_move(self.seat)
        try:
            state, events = apply(ctx.state, move)
        except IllegalMove as exc:  # the same bot on the same public state: a defect, not a cheat
            raise Unattributable(f"the common bot chose an illegal move: {exc.reason}") from None
        ctx.state = state
        ctx.after_engine(events)
        return True

    def blocked(self, ctx: JobContext) -> Blocked:
        if self.disclosure is not None:
            return self.disclosure.blocked(ctx)
        if self.waits is None:  # (asked after every frame that arrives meanwhile)
            self.waits = Blocked(f"job:{self.number}:move:{self.seat}", (self.seat,), False)
        return self.waits
