"""A joiner reads the peers' addresses from the host's start message: junk is a clear refusal."""

from __future__ import annotations

import pytest

from client.link import LinkError
from client.netgame import _addresses


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
