"""TEST ONLY: turns the process that loads it into a cheater (issue 17, point 5: a peer that sends
a wrong reconstruction share is blamed with evidence).

Loaded only by `tests/client/test_lan_takeover.py`, which puts this folder first on PYTHONPATH
of the cheating process alone (Python imports `sitecustomize` at startup), and only acts when
SKYJO_LAN_TEST_TAMPER=partials is set too: nothing in the product reads that variable or
imports this module. The cheat: the first partial decryption this process sends for a vanished
seat's cards gets G added (E_1 + G), its batch proof left as made, so the frame is signed but wrong.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

if os.environ.get("SKYJO_LAN_TEST_TAMPER") == "partials":
    import protocol.crypto as _crypto
    from protocol.crypto import group as _group

    _honest = _crypto.make_partials
    _done: list[bool] = []

    def _tampered(*args: Any, **kwargs: Any) -> Any:
        batch = _honest(*args, **kwargs)
        if _done:
            return batch
        _done.append(True)
        first = _group.add(batch.shares[0], _group.mul_base(1))
        sys.stderr.write("TAMPER: G added to the first partial\n")
        return dataclasses.replace(batch, shares=(first, *batch.shares[1:]))

    _crypto.make_partials = _tampered  # type: ignore[assignment]
