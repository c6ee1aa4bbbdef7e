"""What to tell a person whose connection failed, by how it failed: the network friction of family
laptops (a firewall, macOS's Local Network permission, a guest Wi-Fi that keeps devices apart)
instead of a bare "connection failed". docs/troubleshooting.md has the steps per platform."""

from __future__ import annotations

import errno
from collections.abc import Iterator

TROUBLESHOOTING = "https://github.com/skyjo-lan/skyjo-lan/blob/main/docs/troubleshooting.md"

# errno values, and Windows' socket error numbers for the same failures (WSAE...)
REFUSED = frozenset({errno.ECONNREFUSED, 10061})
UNREACHABLE = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, 10065, 10051, 10064})
TIMED_OUT = frozenset({errno.ETIMEDOUT, 10060})

HINTS = {
    "unreachable": (
        "this machine cannot reach the other one: be on the same network (a guest Wi-Fi keeps "
        "devices apart); on macOS allow Local Network access for your terminal (System Settings, "
        "Privacy & Security, Local Network)"
    ),
    "refused": (
        "nothing answered on that port: the table may have closed, the address or port may be "
        "mistyped, or a firewall on the other machine refuses it"
    ),
    "timeout": (
        "no answer in time: a firewall on the other machine probably drops the connection (Windows: "
        "make the network Private and allow Python; or let in TCP ports {ports})"
    ),
}


def _causes(exc: BaseException, depth: int = 0) -> Iterator[BaseException]:
    """`exc`, the exceptions of its groups, and its causes (trio's "all attempts to connect
    failed" carries each attempt's error as its cause), a bounded walk."""
    if depth > 8:
        return
    yield exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _causes(inner, depth + 1)
    below = exc.__cause__ or exc.__context__
    if below is not None and below is not exc:
        yield from _causes(below, depth + 1)


def kind_of(exc: BaseException) -> str | None:
    """ "unreachable", "refused" or "timeout" for a failed connection (the most telling of its
    causes), None for anything else."""
    found: set[str] = set()
    for cause in _causes(exc):
        code = getattr(cause, "winerror", None) or (cause.errno if isinstance(cause, OSError) else None)
        if code in UNREACHABLE:
            found.add("unreachable")
        elif code in REFUSED:
            found.add("refused")
        elif code in TIMED_OUT or type(cause).__name__ == "TooSlowError" or isinstance(cause, TimeoutError):
            found.add("timeout")
    for kind in ("unreachable", "timeout", "refused"):
        if kind in found:
            return kind
    return None


def reach_hint(exc: BaseException, ports: str = "28700-28899") -> str | None:
    """One sentence on what to check for a connection that failed as `exc` did, with the
    troubleshooting page; None when `exc` is not such a failure."""
    kind = kind_of(exc)
    if kind is None:
        return None
    return HINTS[kind].format(ports=ports) + f" (see {TROUBLESHOOTING})"
