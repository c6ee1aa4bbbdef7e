"""Saved games on real disk faults (issue 13, points 3, 4 and 8).

* a read-only data directory: the joiner (and the host) refuse before taking a seat, one line,
  exit status 2; nobody is left waiting;
* a full disk (a tiny tmpfs mounted by the test): the game goes on from memory, the log says
  why, the file always ends with a whole record, frames are written again once there is room,
  and the end says whether the saved game is complete;
* kill -9 mid-write: a resumed peer cuts the torn record off before appending;
* the `.resume` file (a secret key share) is removed once the game is over and verifies, kept
  (and no longer offered) when it does not; stale ones are not offered.

Loopback only; the mounts are the test's own and are unmounted in a `finally`.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import client.table.seat as seating
from client import storage
from client.net.link import Refused
from client.storage import SaveError, TranscriptWriter
from client.table.commands import _network_errors
from client.table.host import Host, HostOptions
from client.table.join import Joiner, JoinOptions
from client.table.peer import PeerRunner
from client.table.resume import _saved_frames
from client.table.saved import ResumeInfo, latest_resumable
from client.table.seat import Peer
from protocol.messages import open_frame
from protocol.transcript import dump, load_checked, valid_prefix
from protocol.verify import Verdict, verify_bytes
from skyjo_p2p.core.errors import OptionError
from tests.protocol.harness import Net


@contextlib.contextmanager
def tmpfs(path: Path, size: str, read_only: bool = False) -> Iterator[Path]:
    """A tmpfs of `size` at `path` (read-only if asked); skips the test where mounting is not
    permitted (not root, no CAP_SYS_ADMIN)."""
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        if read_only:
            subprocess.run(["mount", "-o", "remount,ro", str(path)], check=True, capture_output=True)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture(scope="module")
def early() -> Net:
    """A 3-seat game stopped after seat 2 has saved 80 frames (the deal is under way)."""
    net = Net("skyjo", 3, {"target_score": 30})
    net.start(until=lambda: len(net.sessions[2].frames) > 80)
    return net


# --- point 4: a read-only data directory ------------------------------------------------------


def test_a_read_only_data_directory_refuses_before_taking_a_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The joiner checks it can save before it dials: the host never seats it, and the command
    ends with one line and exit status 2 (it used to take a seat, then fail when the game
    started, leaving the others waiting)."""
    with tmpfs(tmp_path / "ro", "64k", read_only=True) as readonly:
        seats: list[int] = []

        async def main() -> int:
            host = Host(
                HostOptions(seats=2, advertise=False, interface="127.0.0.1", save=False),
                Ed25519PrivateKey.generate(),
                lambda line: None,
            )
            async with trio.open_nursery() as nursery:
                port = await nursery.start(host.run)
                monkeypatch.setenv("XDG_DATA_HOME", str(readonly))
                joiner = Joiner(
                    JoinOptions(target=f"127.0.0.1:{port}", headless="greedy"),
                    Ed25519PrivateKey.generate(),
                    lambda line: None,
                )
                try:
                    with trio.fail_after(30):
                        await joiner.run()
                finally:
                    await trio.testing.wait_all_tasks_blocked(0.2)  # a seat taken would show by now
                    seats.append(len(host.seats))
                    nursery.cancel_scope.cancel()
            return 0

        code = _network_errors(lambda: trio.run(main), "join")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert seats == [1], "the joiner took a seat it could not play"
    assert len(err) == 1 and "cannot save games in" in err[0] and "Read-only file system" in err[0], err
    assert "Traceback" not in "\n".join(err)


def test_a_host_with_a_read_only_data_directory_opens_no_lobby(tmp_path: Path, monkeypatch) -> None:
    with tmpfs(tmp_path / "ro", "64k", read_only=True) as readonly:
        monkeypatch.setenv("XDG_DATA_HOME", str(readonly))
        host = Host(
            HostOptions(seats=2, advertise=False, interface="127.0.0.1"),
            Ed25519PrivateKey.generate(),
            lambda line: None,
        )
        with pytest.raises(SaveError) as raised:
            trio.run(host.run)
        assert isinstance(raised.value, OptionError | OSError)
        assert not hasattr(host, "lobby_port") or not host.lobby_port
        # the same check passes on a writable directory
        storage.check_writable(tmp_path / "elsewhere")


# --- point 4: a full disk --------------------------------------------------------------------


def test_a_full_data_directory_is_found_before_a_seat_too(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "full", "64k") as disk:
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):
            for _ in range(64):
                os.write(fd, b"\0" * 4096)
        os.close(fd)
        with pytest.raises(SaveError, match=r"No space left on device \(free some space\)"):
            storage.check_writable(disk / "games")
        assert [p.name for p in (disk / "games").iterdir()] == []  # no probe left behind


def test_the_writer_on_a_full_disk_keeps_whole_records_and_catches_up(tmp_path: Path, early: Net) -> None:
    """A write that does not fit fails with `SaveError` and leaves the file ending with a whole
    record; once there is room the same frames are written again and the file is whole."""
    frames = list(early.sessions[2].frames)
    with tmpfs(tmp_path / "full", "200k") as disk:
        filler = disk / "filler"
        filler.write_bytes(b"\0" * (150 * 1024))
        writer = TranscriptWriter(early.config, disk / "game.skyjo")
        written = 0
        with pytest.raises(SaveError, match="No space left on device"):
            for frame in frames:
                writer(frame)
                written += 1
        assert 0 < written < len(frames)
        prefix = valid_prefix((disk / "game.skyjo").read_bytes())
        assert (prefix.cut_bytes, len(prefix.frames)) == (0, written)
        with pytest.raises(SaveError):  # still full: refused again, still whole
            writer(frames[written])
        assert valid_prefix((disk / "game.skyjo").read_bytes()).cut_bytes == 0
        filler.unlink()
        for frame in frames[written:]:
            writer(frame)
        writer.sync()
        writer.close()
        config, saved, torn = load_checked((disk / "game.skyjo").read_bytes())
    assert saved == frames and not torn
    assert verify_bytes(dump(config, saved)).valid


async def host_game(seats: int, say: list[str]) -> PeerRunner | None:
    """A loopback game of headless bots: the host's own seat saves, and so do its bots (their
    seats apart, `saved.bots_folder`)."""
    opts = HostOptions(
        game="skyjo",
        options={"target_score": 1},
        seats=seats,
        bots=seats - 1,
        headless="greedy",
        advertise=False,
        interface="127.0.0.1",
        save=True,
    )
    host = Host(opts, Ed25519PrivateKey.generate(), say.append)
    with trio.fail_after(180):
        return await host.run()


def test_a_full_disk_mid_game_plays_on_and_says_the_saved_game_is_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills during the game (it used to end in an `Errno 28` traceback and the peer
    died): the game finishes for everyone, the log says why, the file ends with whole records
    and verifies as far as it goes, and the end says it is incomplete."""
    with tmpfs(tmp_path / "full", "120k") as disk:
        monkeypatch.setenv("XDG_DATA_HOME", str(disk))
        lines: list[str] = []
        runner = trio.run(host_game, 3, lines)
        assert runner is not None and runner.status.finished and not runner.status.halted
        files = list((disk / "skyjo-lan" / "games").glob("*.skyjo"))
        assert len(files) == 1
        data = files[0].read_bytes()
        resumes = list((disk / "skyjo-lan" / "games").glob("*.resume"))
    shown = [entry.text for entry in runner.log if entry.kind == "info"]
    assert any("No space left on device" in t and "goes on from memory" in t for t in shown), shown
    assert any("INCOMPLETE" in t for t in shown), shown
    assert any("INCOMPLETE" in line for line in lines), lines[-5:]
    assert not any("Traceback" in line for line in lines)
    assert valid_prefix(data).cut_bytes == 0
    verdict = verify_bytes(data)
    assert verdict.valid and verdict.kind == "unfinished", verdict.fault
    # an incomplete transcript cannot be resumed from (our missing frames would be made anew)
    assert resumes == []


def test_frames_wait_in_memory_until_there_is_room_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Room comes back (here: the user deletes a file once the log says the disk is full): the
    frames kept in memory are written at the next retry, the saved game is complete, verifies,
    and its `.resume` file (the secret key share) is removed since the game is over."""
    failures: list[str] = []
    original = TranscriptWriter.__call__

    # 56 KiB free at first: both saved games (the host's seat and its bot's, about 125 KiB each)
    # fail in the first deal. Once the filler goes, the room is enough for both whole: with less,
    # whichever writer retried first took it, and the host's file stayed incomplete when the
    # bot's had caught up first (a CI run on a loaded machine)
    with tmpfs(tmp_path / "full", "640k") as disk:
        filler = disk / "filler"
        filler.write_bytes(b"\0" * (584 * 1024))

        def call(self: TranscriptWriter, frame: bytes) -> None:
            try:
                original(self, frame)
            except SaveError as exc:
                failures.append(exc.reason)
                if self.path.parent.name != "bots":  # (the host's bot saves its seat apart)
                    filler.unlink(missing_ok=True)  # the user frees space once the host's file fails
                raise

        monkeypatch.setattr(TranscriptWriter, "__call__", call)
        monkeypatch.setenv("XDG_DATA_HOME", str(disk / "data"))
        lines: list[str] = []
        runner = trio.run(host_game, 2, lines)
        games = disk / "data" / "skyjo-lan" / "games"
        data = next(games.glob("*.skyjo")).read_bytes()
        resumes = list(games.glob("*.resume"))
    assert failures and "No space left on device" in failures[0]
    assert runner is not None and runner.status.finished
    shown = [entry.text for entry in runner.log if entry.kind == "info"]
    assert any("caught up" in t for t in shown), shown
    assert not any("INCOMPLETE" in t for t in shown), shown
    verdict = verify_bytes(data)
    assert verdict.kind == "finished", verdict.fault
    assert resumes == []


# --- point 3: kill -9 mid-write, then --resume -------------------------------------------------


async def resume_from(path: Path, net: Net, frames: int, tail: bytes) -> tuple[bytes, list[str]]:
    """Seat 2 resumes from the first `frames` frames plus `tail` (a torn or corrupt record) and
    runs until it has nothing more to do alone; returns its file and what it said."""
    me = 2
    saved = list(net.sessions[me].frames)
    path.write_bytes(dump(net.config, saved[:frames]) + tail)
    secrets = net.sessions[me].secrets()
    addresses = [("127.0.0.1", 9)] * 3
    info = ResumeInfo(path, net.config.encode(), me, "127.0.0.1", 0, addresses, secrets=secrets)
    said: list[str] = []
    keep, kept, cut = _saved_frames(info)
    if cut:
        said.append(cut)
    listener = await seating.open_listener("127.0.0.1")
    peer = Peer(net.config, me, net.keys[me], listener, addresses, None, resume=info)
    runner = peer.build(restored=(kept, secrets), keep=keep)

    async def broadcast(frame: bytes) -> None:
        pass

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            await nursery.start(runner.run, broadcast)
            # The others send again what the cut lost: their own frames, never ours (what we
            # make from here is ours to make). Only up to our next frame of the original game:
            # frames the others made after it may answer it, and it is made anew here (it was
            # never sent: it is not in the file), so they belong to another history.
            for frame in saved[frames:]:
                if open_frame(frame, net.config).seat == me:
                    break
                runner.deliver(frame)
            runner.close()
    assert peer.writer is not None
    peer.writer.close()
    await listener.aclose()
    return path.read_bytes(), said


@pytest.mark.parametrize("torn", [1, 7, 100])
def test_a_torn_last_record_is_cut_on_resume(tmp_path: Path, early: Net, torn: int) -> None:
    """kill -9 while a record was being written: the resumed file is whole and verifies (it
    used to keep the torn bytes and append after them: "transcript is corrupt after N frames")."""
    frames = early.sessions[2].frames
    whole = 60
    tail = dump(early.config, frames[: whole + 1])[len(dump(early.config, frames[:whole])) :][:torn]
    data, said = trio.run(resume_from, tmp_path / "game.skyjo", early, whole, tail)
    assert said and f"{torn} bytes (1 record(s)) cut after {whole} frames" in said[0], said
    assert valid_prefix(data).cut_bytes == 0
    _, saved, truncated = load_checked(data)
    assert not truncated and saved[:whole] == frames[:whole]
    assert verify_bytes(data).valid


def first_frame_of(net: Net, mine: bool, after: int = 60) -> int:
    """The index of the first frame of seat 2's file from `after` on that is (or is not) its own."""
    frames = net.sessions[2].frames
    return next(i for i in range(after, len(frames)) if (open_frame(frames[i], net.config).seat == 2) is mine)


def corrupt_record(net: Net, index: int) -> bytes:
    frames = net.sessions[2].frames
    bad = bytearray(dump(net.config, frames[: index + 1])[len(dump(net.config, frames[:index])) :])
    bad[-10] ^= 0x5A  # inside the signature
    return bytes(bad)


def test_a_corrupt_last_frame_of_another_seat_is_cut_on_resume(tmp_path: Path, early: Net) -> None:
    """A bad sector in the last record: cut, and the frame comes again from its seat."""
    whole = first_frame_of(early, mine=False)
    data, said = trio.run(resume_from, tmp_path / "game.skyjo", early, whole, corrupt_record(early, whole))
    assert said and "does not check" in said[0] and f"cut after {whole} frames" in said[0], said
    verdict = verify_bytes(data)
    assert verdict.valid, verdict.fault


def test_a_corrupt_frame_of_our_own_is_not_made_anew(tmp_path: Path, early: Net) -> None:
    """Our own frame damaged on disk may already be with the others: cut and made anew it would
    differ (equivocation, and this seat blamed as a cheat, as a try by hand showed). The resume
    is refused in one line instead, and the file is left as it was."""
    whole = first_frame_of(early, mine=True)
    path = tmp_path / "game.skyjo"
    with pytest.raises(Refused, match=r"cannot resume from .*equivocation"):
        trio.run(resume_from, path, early, whole, corrupt_record(early, whole))
    assert path.read_bytes().endswith(corrupt_record(early, whole))


def test_a_torn_frame_of_our_own_is_cut(tmp_path: Path, early: Net) -> None:
    """A torn record was never whole, so never sent (it is written before it is sent): cut."""
    whole = first_frame_of(early, mine=True)
    data, said = trio.run(
        resume_from, tmp_path / "game.skyjo", early, whole, corrupt_record(early, whole)[:-30]
    )
    assert said and "incomplete record" in said[0], said
    assert verify_bytes(data).valid


def test_nothing_is_cut_from_a_whole_file(tmp_path: Path, early: Net) -> None:
    data, said = trio.run(resume_from, tmp_path / "game.skyjo", early, 60, b"")
    assert said == []
    assert verify_bytes(data).valid


# --- point 8: the .resume file after the end ---------------------------------------------------


def test_a_finished_game_leaves_no_resume_file(tmp_path: Path) -> None:
    lines: list[str] = []
    runner = trio.run(host_game, 2, lines)
    games = tmp_path / "data" / "skyjo-lan" / "games"
    assert runner is not None and runner.status.finished
    assert list(games.glob("*.resume")) == [], "the secret key share stayed on disk"
    assert verify_bytes(next(games.glob("*.skyjo")).read_bytes()).kind == "finished"
    assert latest_resumable() is None


def test_a_resume_file_whose_game_does_not_verify_is_kept_and_not_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(data: bytes) -> Verdict:
        verdict = Verdict(True)
        verdict._invalid("frame #3 of seat 1 is missing from the file")
        return verdict

    monkeypatch.setattr(seating, "verify_bytes", broken)
    lines: list[str] = []
    runner = trio.run(host_game, 2, lines)
    games = tmp_path / "data" / "skyjo-lan" / "games"
    assert runner is not None and runner.status.finished
    kept = list(games.glob("*.resume"))
    assert len(kept) == 1
    assert any("does not verify (frame #3 of seat 1" in line and "is kept" in line for line in lines), lines
    assert ResumeInfo.load(kept[0]).over
    assert latest_resumable() is None


def test_only_a_recent_unfinished_game_with_its_transcript_is_offered(tmp_path: Path) -> None:
    games = storage.games_dir()
    games.mkdir(parents=True)
    net = Net("skyjo", 2, {})

    def make(name: str, *, finished: bool = False, over: bool = False, transcript: bool = True) -> ResumeInfo:
        path = games / f"{name}.skyjo"
        if transcript:
            path.write_bytes(dump(net.config, []))
        info = ResumeInfo(path, net.config.encode(), 0, "127.0.0.1", 1, [], finished=finished, over=over)
        info.save()
        return info

    make("a-finished", finished=True)
    make("b-over", over=True)
    make("c-gone", transcript=False)
    fresh = make("d-fresh")
    (games / "e-garbage.resume").write_bytes(b"\xc1 not msgpack")
    assert latest_resumable() == fresh
    # no longer offered once a game of another table is saved after it (issue 26: not the clock)
    later = games / "f-later.skyjo"
    later.write_bytes(dump(Net("skyjo", 2, {}).config, []))
    stamp = os.stat(fresh.path).st_mtime
    os.utime(later, (stamp + 60, stamp + 60))
    assert latest_resumable() is None
