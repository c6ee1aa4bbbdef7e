"""The ballots of seat insurance (PROTOCOL.md 10.9): votes and answers in, decisions out.

`Ballots` is the state table of PROTOCOL.md 10.9 for each program's current attempt, with no I/O
and no session: the caller (`protocol.insurance.SeatInsurance`) says which frames count and which
seats left. Every peer that holds the same votes and answers reaches the same decision, whatever
order they came in, because only the first vote and the first answer of each voter count:

| state | on | next |
|---|---|---|
| open (no vote) | a vote of this attempt | voting |
| voting | every required vote held | counted (max rule) |
| voting, counted | a withdrawal by a voter | open, attempt + 1 (freezes lifted) |
| counted | every required voter upheld | decided: the table plays the seats |
| decided | every seat of the program back (`return` witnessed) | open, attempt + 1 |
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import takeover
from .config import TableConfig
from .errors import Misbehaviour
from .messages import Envelope

Held = takeover.Held
"""seat -> (how many of its frames a voter holds, the digest of the last)."""


def attempt_timer(name: str) -> tuple[int, int] | None:
    """(owner, attempt) of a timer named `<kind>:<owner>:<attempt>` (a vote's `vacate:` or a
    removal's `remove:`), None for any other name."""
    parts = name.split(":")
    if len(parts) != 3 or not (parts[1].isdigit() and parts[2].isdigit()):
        return None
    return int(parts[1]), int(parts[2])


AHEAD = 8
"""A vote or answer may name an attempt at most this far beyond the receiver's current one (a
voter can be a few attempts ahead of a peer still catching up; further is no honest peer's)."""

Counts = Callable[[int, int], bool]
"""(seat, seq) -> whether that frame of the seat counts (the table did not play the seat then)."""


@dataclass
class Attempt:
    """One program's current attempt: the votes and answers of its number."""

    number: int
    votes: dict[int, Held] = field(default_factory=dict)
    """voter -> what it held (its first vote of this attempt)."""
    vote_seqs: dict[int, int] = field(default_factory=dict)
    """voter -> the sequence number of that vote in its chain."""
    answers: dict[int, tuple[str, int]] = field(default_factory=dict)
    """voter -> its first answer ("uphold" or "withdraw") and its sequence number."""
    decided: Held | None = None
    """The frames that count of each seat of the program, once every required voter upheld."""
    lifted: bool = False
    """(the voted program's own peer) twice the grace passed since the first vote without a
    decision: the attempt no longer holds its jobs back (a vote nobody withdraws cannot stall it)."""
    heard: int = 0
    """(the voted program's own peer) the first sequence number of ours signed after the latest
    vote of this attempt reached us: such a frame acknowledges the vote (it is there)."""
    marks: dict[int, int] = field(default_factory=dict)
    """(our own vote) seat -> how many frames of it we had received when we voted: a voter whose
    count has not moved since is silent, not merely of another opinion."""
    retries: int = 0
    held_ahead: dict[int, frozenset[int]] = field(default_factory=dict)
    """(our own vote) seat of the program -> the sequence numbers of its frames we held ahead of a
    gap when we voted: received before our whole wait, so signed before the votes (they refute
    nothing, `SeatInsurance._refuted`)."""


class Ballots:
    """The votes and answers of each program's current attempt, and the table's decisions.

    Pure bookkeeping: the caller says which frames count (`Counts`) and which seats left."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.attempts: dict[int, Attempt] = {}
        """owner -> its current attempt (open, counted or decided)."""

    def attempt(self, owner: int) -> Attempt:
        found = self.attempts.get(owner)
        if found is None:
            found = self.attempts[owner] = Attempt(0)
        return found

    def seats_of(self, owner: int) -> list[int]:
        owners = self.config.owners
        return [s for s in range(self.config.players) if owners[s] == owner]

    def required(self, owner: int, left: set[int]) -> list[int]:
        """The seats whose vote (and answer) a decision about `owner` needs: every seat of every
        other program, but those that left with their key share (they are the table's)."""
        owners = self.config.owners
        return [s for s in range(self.config.players) if owners[s] != owner and s not in left]

    def decided(self, owner: int) -> bool:
        found = self.attempts.get(owner)
        return found is not None and found.decided is not None

    def check(self, envelope: Envelope) -> tuple[int, int, Held | None]:
        """A vote's or an answer's program, attempt and (a vote's) holdings; `Misbehaviour` of
        its signer for one no honest peer sends."""
        voter, owner, number = envelope.seat, envelope.data["owner"], envelope.data["attempt"]
        owners = self.config.owners
        fault = None
        if not self.config.insured:
            fault = "asked the table to play a seat, but the table is not insured"
        elif owner >= self.config.players or owners[owner] != owner:
            fault = f"asked the table to play program {owner + 1}, which runs no seat of its own"
        elif owners[voter] == owner:
            fault = "asked the table to play its own program's seats"
        elif number > self.attempt(owner).number + AHEAD:
            fault = f"voted in attempt {number}, far beyond the table's ({self.attempt(owner).number})"
        held: Held | None = None
        if fault is None and envelope.kind == "vacate":
            held = {}
            for seat, count, digest in envelope.data["held"]:
                held[seat] = (count, digest)
            if sorted(held) != self.seats_of(owner) or len(held) != len(envelope.data["held"]):
                fault = "a vote that does not list exactly the program's seats"
        if fault is not None:
            raise Misbehaviour(voter, fault, (envelope.frame,))
        return owner, number, held

    def place(self, owner: int, number: int) -> str:
        """ "now" (the current attempt), "later" (one that opens here later) or "stale"."""
        current = self.attempt(owner).number
        return "now" if number == current else "later" if number > current else "stale"

    def vote(self, voter: int, owner: int, held: Held, seq: int) -> bool:
        """Record a vote of the current attempt (the first of each voter); True if new."""
        attempt = self.attempt(owner)
        if voter in attempt.votes or attempt.decided is not None:
            return False
        attempt.votes[voter] = held
        attempt.vote_seqs[voter] = seq
        return True

    def answer(self, voter: int, owner: int, kind: str, seq: int) -> bool:
        """Record an answer of the current attempt (the first of each voter, and only a voter's:
        an answer without a vote before it is no answer); True if new."""
        attempt = self.attempt(owner)
        if voter in attempt.answers or voter not in attempt.votes or attempt.decided is not None:
            return False
        attempt.answers[voter] = (kind, seq)
        return True

    def discount(self, owner: int, counts: Counts) -> list[int]:
        """Forget the votes and answers of the current attempt that no longer count (their
        signer's seat turned out to be played by the table when it signed them); their voters."""
        attempt = self.attempt(owner)
        if attempt.decided is not None:
            return []
        gone = [v for v, seq in attempt.vote_seqs.items() if not counts(v, seq)]
        gone += [v for v, (_, seq) in attempt.answers.items() if not counts(v, seq) and v not in gone]
        for voter in gone:
            attempt.votes.pop(voter, None)
            attempt.vote_seqs.pop(voter, None)
            attempt.answers.pop(voter, None)
        return gone

    def counted(self, owner: int, left: set[int]) -> Held | None:
        """The frames that count of each seat (the most any voter held; the first voter in seat
        order with that count gives the digest), once every required vote is held."""
        attempt = self.attempt(owner)
        if attempt.decided is not None:
            return attempt.decided
        required = self.required(owner, left)
        if not required or any(s not in attempt.votes for s in required):
            return None
        return {
            seat: max((attempt.votes[s][seat] for s in required), key=lambda held: held[0])
            for seat in self.seats_of(owner)
        }

    def withdrawn(self, owner: int) -> bool:
        return any(kind == "withdraw" for kind, _ in self.attempt(owner).answers.values())

    def decide(self, owner: int, left: set[int]) -> Held | None:
        """The decision, once every required voter upheld (None until then, or for ever if one
        withdrew: the attempt is over)."""
        attempt = self.attempt(owner)
        if attempt.decided is not None:
            return None
        counted = self.counted(owner, left)
        if counted is None or self.withdrawn(owner):
            return None
        if any(attempt.answers.get(s, ("", 0))[0] != "uphold" for s in self.required(owner, left)):
            return None
        attempt.decided = counted
        return counted

    def close(self, owner: int) -> None:
        """The attempt is over (withdrawn, or its seats are back): the next one opens."""
        self.attempts[owner] = Attempt(self.attempt(owner).number + 1)


__all__ = ["AHEAD", "Attempt", "Ballots", "Counts", "Held"]
