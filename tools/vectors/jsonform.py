"""How the vectors are written as JSON, and compared.

Byte strings are lowercase hex; scalars are their 32-byte little-endian wire encoding in hex; in
msgpack data trees and hash inputs a byte string is written {"bin": "<hex>"} so that it cannot be
confused with text. protocol/PROTOCOL.md explains every field.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from protocol.crypto.elgamal import Ciphertext
from protocol.crypto.group import L, encode_scalar
from protocol.messages import Envelope

# --- JSON helpers --------------------------------------------------------------------------------


def hx(data: bytes) -> str:
    return bytes(data).hex()


def sc(k: int) -> str:
    return encode_scalar(k % L).hex()


def tree(obj: Any) -> Any:
    """A msgpack value or hash input as JSON: bytes become {"bin": hex}."""
    if isinstance(obj, bytes | bytearray):
        return {"bin": bytes(obj).hex()}
    if isinstance(obj, dict):
        return {str(k): tree(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [tree(v) for v in obj]
    return obj


def untree(obj: Any) -> Any:
    """Inverse of `tree` (JSON lists become lists)."""
    if isinstance(obj, dict):
        if set(obj) == {"bin"}:
            return bytes.fromhex(obj["bin"])
        return {k: untree(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [untree(v) for v in obj]
    return obj


def deck_json(deck: Sequence[Ciphertext]) -> list[list[str]]:
    return [[hx(c.c1), hx(c.c2)] for c in deck]


def frame_json(envelope: Envelope, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "seat": envelope.seat,
        "seq": envelope.seq,
        "prev": hx(envelope.prev),
        "kind": envelope.kind,
        "acks": [[s, q, hx(d)] for s, q, d in envelope.acks],
        "data": tree(data),
        "body": hx(envelope.body),
        "body_digest": hx(envelope.digest),
        "signature": hx(envelope.frame[-64:]),
        "frame": hx(envelope.frame),
        "length_prefix": hx(len(envelope.frame).to_bytes(4, "big")),
    }


def plain_wire(obj: Any) -> Any:
    """Wire objects as msgpack will see them: tuples become lists."""
    if isinstance(obj, list | tuple):
        return [plain_wire(v) for v in obj]
    return obj


def dump(content: dict[str, Any]) -> str:
    return json.dumps(content, indent=1, ensure_ascii=False) + "\n"


def differences(expected: Any, actual: Any, path: str = "$") -> list[str]:
    """Paths where two JSON trees differ (for readable test failures)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in expected.keys() | actual.keys():
            if key not in actual:
                out.append(f"{path}.{key}: missing from the recomputed vector")
            elif key not in expected:
                out.append(f"{path}.{key}: not in the stored vector")
            else:
                out.extend(differences(expected[key], actual[key], f"{path}.{key}"))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: {len(expected)} items stored, {len(actual)} recomputed"]
        out = []
        for index, (a, b) in enumerate(zip(expected, actual, strict=True)):
            out.extend(differences(a, b, f"{path}[{index}]"))
        return out
    if expected != actual:
        if isinstance(expected, str) and isinstance(actual, str) and len(expected) > 100:
            at = next((i for i, (x, y) in enumerate(zip(expected, actual, strict=False)) if x != y), None)
            at = min(len(expected), len(actual)) if at is None else at
            lo = max(0, at - 16)
            return [
                f"{path}: {len(expected)} chars stored, {len(actual)} recomputed; first difference at "
                f"char {at}: stored ...{expected[lo : at + 24]}..., recomputed ...{actual[lo : at + 24]}..."
            ]
        return [f"{path}: stored {_short(expected)}, recomputed {_short(actual)}"]
    return []


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "..."
