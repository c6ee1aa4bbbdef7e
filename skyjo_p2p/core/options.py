"""Game options: a table of named settings per game, checked on the way in (R-S11, R-A13, R-B2).

Options arrive as JSON values (scenarios, the wire) or as text (``--option NAME=VALUE`` on the
command line); `parse_options` accepts both and refuses unknown names and out-of-range values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import OptionError


@dataclass(frozen=True)
class OptionSpec:
    """One option: its name, type (int, bool or str), default, range or choices, and meaning."""

    name: str
    kind: type
    default: Any
    doc: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()


def shown(value: Any) -> str:
    """`value` as an error message quotes it: long text (from a command line or a genesis) cut."""
    if isinstance(value, int) and value.bit_length() > 64:
        # repr of an int of more than 4300 digits raises ValueError (sys.int_info.str_digits_check_threshold)
        return f"a number of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _coerce(spec: OptionSpec, value: Any) -> Any:
    if spec.kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "yes", "on", "1"):
            return True
        if isinstance(value, str) and value.lower() in ("false", "no", "off", "0"):
            return False
        raise OptionError(f"option {spec.name} must be true or false, not {shown(value)}")
    if spec.kind is int:
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise OptionError(f"option {spec.name} must be a whole number, not {shown(value)}") from None
        if not isinstance(value, int) or isinstance(value, bool):
            raise OptionError(f"option {spec.name} must be a whole number, not {shown(value)}")
        if spec.minimum is not None and value < spec.minimum:
            raise OptionError(f"option {spec.name} must be at least {spec.minimum}, not {shown(value)}")
        if spec.maximum is not None and value > spec.maximum:
            raise OptionError(f"option {spec.name} must be at most {spec.maximum}, not {shown(value)}")
        return value
    if not isinstance(value, str):
        raise OptionError(f"option {spec.name} must be text, not {shown(value)}")
    if spec.choices and value not in spec.choices:
        raise OptionError(f"option {spec.name} must be one of {', '.join(spec.choices)}, not {shown(value)}")
    return value


def parse_options(specs: Sequence[OptionSpec], given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with `given`, every value checked. Raises `OptionError`."""
    if given is not None and not isinstance(given, Mapping):
        raise OptionError(f"options are a map of names to values, not {shown(given)}")
    by_name = {s.name: s for s in specs}
    out = {s.name: s.default for s in specs}
    for name, value in (given or {}).items():
        spec = by_name.get(name.replace("-", "_")) if isinstance(name, str) else None
        if spec is None:
            known = ", ".join(sorted(by_name))
            raise OptionError(f"unknown option {shown(name)} (options: {known})")
        out[spec.name] = _coerce(spec, value)
    return out


def parse_assignments(texts: Sequence[str]) -> dict[str, str]:
    """``["target_score=150", "rows=on"]`` -> ``{"target_score": "150", "rows": "on"}``."""
    out: dict[str, str] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"an option is written NAME=VALUE, not {shown(text)}")
        out[name.strip()] = value.strip()
    return out
