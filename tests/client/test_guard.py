"""The admission policy (`client.net.guard`) on a simulated clock: password guessing is slowed per
source and overall, a right password still gets in, handshake floods are capped and logged once.

Every time here is simulated (the limiter takes `now`); nothing is timed. The last tests run the
limits on real loopback sockets, where only the order of events matters."""

from __future__ import annotations

import errno
import logging
from functools import partial

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from client.net import link as link_module
from client.net.guard import (
    Admission,
    GuessPolicy,
    HandshakeCaps,
    PasswordLimiter,
    PasswordTry,
    RefusalLog,
    caps_for_descriptors,
    source_key,
)
from client.net.link import Refused, dial
from client.table.host import Host, HostOptions
from client.table.seat import LOBBY_TABLE

POLICY = GuessPolicy()

# What docs/network.md ("Passwords") states, computed from the policy itself.
ONE_SOURCE_100 = 54_035.0  # 100 wrong guesses from one address: 15 hours at least
OVERALL_100 = 5_400.0  # 100 wrong guesses from any number of addresses: 90 minutes at least


def test_the_stated_figures_are_the_policy_s():
    assert POLICY.earliest_from_one_source(100) == ONE_SOURCE_100
    assert POLICY.earliest_overall(100) == OVERALL_100
    assert POLICY.per_hour() == 60
    assert POLICY.per_day() == 1450
    assert [POLICY.wait_after(n) for n in range(1, 12)] == [0, 0, 0, 5, 10, 20, 40, 80, 160, 320, 600]
    assert POLICY.wait_after(1000) == POLICY.cap


def guess(limiter: PasswordLimiter, source: str, now: float) -> float | None:
    """One wrong guess from `source` at `now` if the limiter lets it try: None when it did, else
    the wait the refusal states."""
    refusal = limiter.check(source, now) or limiter.begin(source, now)
    if refusal is not None:
        assert refusal.retry_in is not None and refusal.retry_in > 0
        assert "try again in" in refusal.reason
        return refusal.retry_in
    limiter.failed(source, now)
    return None


def attack(limiter: PasswordLimiter, sources: list[str], guesses: int, eager: float) -> list[float]:
    """Guessers at `sources`, each trying again as soon as it may (and, with `eager` < 1, coming
    back before the stated wait is over, too): the simulated times of the first `guesses` tries."""
    now, times = 0.0, []
    for _ in range(200_000):
        waits = []
        for source in sources:
            while len(times) < guesses and (wait := guess(limiter, source, now)) is None:
                times.append(now)
            if len(times) == guesses:
                return times
            waits.append(wait)
        now += max(0.01, min(w for w in waits if w is not None) * eager)
    raise AssertionError("the attack did not end")


@pytest.mark.parametrize("eager", [1.0, 0.5, 0.1])
def test_100_wrong_guesses_from_one_address_take_at_least_the_stated_time(eager):
    times = attack(PasswordLimiter(POLICY), ["10.0.0.66"], 100, eager)
    assert times[-1] >= ONE_SOURCE_100
    assert times[:4] == [0.0, 0.0, 0.0, 0.0]  # three free failures: a typo costs nothing
    assert times[4] >= POLICY.base


def test_a_guesser_that_obeys_the_stated_waits_is_not_refused_more():
    limiter = PasswordLimiter(POLICY)
    now = 0.0
    for n in range(1, 100):
        assert guess(limiter, "10.0.0.66", now) is None, f"guess {n} was refused"
        now += POLICY.wait_after(n)
    refusal = limiter.check("10.0.0.66", now - 1)
    assert (
        refusal is not None and "too many wrong passwords from your address: try again in" in refusal.reason
    )


@settings(max_examples=20, deadline=None)
@given(
    sources=st.integers(min_value=2, max_value=100),
    eager=st.sampled_from([1.0, 0.5]),
)
def test_100_wrong_guesses_from_many_addresses_take_at_least_the_stated_time(sources, eager):
    addresses = [f"10.0.{i // 250}.{i % 250 + 1}" for i in range(sources)]
    times = attack(PasswordLimiter(POLICY), addresses, 100, eager)
    assert times[-1] >= OVERALL_100


def test_the_right_password_after_the_wait_gets_in_and_clears_the_address():
    limiter = PasswordLimiter(POLICY)
    now = 0.0
    for n in range(1, 8):
        assert guess(limiter, "10.0.0.5", now) is None
        now += POLICY.wait_after(n)
    early = limiter.check("10.0.0.5", now - 0.5)
    assert early is not None and early.retry_in is not None
    assert limiter.begin("10.0.0.5", now) is None
    limiter.succeeded("10.0.0.5", now)
    assert limiter.failures_of("10.0.0.5") == 0
    # a typo right after costs nothing again
    assert guess(limiter, "10.0.0.5", now) is None
    assert limiter.check("10.0.0.5", now) is None


@settings(max_examples=40, deadline=None)
@given(
    attackers=st.integers(min_value=1, max_value=40),
    arrives=st.floats(min_value=0, max_value=3_000),
    fresh=st.integers(min_value=0, max_value=3),
)
def test_someone_else_s_guessing_keeps_a_right_password_out_one_interval_at_most(attackers, arrives, fresh):
    """Guessers at other addresses try every second; a player whose address never gave a wrong
    password arrives: it waits one interval at most, plus one for each address that never guessed
    before and comes in the same moment (an attacker can bring each of its addresses once)."""
    limiter = PasswordLimiter(POLICY)
    guessers = [f"10.0.1.{i + 1}" for i in range(attackers)]
    now, started = 0.0, None
    for _ in range(20_000):
        for source in guessers:
            guess(limiter, source, now)
        if started is None and all(limiter.failures_of(g) for g in guessers):
            started = now + arrives  # every guesser has failed: its address is marked
            newcomers = [f"10.0.2.{i + 1}" for i in range(fresh)]
        if started is not None and now >= started:
            break
        now += 1.0
    assert started is not None
    for source in newcomers:  # fresh addresses of the attacker, in the same second as the player
        guess(limiter, source, now)
    arrived = now
    for _ in range(10_000):
        refusal = limiter.check("10.0.0.7", now) or limiter.begin("10.0.0.7", now)
        if refusal is None:
            limiter.succeeded("10.0.0.7", now)
            break
        assert refusal.retry_in is not None and "try again in" in refusal.reason
        assert now + refusal.retry_in <= arrived + (fresh + 1) * POLICY.interval + 1e-6
        for source in guessers + newcomers:
            guess(limiter, source, now)
        now += 1.0
    else:
        raise AssertionError("the right password never got in")
    assert now - arrived <= (fresh + 1) * POLICY.interval + 1


def test_concurrent_tries_cannot_slip_past_the_free_failures():
    limiter = PasswordLimiter(POLICY)
    admitted = [limiter.begin("10.0.0.9", 0.0) is None for _ in range(50)]
    assert sum(admitted) == POLICY.free
    for _ in range(POLICY.free):
        limiter.failed("10.0.0.9", 0.0)
    assert limiter.begin("10.0.0.9", 0.0) is None  # the fourth try, alone
    assert limiter.begin("10.0.0.9", 0.0) is not None  # no second one beside it
    limiter.failed("10.0.0.9", 0.0)
    refusal = limiter.begin("10.0.0.9", 1.0)
    assert refusal is not None and refusal.reason.endswith("try again in 4 s")


def test_a_try_abandoned_before_the_password_is_checked_counts_nothing():
    limiter = PasswordLimiter(POLICY)
    for _ in range(100):
        attempt = PasswordTry(limiter, "10.0.0.3", lambda: 0.0)
        assert attempt.may_try() is None
        attempt.close()  # the dialer left after SPAKE2 started: it learnt nothing
    assert limiter.failures_of("10.0.0.3") == 0 and limiter.failed_total == 0
    attempt = PasswordTry(limiter, "10.0.0.3", lambda: 0.0)
    assert attempt.may_try() is None
    attempt.tried(False)
    attempt.close()
    assert limiter.failed_total == 1 and limiter.last_source == "10.0.0.3"


def test_forgotten_after_a_quiet_day_and_memory_is_bounded():
    limiter = PasswordLimiter(GuessPolicy(max_sources=100))
    for i in range(1000):
        guess(limiter, f"10.{i // 250}.0.{i % 250 + 1}", float(i))
    assert len(limiter._sources) <= 100
    limiter = PasswordLimiter(POLICY)
    for _ in range(6):
        guess(limiter, "10.0.0.4", 0.0)
    assert limiter.check("10.0.0.4", 1.0) is not None
    limiter.begin("10.9.9.9", POLICY.forget + POLICY.cap + 1)  # any later activity tidies up
    assert limiter.failures_of("10.0.0.4") == 0


def test_addresses_of_one_machine_count_as_one_source():
    assert source_key("2001:db8::1") == source_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert source_key("::ffff:10.0.0.1") == "10.0.0.1"
    assert source_key("fe80::1%eth0") != source_key("fe80::2%eth0")
    assert source_key("10.0.0.1") == "10.0.0.1"
    assert source_key("not an address") == "not an address"


# --- handshake floods --------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [256, 1024, 4096, 65_536, 1 << 20])
def test_handshake_caps_keep_descriptors_in_reserve(limit):
    per_source, total = caps_for_descriptors(limit)
    assert 1 <= per_source <= total
    assert total <= (limit - 64) // 2  # half the descriptors at least stay for the game
    assert per_source >= 8  # a joiner's machine dials every higher seat


def test_handshakes_are_capped_per_source_and_in_total():
    caps = HandshakeCaps(per_source=4, total=10)
    admission = Admission(caps)
    started = 0
    for _ in range(100):
        if admission.may_start("10.0.0.66", 0.0) is None:
            admission.started("10.0.0.66")
            started += 1
    assert started == 4
    refusal = admission.may_start("10.0.0.66", 0.0)
    assert refusal is not None and refusal.quiet
    for i in range(20):
        if admission.may_start(f"10.0.1.{i}", 0.0) is None:
            admission.started(f"10.0.1.{i}")
    assert caps.running == 10
    assert admission.may_start("10.0.2.1", 0.0) is not None
    assert admission.may_start("10.0.2.1", 0.0, expected=True) is None  # a seat still gets through
    admission.finished("10.0.0.66")
    assert admission.may_start("10.0.2.1", 0.0) is None


def test_a_source_waiting_after_wrong_passwords_is_told_why_at_once():
    admission = Admission(HandshakeCaps(16, 100), PasswordLimiter(POLICY))
    for _ in range(5):
        assert admission.passwords is not None
        admission.passwords.begin("10.0.0.8", 0.0)
        admission.failed_password("10.0.0.8", 0.0)
    refusal = admission.may_start("10.0.0.8", 3.0)
    assert refusal is not None and not refusal.quiet
    assert refusal.reason == "too many wrong passwords from your address: try again in 7 s"
    assert admission.may_start("10.0.0.9", 3.0) is None


@settings(max_examples=30, deadline=None)
@given(sources=st.integers(min_value=1, max_value=3000), per_second=st.integers(min_value=1, max_value=200))
def test_refusals_are_logged_once_per_source_and_interval(sources, per_second):
    log = RefusalLog(interval=60.0, most=10)
    lines = 0
    for second in range(600):  # ten minutes of a flood
        for n in range(per_second):
            if log.note(f"flood:10.{n % sources // 250}.0.{n % sources % 250}", float(second)) is not None:
                lines += 1
    assert lines <= 10 * 10 + 10  # at most `most` lines per interval, whatever the flood


def test_a_logged_refusal_says_how_many_were_not_logged():
    log = RefusalLog(interval=60.0)
    assert log.note("a", 0.0) == 0
    for t in range(1, 60):
        assert log.note("a", float(t)) is None
    assert log.note("a", 60.0) == 59


# --- on real sockets (loopback; no timing: the waits are far longer than the test) -------------


@pytest.fixture
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(link_module, "HANDSHAKE_TIMEOUT", 20.0)


async def try_password(port: int, password: str, source: str = "127.0.0.1") -> str:
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
    try:
        link, _ = await dial(
            stream,
            Ed25519PrivateKey.generate(),
            name="guesser",
            role="join",
            table=LOBBY_TABLE,
            port=1,
            password=password,
        )
    except Refused as exc:
        return str(exc)
    finally:
        with trio.CancelScope(shield=True):
            await stream.aclose()
    await link.aclose()
    return "seated"


async def test_a_guesser_is_told_to_wait_and_the_host_sees_it(private_home):
    lines: list[str] = []
    host = Host(
        HostOptions(seats=4, advertise=False, interface="127.0.0.1", name="host", password="1234"),
        Ed25519PrivateKey.generate(),
        lines.append,
    )
    # an hour's wait after the fourth failure: far longer than the test, so no timing is involved
    assert host.admission.passwords is not None
    host.admission.passwords.policy = GuessPolicy(base=3600.0, cap=7200.0)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run)
        answers = [await try_password(port, f"{n:04d}") for n in range(4)]
        assert answers == ["wrong password"] * 4
        refused = await try_password(port, "1235")
        assert refused.startswith("too many wrong passwords from your address: try again in ")
        assert refused.endswith(" s")
        # the right password from the locked address waits as well...
        assert (await try_password(port, "1234")).startswith("too many wrong passwords")
        # ...but another address is not held up
        assert await try_password(port, "1234", source="127.0.0.2") == "seated"
        from client.ui.network import HostLobby

        view = HostLobby(host).lobby()
        assert (view.failed_passwords, view.failed_from) == (4, "127.0.0.1")
        nursery.cancel_scope.cancel()
    wrong = [line for line in lines if ": wrong password" in line]
    assert len(wrong) == 4 and "from 127.0.0.1" in wrong[-1] and "4 wrong passwords so far" in wrong[-1]
    assert "waits 3600 s" in wrong[-1]


def test_a_newcomer_displaces_the_oldest_handshake_of_the_busiest_address():
    caps = HandshakeCaps(per_source=16, total=40)
    cancelled: list[tuple[str, int]] = []
    tickets: dict[tuple[str, int], int] = {}
    for i in range(40):  # a flood from 4 addresses fills the total
        source = f"10.0.9.{i % 4}"
        assert caps.may_start(source) is None
        tickets[(source, i)] = caps.started(source, lambda s=source, n=i: cancelled.append((s, n)))
    # a player arrives: the busiest address loses its oldest handshake
    assert caps.may_start("10.0.0.7") is None
    player = caps.started("10.0.0.7", lambda: cancelled.append(("10.0.0.7", -1)))
    assert cancelled == [("10.0.9.0", 0)]
    caps.finished("10.0.9.0", tickets[("10.0.9.0", 0)])
    # a flooder cannot do the same to get more than its share
    for _ in range(200):
        if caps.may_start("10.0.9.1") is None:
            caps.started("10.0.9.1", lambda: None)
    assert caps.running_from("10.0.9.1") <= caps.running_from("10.0.9.2") + 2
    assert ("10.0.0.7", -1) not in cancelled  # the player is never the busiest
    caps.finished("10.0.0.7", player)
    assert caps.running_from("10.0.0.7") == 0


class OutOfDescriptors(trio.abc.Listener[trio.SocketStream]):
    """A listener whose accept fails with EMFILE `times` times, then waits for ever."""

    def __init__(self, times: int) -> None:
        self.left = times

    async def accept(self) -> trio.SocketStream:
        if self.left > 0:
            self.left -= 1
            raise OSError(errno.EMFILE, "Too many open files")
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        return None


async def test_running_out_of_descriptors_pauses_and_logs_once_a_minute(autojump_clock, caplog):
    caplog.set_level(logging.INFO)
    listener = OutOfDescriptors(1000)

    async def never(stream: trio.SocketStream, handshake: link_module.Handshake) -> None:
        raise AssertionError("no connection was accepted")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(
            partial(link_module.serve, listener, never, Admission(HandshakeCaps(16, 100)), what="lobby")  # type: ignore[arg-type]
        )
        for _ in range(100_000):
            if listener.left == 0:
                break
            await trio.sleep(1)
        assert listener.left == 0, "accept was not retried"
        nursery.cancel_scope.cancel()
    lines = [r for r in caplog.records if "cannot accept" in r.getMessage()]
    assert 1 <= len(lines) <= 30  # once a minute over the simulated ~17 minutes, not 1,000 times
    assert all(r.exc_info is None for r in caplog.records), "a traceback was logged"
    assert "Too many open files" in lines[0].getMessage()
