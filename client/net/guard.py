"""Who may start a handshake, and how often a password may be tried: the admission policy.

Pure and clock-injected (every method takes `now`, in seconds on any monotonic clock), so the
limits can be checked on a simulated clock; `link.serve` and `link.accept` apply it to sockets.

Two threats, two limits:

* **Online password guessing.** SPAKE2 leaves an attacker only one guess per handshake; these
  limits bound how many handshakes it gets. `PasswordLimiter` gives each source (remote IP
  address) `GuessPolicy.free` wrong passwords, then makes it wait before each next try: the wait
  doubles with every further failure up to a cap. A global budget (a leaky bucket: `burst`
  failures, refilled one per `interval`) bounds all sources together, so many addresses do not
  multiply the rate. An attempt is charged when it starts (concurrent attempts cannot all slip
  in before the first failure lands) and refunded when the password was right or the dialer left
  before guessing. An address that has no failure on record is served first when the global
  budget is spent (it gets the next free slot, reserved), so a player who types the right
  password waits one `interval` at most while someone else is guessing from elsewhere (one more
  for each never-failed address that queued first: an attacker can bring each address once).
* **Handshake floods.** `HandshakeCaps` bounds the handshakes in progress per source and in
  total, derived from the process's descriptor limit with a reserve kept for the game itself
  (`caps_for_descriptors`); the excess is closed at once. `RefusalLog` says so once per source
  and interval instead of once per connection.

`Admission` puts them together for one listener.
"""

from __future__ import annotations

import functools
import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass, field

# --- refusals ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Refusal:
    """Why a connection or a password attempt is refused.

    `quiet`: close the connection at once without a word (a flood: answering would cost what the
    limit is there to save); otherwise `reason` is sent to the dialer, whose program shows it.
    `retry_in`: seconds until the same source may try again, when that is known."""

    reason: str
    retry_in: float | None = None
    quiet: bool = False
    kind: str = "password"  # password | flood (one address) | full (all addresses)


def _seconds(value: float) -> int:
    """A wait as a person reads it: whole seconds, rounded up, at least one."""
    return max(1, math.ceil(value - 1e-9))


@functools.lru_cache(maxsize=4096)
def source_key(address: str) -> str:
    """The unit a limit applies to: the IP address, but an IPv6 address's /64 (one machine may
    hold many addresses of its network's /64); anything unparsable stands for itself.

    Kept for the last 4,096 addresses: it is asked at every connection and every password try,
    a flood brings the same few addresses again and again, and parsing one costs about 10 us."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if not ip.is_link_local:  # every link-local address shares fe80::/64: keep them apart
            return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


# --- password guessing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GuessPolicy:
    """The numbers of the guessing limits (docs/network.md, "Passwords", states what they give)."""

    free: int = 3
    """Wrong passwords a source may give before it has to wait."""
    base: float = 5.0
    """The wait after the first failure beyond `free`; it doubles with each further failure."""
    cap: float = 600.0
    """The longest wait of one source between two tries."""
    burst: int = 10
    """Wrong passwords all sources together may give at once..."""
    interval: float = 60.0
    """...after which one more is allowed per `interval` (also the longest a never-failed source
    waits while others are guessing)."""
    forget: float = 86_400.0
    """A source's failures are forgotten after this long without a try."""
    max_sources: int = 4096
    """Sources remembered at most (the least recently seen are forgotten first)."""

    def wait_after(self, failures: int) -> float:
        """How long a source waits before its next try after `failures` wrong passwords in a row."""
        if failures <= self.free:
            return 0.0
        return min(self.cap, self.base * 2.0 ** min(64, failures - self.free - 1))

    def earliest_from_one_source(self, guesses: int) -> float:
        """The earliest time (from the first) at which one source can start its `guesses`-th try,
        every try before it being wrong."""
        return sum(self.wait_after(n) for n in range(1, guesses))

    def earliest_overall(self, guesses: int) -> float:
        """The earliest time at which the `guesses`-th wrong try can start, from any number of
        sources together (the global budget: `burst` at once, then one per `interval`)."""
        return max(0, guesses - self.burst) * self.interval

    def per_hour(self) -> float:
        """Wrong passwords per hour at most, sustained, from all sources together."""
        return 3600.0 / self.interval

    def per_day(self) -> float:
        """Wrong passwords per day at most, from all sources together (the burst included)."""
        return 86_400.0 / self.interval + self.burst


@dataclass
class _Source:
    failures: int = 0
    pending: int = 0
    until: float = 0.0
    seen: float = 0.0
    reserved_at: float | None = None
    """The start of the global slot kept for this source (a never-failed source), if any."""
    reserved_until: float = 0.0


class PasswordLimiter:
    """Per-source and global limits on password tries (see the module docstring).

    `check` is the cheap test at connection time (a source in its wait is refused before any
    work); `begin` is called when a connection is about to try the password and charges it;
    then exactly one of `failed`, `succeeded`, `abandoned`."""

    def __init__(self, policy: GuessPolicy | None = None) -> None:
        self.policy = policy or GuessPolicy()
        self._sources: dict[str, _Source] = {}
        self._reserved: dict[str, _Source] = {}  # the sources holding a slot
        self._level = 0.0  # charged failures in the global bucket
        self._level_at = 0.0
        self.failed_total = 0
        """Wrong passwords seen since the table opened (shown in the host's lobby)."""
        self.last_source = ""
        """Where the last wrong password came from."""

    # the global bucket leaks one failure per interval
    def _bucket(self, now: float) -> float:
        if now > self._level_at:
            self._level = max(0.0, self._level - (now - self._level_at) / self.policy.interval)
            self._level_at = now
        return self._level

    def _charge(self, now: float, amount: float) -> None:
        self._level = max(0.0, self._bucket(now) + amount)

    def _source(self, key: str, now: float) -> _Source:
        record = self._sources.get(key)
        if record is None:
            self._forget(now)
            record = self._sources[key] = _Source(seen=now)
        return record

    def _forget(self, now: float) -> None:
        """Drop records that no longer matter, and the oldest if too many are kept."""
        for key, record in list(self._sources.items()):
            if self._idle(record, now) and now - record.seen >= self.policy.forget:
                del self._sources[key]
        if len(self._sources) >= self.policy.max_sources:
            idle = sorted((r.seen, k) for k, r in self._sources.items() if r.pending == 0)
            for _seen, key in idle[: len(self._sources) - self.policy.max_sources + 1]:
                self._drop_reservation(self._sources.pop(key), now)

    @staticmethod
    def _idle(record: _Source, now: float) -> bool:
        return record.pending == 0 and now >= record.until and record.reserved_at is None

    def _drop_reservation(self, record: _Source, now: float) -> None:
        if record.reserved_at is not None:
            record.reserved_at = None
            self._charge(now, -1.0)  # the slot it held is free again
        for key in [k for k, r in self._reserved.items() if r is record]:
            del self._reserved[key]

    def _expire(self, now: float) -> None:
        for record in [r for r in self._reserved.values() if now > r.reserved_until]:
            self._drop_reservation(record, now)

    def _locked(self, record: _Source, now: float) -> Refusal | None:
        if now < record.until:
            wait = _seconds(record.until - now)
            return Refusal(
                f"too many wrong passwords from your address: try again in {wait} s", record.until - now
            )
        if record.pending and record.failures + record.pending >= self.policy.free:
            return Refusal(
                "another password attempt from your address is still under way: try again in a moment",
                1.0,
            )
        return None

    def check(self, source: str, now: float) -> Refusal | None:
        """At connection time: the refusal for a source that is waiting, else None. Charges nothing."""
        record = self._sources.get(source_key(source))
        return None if record is None else self._locked(record, now)

    def begin(self, source: str, now: float) -> Refusal | None:
        """Before a connection tries the password: None (and the try is charged) or why not yet."""
        self._expire(now)
        key = source_key(source)
        record = self._source(key, now)
        record.seen = now
        refusal = self._locked(record, now)
        if refusal is not None:
            return refusal
        if record.reserved_at is not None:
            if now < record.reserved_at:
                return self._global_refusal(record.reserved_at - now)
            record.reserved_at = None  # its slot is charged already
            self._reserved.pop(key, None)
            record.pending += 1
            return None
        level = self._bucket(now)
        room = level + 1.0 <= self.policy.burst + 1e-9
        if room:
            self._charge(now, 1.0)
            record.pending += 1
            return None
        wait = (level + 1.0 - self.policy.burst) * self.policy.interval
        if record.failures == 0 and record.pending == 0:
            # never failed: keep it the next slot (charged now, so later tries queue behind it)
            record.reserved_at = now + wait
            record.reserved_until = record.reserved_at + self.policy.interval
            self._reserved[key] = record
            self._charge(now, 1.0)
        return self._global_refusal(wait)

    @staticmethod
    def _global_refusal(wait: float) -> Refusal:
        return Refusal(
            f"too many wrong passwords at this table just now: try again in {_seconds(wait)} s",
            wait,
        )

    def failed(self, source: str, now: float) -> float:
        """A wrong password from `source` (its try was charged by `begin`). Returns how long the
        source now waits before its next try."""
        key = source_key(source)
        record = self._source(key, now)
        record.pending = max(0, record.pending - 1)
        record.failures += 1
        record.seen = now
        wait = self.policy.wait_after(record.failures)
        record.until = max(record.until, now + wait)
        self.failed_total += 1
        self.last_source = source
        return wait

    def succeeded(self, source: str, now: float) -> None:
        """The right password: the try is refunded and the source's failures are forgotten."""
        key = source_key(source)
        record = self._sources.get(key)
        self._charge(now, -1.0)
        if record is None:
            return
        record.pending = max(0, record.pending - 1)
        record.failures, record.until, record.seen = 0, 0.0, now

    def abandoned(self, source: str, now: float) -> None:
        """The dialer left (or failed otherwise) before its password could be checked: nothing was
        guessed, so nothing is counted."""
        record = self._sources.get(source_key(source))
        self._charge(now, -1.0)
        if record is not None:
            record.pending = max(0, record.pending - 1)

    def failures_of(self, source: str) -> int:
        """Wrong passwords in a row from `source` (0 once it gave the right one)."""
        record = self._sources.get(source_key(source))
        return 0 if record is None else record.failures


# --- handshake floods ----------------------------------------------------------------------------

PER_SOURCE = 16
"""Handshakes at once from one address: a joiner's machine dials every higher seat, some of them
bots on one host, and may retry; more than this is a flood."""


def caps_for_descriptors(soft_limit: int) -> tuple[int, int]:
    """(per source, total) handshakes at once for a process allowed `soft_limit` descriptors.

    A quarter of the descriptors (at least 64) stays in reserve for the game itself (its links,
    its listeners, its transcript, mDNS), and half of the rest may be handshakes in progress:
    a flood never reaches the limit, so the peer can still re-dial a seat."""
    if soft_limit <= 0 or soft_limit == _rlim_infinity():
        soft_limit = 65_536
    reserve = max(64, soft_limit // 4)
    total = max(4, min(1024, (soft_limit - reserve) // 2))
    return min(PER_SOURCE, total), total


WINDOWS_DESCRIPTORS = 8192
"""What `descriptor_limit` answers where there is no RLIMIT_NOFILE (Windows): sockets are handles
there, bounded by memory rather than by a per-process table; the C runtime's own table (for
files) holds 8192."""


def _rlim_infinity() -> int:
    try:
        import resource  # Unix only: chosen at run time so the module imports on Windows
    except ImportError:
        return -1
    return int(resource.RLIM_INFINITY)


def descriptor_limit() -> int:
    """This process's soft limit on open descriptors (RLIMIT_NOFILE; `WINDOWS_DESCRIPTORS` where
    the platform has no such limit)."""
    try:
        import resource
    except ImportError:
        return WINDOWS_DESCRIPTORS
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return int(soft)


class HandshakeCaps:
    """Handshakes in progress, per source and in total. One per process (`process_caps`): the
    descriptors they hold are the process's, whichever listener accepted them.

    When the total is reached, a newcomer from an address with fewer handshakes in progress takes
    the place of the oldest handshake of the address that holds the most (if that one can be
    cancelled): a flood from many addresses cannot keep a player out of the lobby, since an honest
    program has one handshake at a time and completes it in milliseconds."""

    def __init__(self, per_source: int, total: int) -> None:
        self.per_source = per_source
        self.total = total
        self.running = 0
        self.evicted = 0
        """Handshakes cancelled to make room for a less busy address."""
        self._by_source: dict[str, int] = {}
        self._cancel: dict[str, dict[int, Callable[[], None]]] = {}
        self._next = 0

    @classmethod
    def for_this_process(cls) -> HandshakeCaps:
        return cls(*caps_for_descriptors(descriptor_limit()))

    def may_start(self, source: str, *, expected: bool = False) -> Refusal | None:
        """None if one more handshake from `source` may start (perhaps by cancelling the oldest
        of the busiest address). An `expected` source (the address of a seat at this table) is
        bounded per source only: a flood from elsewhere cannot keep a seat from re-dialling."""
        key = source_key(source)
        if self._by_source.get(key, 0) >= self.per_source:
            return Refusal(
                f"{self.per_source} handshakes at once from that address", kind="flood", quiet=True
            )
        if not expected and self.running >= self.total and not self._evict_for(key):
            return Refusal(f"{self.total} handshakes at once in all", kind="full", quiet=True)
        return None

    def _evict_for(self, key: str) -> bool:
        mine = self._by_source.get(key, 0)
        busiest = max(
            (k for k, cancels in self._cancel.items() if cancels),
            key=lambda k: self._by_source.get(k, 0),
            default=None,
        )
        if busiest is None or self._by_source.get(busiest, 0) < mine + 2:
            return False
        cancels = self._cancel[busiest]
        oldest = next(iter(cancels))
        cancels.pop(oldest)()  # it still counts until its handler finishes
        self.evicted += 1
        return True

    def started(self, source: str, cancel: Callable[[], None] | None = None) -> int:
        """Count a handshake from `source`; `cancel` ends it early if its place is needed.
        Returns the ticket to give `finished`."""
        key = source_key(source)
        self._by_source[key] = self._by_source.get(key, 0) + 1
        self.running += 1
        self._next += 1
        if cancel is not None:
            self._cancel.setdefault(key, {})[self._next] = cancel
        return self._next

    def finished(self, source: str, ticket: int | None = None) -> None:
        key = source_key(source)
        left = self._by_source.get(key, 0) - 1
        if left > 0:
            self._by_source[key] = left
        else:
            self._by_source.pop(key, None)
        cancels = self._cancel.get(key)
        if cancels is not None and ticket is not None:
            cancels.pop(ticket, None)  # not there when it was cancelled to make room
        if cancels is not None and not cancels:
            del self._cancel[key]
        self.running = max(0, self.running - 1)

    def running_from(self, source: str) -> int:
        return self._by_source.get(source_key(source), 0)


_process_caps: HandshakeCaps | None = None


def process_caps() -> HandshakeCaps:
    """The process's shared `HandshakeCaps` (made on first use from the descriptor limit)."""
    global _process_caps
    if _process_caps is None:
        _process_caps = HandshakeCaps.for_this_process()
    return _process_caps


@dataclass
class _Logged:
    at: float
    suppressed: int = 0


@dataclass
class RefusalLog:
    """Says when to log a refusal: once per key (a source) and `interval`, with how many were
    refused quietly since; at most `most` lines per interval over all keys."""

    interval: float = 60.0
    most: int = 10
    _keys: dict[str, _Logged] = field(default_factory=dict)
    _window: float = -math.inf
    _lines: int = 0
    _dropped: int = 0

    def note(self, key: str, now: float) -> int | None:
        """None: do not log this one. Otherwise log it now; the number is how many refusals of
        this key (or, past the overall limit, of any key) were not logged before it."""
        if now - self._window >= self.interval:
            self._window, self._lines = now, 0
            for old in [k for k, v in self._keys.items() if now - v.at >= self.interval and not v.suppressed]:
                del self._keys[old]
        entry = self._keys.get(key)
        if entry is not None and now - entry.at < self.interval:
            entry.suppressed += 1
            return None
        if self._lines >= self.most:
            self._dropped += 1
            return None
        self._lines += 1
        before = (entry.suppressed if entry is not None else 0) + self._dropped
        self._dropped = 0
        if len(self._keys) >= 4 * self.most * 64:  # bounded memory under a many-source flood
            self._keys.clear()
        self._keys[key] = _Logged(now)
        return before


# --- one listener --------------------------------------------------------------------------------


class Admission:
    """What one listener applies: the process's handshake caps, the password limits (a table
    with a password), and a refusal log. Sources are remote IP addresses as text."""

    def __init__(
        self,
        caps: HandshakeCaps | None = None,
        passwords: PasswordLimiter | None = None,
        log_interval: float = 60.0,
    ) -> None:
        self.caps = caps if caps is not None else process_caps()
        self.passwords = passwords
        self.log = RefusalLog(log_interval)

    def may_start(self, source: str, now: float, *, expected: bool = False) -> Refusal | None:
        """At accept: None to start a handshake (then call `started`), else the refusal: quiet
        for a flood, with a reason for a source still waiting after wrong passwords."""
        refusal = self.caps.may_start(source, expected=expected)
        if refusal is None and self.passwords is not None:
            refusal = self.passwords.check(source, now)
        return refusal

    def started(self, source: str, cancel: Callable[[], None] | None = None) -> int:
        return self.caps.started(source, cancel)

    def finished(self, source: str, ticket: int | None = None) -> None:
        self.caps.finished(source, ticket)

    def failed_password(self, source: str, now: float) -> float:
        """A wrong password; returns the wait now imposed on `source`."""
        assert self.passwords is not None
        return self.passwords.failed(source, now)

    def succeeded(self, source: str, now: float) -> None:
        if self.passwords is not None:
            self.passwords.succeeded(source, now)


class PasswordTry:
    """One connection's password try, as `link.accept` reports it (its `PasswordGate`): `may_try`
    before any SPAKE2 work, `tried` once the answer is known, `close` when the connection's
    handshake is over (a try that was begun and never answered is abandoned: not counted)."""

    def __init__(self, limiter: PasswordLimiter, source: str, clock: Callable[[], float]) -> None:
        self.limiter = limiter
        self.source = source
        self.clock = clock
        self.state = "new"  # new | begun | right | wrong | refused | closed
        self.wait = 0.0
        """After a wrong password: how long its source now waits."""

    def may_try(self) -> str | None:
        refusal = self.limiter.begin(self.source, self.clock())
        if refusal is not None:
            self.state = "refused"
            return refusal.reason
        self.state = "begun"
        return None

    def tried(self, right: bool) -> None:
        if self.state != "begun":
            return
        if right:
            self.state = "right"
            self.limiter.succeeded(self.source, self.clock())
        else:
            self.state = "wrong"
            self.wait = self.limiter.failed(self.source, self.clock())

    def close(self) -> None:
        if self.state == "begun":
            self.limiter.abandoned(self.source, self.clock())
        self.state = "closed" if self.state in ("new", "begun") else self.state
