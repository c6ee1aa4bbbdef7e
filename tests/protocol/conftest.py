"""Fixtures of the protocol tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol.crypto import group


@pytest.fixture(params=[True, False], ids=["compiled", "pure-python"])
def backend(request: pytest.FixtureRequest) -> Iterator[bool]:
    """The test runs with the compiled extension, then with the pure-Python path."""
    if request.param and group._msm_module is None:
        pytest.skip("the C extension is not built here")
    was = group.use_extension(request.param)
    yield request.param
    group.use_extension(was)
