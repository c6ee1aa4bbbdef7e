"""Quotas on what one seat can make the others hold or send (floods), counted by one peer.

Why a module of its own: the counting is a small state machine of its own (windows reset by a
seat's game frames and round signatures) and its bounds are tuned together; the Session only
says what arrived and what it sent, and asks before relaying. Game frames ahead of the game are
bounded here too (issue 26): a seat's queued game messages (`MAX_QUEUED_BYTES`, the next one
parked) and the job a game frame may name (`check_job`, read from the signer's chain).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .chains import Chain
from .errors import Misbehaviour
from .messages import SIDE_KINDS, Envelope, peek_place

SIDE_WINDOW_FRAMES = 4096
SIDE_WINDOW_BYTES = 8 << 20
"""At most this many side frames (and bytes) from one seat between two of its game frames: an
honest peer sends far fewer (an echo per received game frame, some relays). Counted on the
seat's own chain, so every peer finds the same crossing: the seat is blamed with that frame."""
ROUND_SIDE_FRAMES = 20_000
ROUND_SIDE_BYTES = 8 << 20
"""At most this many side frames (and bytes) from one seat between two of its round signatures:
the windows above bound a burst, these bound a whole round (an honest peer sends an echo per game
frame of the others, a few hundred a round, and relays within `RELAY_ROUND_FRAMES`)."""
RELAY_WINDOW_FRAMES = SIDE_WINDOW_FRAMES // 4
RELAY_WINDOW_BYTES = SIDE_WINDOW_BYTES // 4
RELAY_ROUND_FRAMES = ROUND_SIDE_FRAMES // 5
RELAY_ROUND_BYTES = ROUND_SIDE_BYTES // 2
"""Relays (`evidence` frames: evidence, answers to `want`) this peer sends between two of its game
frames (1,024 frames, 2 MiB) and in a round (4,000 frames, 4 MiB): below every quota the others
apply to it, in every unit they count, whatever it is asked (lying echoes open disputes whose
relays the liar can lie about again; wants ask for the answers to wants). The rest of each quota
is for its other side frames (echoes, wants, halts, chat, votes)."""
FREE_RELAY_FRAMES = 8192
FREE_RELAY_BYTES = 8 << 20
"""At most this many relays (and bytes) of a seat after its own halt that blames a culprit are
free of its quotas (`Quotas._free`): the culprit's chain a peer behind a gap needs to check the
verdict (an honest chain of a round is far shorter), and no more, even with a culprit that signs
frame after frame for a relayer in league with it to pass on."""
OWN_SHARE = (3, 4)
"""Frames this peer may choose not to send (relays, wants, stand-alone echoes: the others get
the same from another frame, or a dispute's timer decides) are sent only while its own side
frames stay within this share of every quota (3/4): a margin for those it must send (halts, a
leave, votes, complaints)."""
MAX_QUEUED_BYTES = 4 << 20
"""Bytes of one seat's game messages queued (accepted in its chain, not consumed yet) at a peer.
The next game frame that would pass it is *parked*: it takes its place in the chain when the
queue has room again (an empty queue always has room for a frame), and the frames after it wait
ahead of it. Nobody is blamed (how far a peer got depends on its links); an honest seat has a
message or two queued (its messages for the jobs that peer has not reached)."""
JOB_LEAD = 64
"""Margin on the last job a seat's game frame may name (see `check_job`)."""
MAX_CHAT = 1000
"""Chat messages one seat may send in a game."""


def job_of(envelope: Envelope) -> int:
    """The job a game frame (or the frame a complaint is about) belongs to: its `job` field; the
    key agreement's frames (`keycommit`, `key`, `escrow`) carry none and are job 1, the first."""
    job = envelope.data.get("job")
    return job if isinstance(job, int) else 1


class Quotas:
    """The side frames each other seat sent since its last game frame and its last round signature
    (a crossing blames it), and ours, counted the same way (we never cross our own quotas)."""

    def __init__(self, players: int, me: int | None) -> None:
        self.me = me
        self.side_count = [0] * players
        self.side_bytes = [0] * players
        self.round_side_count = [0] * players
        self.round_side_bytes = [0] * players
        self.chat_count = [0] * players
        self.relayed_window = [0, 0]
        """Relays (frames, bytes) we sent since our last game frame."""
        self.relayed_round = [0, 0]
        """Relays (frames, bytes) we sent since our last round signature."""
        self.told = False
        """We said that our relay budget is spent (once per window)."""
        self.queued_bytes = [0] * players
        """Bytes of each seat's game messages in its queue (an upper bound: see `may_queue`)."""
        self.last_job = [0] * players
        """The highest job number of each seat's game frames in its chain so far (the keys' own
        frames carry none: they are job 1)."""
        self.verdict: list[int | None] = [None] * players
        """The seat each seat's own signed halt blamed (None: no such halt in its chain yet)."""
        self.freed: list[set[int]] = [set() for _ in range(players)]
        """The frames of its culprit each seat relayed after that halt, free of its quotas."""
        self.freed_bytes = [0] * players
        """The bytes of those relays (see FREE_RELAY_BYTES)."""

    def game_frame(self, envelope: Envelope) -> None:
        """A game frame of a seat took its place in the chain: its side windows start again."""
        seat = envelope.seat
        job = envelope.data.get("job")  # (`job_of`, inlined: read at every game frame)
        if not isinstance(job, int):
            job = 1
        if job > self.last_job[seat]:
            self.last_job[seat] = job
        self.side_count[seat] = self.side_bytes[seat] = 0
        if envelope.kind == "roundsig":
            self.round_side_count[seat] = self.round_side_bytes[seat] = 0
        if seat == self.me:
            self.relayed_window = [0, 0]
            self.told = False
            if envelope.kind == "roundsig":
                self.relayed_round = [0, 0]

    def side_frame(self, envelope: Envelope) -> None:
        """Count another seat's side frame (see SIDE_WINDOW_FRAMES); `Misbehaviour` past a quota."""
        seat = envelope.seat
        if seat == self.me:  # ours, read back from our saved file
            self.sent(envelope)
            return
        if self._free(envelope):
            return
        self._count(seat, len(envelope.frame))
        if self.round_side_count[seat] > ROUND_SIDE_FRAMES or self.round_side_bytes[seat] > ROUND_SIDE_BYTES:
            raise Misbehaviour(
                seat,
                f"sent more than {ROUND_SIDE_FRAMES} side messages or {ROUND_SIDE_BYTES >> 20} MiB "
                "in one round (flood)",
                (envelope.frame,),
            )
        if envelope.kind == "chat":
            self.chat_count[seat] += 1
            if self.chat_count[seat] > MAX_CHAT:
                raise Misbehaviour(
                    seat, f"sent more than {MAX_CHAT} chat messages (flood)", (envelope.frame,)
                )
        if self.side_count[seat] > SIDE_WINDOW_FRAMES or self.side_bytes[seat] > SIDE_WINDOW_BYTES:
            raise Misbehaviour(
                seat,
                f"sent more than {SIDE_WINDOW_FRAMES} side messages or {SIDE_WINDOW_BYTES >> 20} MiB "
                "between two of its game messages (flood)",
                (envelope.frame,),
            )

    def _count(self, seat: int, size: int) -> None:
        self.side_count[seat] += 1
        self.side_bytes[seat] += size
        self.round_side_count[seat] += 1
        self.round_side_bytes[seat] += size

    def sent(self, envelope: Envelope) -> None:
        """We sent a frame: side frames count as the others count them (relays against our relay
        budget too), a game frame starts our window again (a round signature, our round)."""
        me, size = envelope.seat, len(envelope.frame)
        if envelope.kind in SIDE_KINDS:
            if self._free(envelope):
                return
            self._count(me, size)
            if envelope.kind == "evidence":
                self.spend_relay_budget(size)
            return
        self.game_frame(envelope)

    def _free(self, envelope: Envelope) -> bool:
        """Whether a side frame is free of its signer's quotas (it is then counted as such).

        After a seat's own `halt` that blames a culprit, its `evidence` frames that carry a frame
        of that culprit's chain are free, each frame once: what the others need to check the
        verdict themselves (the chain up to the proof, which they may lack behind a gap the
        culprit made) can always reach them, however many frames that is, since no game frame
        opens a new window after a stop (PROTOCOL.md 9, "Quotas"). At most the culprit's chain,
        once per relayer, within FREE_RELAY_FRAMES and FREE_RELAY_BYTES. Read from the signer's
        chain alone, so every peer and `verify` count alike."""
        seat = envelope.seat
        if envelope.kind == "halt":
            culprit = envelope.data.get("culprit") or []
            if culprit and self.verdict[seat] is None:
                self.verdict[seat] = culprit[0]
            return False
        culprit = self.verdict[seat]
        if envelope.kind != "evidence" or culprit is None:
            return False
        place = peek_place(envelope.data["frame"])
        if place is None or place[0] != culprit or place[1] in self.freed[seat]:
            return False
        size = len(envelope.frame)
        if len(self.freed[seat]) >= FREE_RELAY_FRAMES or self.freed_bytes[seat] + size > FREE_RELAY_BYTES:
            return False
        self.freed[seat].add(place[1])
        self.freed_bytes[seat] += size
        return True

    def free_relay(self, seat: int, seq: int, size: int) -> bool:
        """Whether our relay of frame `seq` of `seat` (`size` bytes) would be free (see `_free`)."""
        me = self.me
        return (
            me is not None
            and self.verdict[me] == seat
            and seq not in self.freed[me]
            and len(self.freed[me]) < FREE_RELAY_FRAMES
            and self.freed_bytes[me] + size + 64 <= FREE_RELAY_BYTES
        )

    def may_send(self, size: int) -> bool:
        """Whether a frame we may choose not to send (see OWN_SHARE) keeps our own side frames
        within our share of the quotas; an observer sends nothing."""
        me = self.me
        if me is None:
            return False
        num, den = OWN_SHARE
        return (
            (self.side_count[me] + 1) * den <= SIDE_WINDOW_FRAMES * num
            and (self.side_bytes[me] + size) * den <= SIDE_WINDOW_BYTES * num
            and (self.round_side_count[me] + 1) * den <= ROUND_SIDE_FRAMES * num
            and (self.round_side_bytes[me] + size) * den <= ROUND_SIDE_BYTES * num
        )

    def may_relay(self, size: int) -> bool:
        """Within our relay budget (RELAY_*) and our share of the quotas: we never cross them."""
        return self.within_relay_budget(size) and self.may_send(size + 64)  # the evidence frame wraps it

    def within_relay_budget(self, size: int) -> bool:
        """Whether `size` more bytes relayed (or one of our own frames sent again in answer to a
        `want`, which is no side frame and counts nowhere else) stay within RELAY_*."""
        window, round_ = self.relayed_window, self.relayed_round
        return (
            window[0] < RELAY_WINDOW_FRAMES
            and window[1] + size <= RELAY_WINDOW_BYTES
            and round_[0] < RELAY_ROUND_FRAMES
            and round_[1] + size <= RELAY_ROUND_BYTES
        )

    def spend_relay_budget(self, size: int) -> None:
        """One frame of `size` bytes relayed, or of ours sent again: it spends the relay budget."""
        for spent in (self.relayed_window, self.relayed_round):
            spent[0] += 1
            spent[1] += size

    def relay_refused(self) -> str | None:
        """Why a relay was not sent, the first time in a window (a local report); None after."""
        if self.told:
            return None
        self.told = True
        return (
            f"our relay budget is spent ({RELAY_WINDOW_FRAMES} frames or {RELAY_WINDOW_BYTES >> 20} MiB "
            f"between two of our game messages, {RELAY_ROUND_FRAMES} or {RELAY_ROUND_BYTES >> 20} MiB "
            "in a round): frames not relayed, so we never cross the others' quotas"
        )

    # --- game frames ahead of the game --------------------------------------------------------

    def queued(self, envelope: Envelope) -> None:
        """A game frame of another seat joined its queue."""
        if envelope.seat != self.me:
            self.queued_bytes[envelope.seat] += len(envelope.frame)

    def dequeued(self, envelope: Envelope) -> None:
        """A game frame left its queue (consumed)."""
        seat = envelope.seat
        self.queued_bytes[seat] = max(0, self.queued_bytes[seat] - len(envelope.frame))

    def may_queue(self, envelope: Envelope, queue: Iterable[Envelope]) -> bool:
        """Whether another seat's game frame may join its `queue` now (see MAX_QUEUED_BYTES).
        The count is recounted from the queue when it would say no (frames may leave a queue
        otherwise than consumed: a seat the table plays)."""
        seat, size = envelope.seat, len(envelope.frame)
        if seat == self.me or self.queued_bytes[seat] + size <= MAX_QUEUED_BYTES:
            return True
        self.queued_bytes[seat] = sum(len(e.frame) for e in queue)
        return self.queued_bytes[seat] + size <= MAX_QUEUED_BYTES

    def park(
        self, envelope: Envelope, chain: Chain, acked: Mapping[int, int], queue: Iterable[Envelope]
    ) -> str | None:
        """Before a frame takes its place in its chain: if it is another seat's game frame, check
        its job (`check_job`), and park it if its queue has no room (`may_queue`): then why, for a
        local report (None: it takes its place)."""
        if envelope.kind in SIDE_KINDS or envelope.seat == self.me or envelope.prev != chain.last_digest:
            return None  # (a broken chain is blamed when the frame is appended)
        job = envelope.data.get("job")
        if isinstance(job, int) and job > 1 + 2 * envelope.seq + JOB_LEAD:  # (`check_job`'s first test)
            self.check_job(envelope, acked)
        if self.queued_bytes[envelope.seat] + len(envelope.frame) <= MAX_QUEUED_BYTES:
            return None  # (`may_queue`'s first test: read at every game frame)
        if self.may_queue(envelope, queue):
            return None
        chain.parked = envelope
        return f"seat {envelope.seat + 1}'s game messages fill its queue: its frame #{envelope.seq} waits"

    def unpark(self, chain: Chain, queue: Iterable[Envelope]) -> bool:
        """Whether the chain's parked frame may now take its place (it is then no longer parked)."""
        parked = chain.parked
        if parked is None or not self.may_queue(parked, queue):
            return False
        chain.parked = None
        return True

    def check_job(self, envelope: Envelope, acked: Mapping[int, int]) -> None:
        """`Misbehaviour` of a game frame's signer if its job cannot exist yet.

        Jobs are numbered 1, 2, ... in the order every peer runs them, and each consumes at
        least one game message, but a move of a seat the table plays. A seat makes its message
        for job m only once it has consumed the messages of jobs 1 .. m-1, so of frames it held:
        its own before this one (`seq` of them) and, of each other seat s, frames up to the last
        one its chain acknowledged (`acked[s]`, this frame's acknowledgements included). So
        m - 1 <= seq + sum(acked[s] + 1) + the moves of seats the table plays; twice that sum
        (such a move comes between messages) plus JOB_LEAD bounds m for any honest seat.
        Decided from the seat's own chain alone (its acknowledgements and this frame): every peer
        and `verify` reach the same verdict, whatever their links.
        """
        job = envelope.data.get("job")
        if not isinstance(job, int):
            return
        if job <= 1 + 2 * envelope.seq + JOB_LEAD:
            return  # (the count below is at least `seq`: every term after it is positive)
        signer = envelope.seat
        held = envelope.seq + sum(acked.values()) + len(acked)
        own = acked.get(signer)
        if own is not None:  # (a chain never acknowledges its own seat: not counted if it did)
            held -= own + 1
        for seat, seq, _ in envelope.acks:
            before = acked.get(seat, -1)
            if seq > before and seat != signer:
                held += seq - before
        if job > 1 + 2 * held + JOB_LEAD:
            raise Misbehaviour(
                envelope.seat,
                f"sent {envelope.kind} for job {job}, a job that cannot exist yet (its chain holds "
                f"{held} frames: at most job {1 + 2 * held + JOB_LEAD})",
                (envelope.frame,),
            )
