"""A joiner reads the peers' addresses from the host's start message: junk is a clear refusal."""

from __future__ import annotations

import pytest

from client.net.link import LinkError
from client.table.join import _addresses


def test_well_formed_addresses_are_taken() -> None:
    assert _addresses([["10.0.0.2", 4000], ("fe80::1%eth0", 65535)]) == [
        ("10.0.0.2", 4000),
        ("fe80::1%eth0", 65535),
    ]


@pytest.mark.parametrize(
    "raw",
    [
        [["10.0.0.2"]],
        [["10.0.0.2", "x"]],
        [[4, 4000]],
        [["", 4000]],
        [["h", 0]],
        [["h", 70000]],
        [["h", True]],
        ["h"],
    ],
)
def test_malformed_addresses_are_refused_with_a_link_error(raw: list[object]) -> None:
    with pytest.raises(LinkError, match="malformed list of peer addresses"):
        _addresses(raw)


def test_each_joiner_learns_every_seat_where_it_can_reach_it() -> None:
    from client.table.host import seat_addresses

    joiners = [("10.0.0.7", 5001), ("127.0.0.1", 5002)]  # the second joiner runs on the host's machine
    # a joiner on the LAN reaches the host's machine (and so that local joiner) at 10.0.0.2
    assert seat_addresses("10.0.0.2", 5000, joiners, [5003]) == [
        ("10.0.0.2", 5000),
        ("10.0.0.7", 5001),
        ("10.0.0.2", 5002),
        ("10.0.0.2", 5003),
    ]
    # the local joiner itself reached the host on loopback: loopback stays right for it
    assert seat_addresses("127.0.0.1", 5000, joiners, []) == [
        ("127.0.0.1", 5000),
        ("10.0.0.7", 5001),
        ("127.0.0.1", 5002),
    ]
