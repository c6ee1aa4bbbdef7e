"""A program cut off for long, whose seat the table played, comes back with `--resume` (CI run 45).

What CI saw on real programs (tests/client/test_lan_issue25_resume.py): p3's link was cut, the
table voted, played p3's seat and rebuilt its decryption shares from the escrow (the holders'
`partials`). Alone, p3's program played on: it had every share of the last reveal, so it made its
own moves, which the table never counted. It stopped itself as cut off, and was started again with
`--resume`. Its session, rebuilt from its file, replays that file to its end before a vote about it
holds its jobs (`SeatInsurance._catching_up`: the file is one consistent game). But its links came
up one at a time: the host's frames (its vote about p3, its uphold, then the table's game) arrived
before p2's vote could count, and the host's acknowledgement of p3's own old vote ended that vote.
Still catching up, p3's jobs took the host's next message, of the table's game and not of the one
its file replays, and p3 named the honest host a cheat: "sent partials for job 42 when shares for
job 45 was due". The table then blamed p3 for a halt that proved nothing.

Now a catching-up session takes another seat's messages only as far as its file held them; the
first one that came since the restore ends the catching up, and the open vote holds every job,
as for a session that never stopped (`SeatInsurance.holds`), until the table's decision comes
(p3's moves beyond its count are void: `Rewound`, and the session is rebuilt) or the vote ends.

These are runs of the adversary model (`tests.protocol.model`, behaviour "cutresume") with that
plan scripted: p3 (seat 1 here) cut off from its next move on, playing as the table's bot would
not, resumed a few seconds after the cut ends, its link to seat 2 up 60 s after the others.
"""

from __future__ import annotations

import pytest

from protocol.events import Blamed, Rewound, SeatTakenOver
from tests.protocol.model import Deviation, Model

CUT_OFF, LATE = 1, 2


@pytest.mark.parametrize(
    ("seed", "start", "end", "delay"),
    [
        # (old code: seat 1 named seat 0, "sent partials for job 96 when shares for job 99 was due")
        (124, 43.71678521054683, 689.7308529273862, 9.864711549361553),
        # (old code: "sent shares for job 63 when shares for job 62 was due")
        (102, 23.539309403292535, 748.9007666569887, 4.834927967468117),
    ],
)
def test_a_program_resumed_after_the_table_played_its_seat_blames_nobody(
    seed: int, start: float, end: float, delay: float
) -> None:
    cut = Deviation("cutresume", (LATE,), start, end, trigger="move", delay=delay, consistent=True, count=60)
    model = Model(
        seed,
        game="skyjo",
        players=3,
        options={"target_score": 30, "setup_reveals": 2},
        deviations=[cut],
        insured=True,
        adversary=CUT_OFF,
    )
    run = model.run()
    findings = run.findings()
    assert not findings, "\n".join(findings)
    # the run is the one described: the table played the seat, and the resumed program learnt
    # that its moves beyond the table's count were void (rebuilt, it went on from the table's game)
    assert any(isinstance(e, SeatTakenOver) and e.seat == CUT_OFF for _, e in run.events[0])
    assert any(isinstance(e, Rewound) for _, e in run.events[CUT_OFF])
    assert not any(isinstance(e, Blamed) for seat in range(3) for _, e in run.events[seat])
    assert all(run.outcome(seat) == ("finished", None) for seat in range(3))
