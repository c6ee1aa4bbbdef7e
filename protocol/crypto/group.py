"""The ristretto255 group (RFC 9496), through rbcl (libsodium's own ristretto255), and the optional
compiled extension `_msm` for sums: public ones in variable time (`lincomb_public`, verification)
and secret ones in constant time (`mul_fixed_secret`, `lincomb_secret`, the shuffle prover).

Why this module exists: every other module of `protocol.crypto` does group arithmetic only through
the functions below, so there is exactly one place that imports the library, one place that decides
what a valid point is, and one place that counts the expensive operations for the benchmarks.
Another backend (another libsodium binding, a Rust extension with multi-scalar multiplication)
is a change of this one file: nothing else imports `rbcl`.

Representation
- ristretto255 is a prime-order group of order `L` (the order of edwards25519's prime-order
  subgroup) built on edwards25519: there is no cofactor, every valid encoding is a group element,
  and two encodings never name the same element. A point is its canonical 32-byte encoding
  (`Point`, a `bytes` NewType; RFC 9496, Section 4.3.2). `BASE` (G) is the RFC's generator.
  Curve arithmetic outside libsodium is only the extension's (protocol/crypto/_msm.c, written
  from the RFCs and papers it cites), which equals libsodium's bit for bit and can be left out.
- A scalar is a Python `int` in [0, L). It becomes 32 little-endian bytes only at the libsodium call
  and on the wire. Public scalar arithmetic (challenges, verifier coefficients) is plain Python;
  arithmetic with secret scalars goes through `scalar_add`/`scalar_sub`/`scalar_mul`/`scalar_dot`/
  `scalar_muladd`, which run libsodium's fixed-length scalar code (see `scalar_add`).

Costs (benchmarks/crypto_micro.py on the 2-core development machine, loaded; medians, through the
wrappers below): variable-base `mul` ~37 us, `mul_base` ~12 us, `add` ~11 us (decoding both
points and encoding the sum is most of it), `decode_point` ~4 us, `from_hash` ~11 us, a secret
scalar response (`scalar_muladd`) ~1.5 us. The edwards25519 backend it replaced (PyNaCl), same
conditions: ~65, ~13, ~12 and ~32 us for the first four (its validation multiplied by L).

Validation (`decode_point`): every point received from another peer goes through `decode_point`
once. The type, the length, the identity (all zero), a non-canonical field element (s >= p, which
includes every encoding with bit 255 set) and a negative one (s odd) are refused in Python, each
with its own reason; the rest of RFC 9496's decoding (Section 4.3.1: a square root must exist, t
must be non-negative, y non-zero) is libsodium's `crypto_core_ristretto255_is_valid_point`, refused
as "not a ristretto255 encoding". That is the whole check: with no cofactor, there are no
small-order or mixed-order points to look for. The Python test of bit 255 is not redundant:
libsodium's decoder ignores that bit, so it accepts a second encoding (the top-bit twin) of every
element, which RFC 9496 forbids and which would make frames malleable.

What rbcl does on failure (checked in tests/protocol/test_crypto_group.py), and what we do:
- `crypto_core_ristretto255_is_valid_point` ACCEPTS the identity (all zero) and the top-bit twins:
  we refuse both first.
- `crypto_scalarmult_ristretto255(_base)` raise `RuntimeError` when libsodium returns -1: the point
  does not decode, or the result is the identity (which libsodium refuses; a zero scalar included).
  With a scalar in [1, L) and a non-identity point, only the first can happen, and `mul` turns it
  into `InvalidPoint`. We never call the `_allow_scalar_zero` variable-base variant: installed from
  a wheel, it skips its point check and returns the identity for a point that does not decode.
- `crypto_core_ristretto255_add/sub` ignore libsodium's return code and return 32 zero bytes when a
  point does not decode. `add`/`sub` therefore check their inputs whenever the result is the
  identity (rare: honest data meets it with probability ~2^-250), and raise `InvalidPoint`.
- Wrong types or lengths raise `TypeError`/`ValueError` in rbcl; `decode_point` stops them earlier.

The identity and the zero scalar: honest data never *transmits* the identity (received identities
are rejected), but a verifier recomputing commitments from adversarial responses can legitimately
meet it (a zero response, a sum of commitments that cancels). So `mul` and `mul_base` return
`IDENTITY` for a zero scalar or an identity input, and `add`/`sub` handle it; inside proofs the
identity is hashed as its canonical encoding 00 .. 00. An honest prover produces an identity only
with probability about 2^-250, in which case the receiver rejects its data.

Loading the library (`_load_rbcl`): rbcl's import writes its bundled libsodium (2.8 MB) to a new
temporary file, loads it from there and never deletes it (on Windows it could not: a loaded
library cannot be removed, so every start would leave 2.8 MB in %TEMP%). So the library is
copied once per user and rbcl version into the user's cache folder (`_cached_library`:
`$XDG_CACHE_HOME` or ~/.cache on Linux, ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows,
then `skyjo-lan/libsodium/`), written whole under a temporary name and renamed, and every later
start loads that copy: rbcl's own writer is replaced by a module holding the loaded library.
When the copy cannot be made or loaded (a full or read-only cache, one mounted `noexec`, an rbcl
whose layout is not the one known here), rbcl is imported its own way with `tempfile.tempdir`
pointed at a private directory made for the purpose, removed once the library is loaded (it stays
mapped; POSIX), so nothing is left behind, a partial file on a full disk included. If that fails
too the next candidate is tried: `$XDG_RUNTIME_DIR`, then the user's cache directory. When none
works, `GroupUnavailable` (an `ImportError`) says what was tried and what to do; the command-line
entry point prints it as one line.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import itertools
import logging
import os
import re
import secrets
import shutil
import struct
import sys
import tempfile
import threading
import types
from collections import OrderedDict, deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from types import ModuleType
from typing import Final, Literal, NewType, cast

from protocol.crypto.errors import InvalidPoint, InvalidScalar
from protocol.crypto.randomness import SYSTEM, RandomSource
from protocol.errors import GroupUnavailable

Point = NewType("Point", bytes)
"""The canonical 32-byte encoding of a ristretto255 element (the identity only internally)."""

L: Final[int] = 2**252 + 27742317777372353535851937790883648493
"""Order of ristretto255 (prime), the modulus of every scalar."""

FIELD_P: Final[int] = 2**255 - 19
POINT_BYTES: Final[int] = 32
SCALAR_BYTES: Final[int] = 32
HASH_BYTES: Final[int] = 64
"""Input length of `from_hash` (RFC 9496's one-way map takes 64 uniform bytes)."""


def _library_dirs() -> list[str]:
    """Where rbcl may write its copy of libsodium, in order of preference."""
    dirs = [tempfile.gettempdir()]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        dirs.append(runtime)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    dirs.append(os.path.join(cache, "skyjo-lan"))
    return dirs


def cache_dir(platform: str | None = None) -> str:
    """The folder of the cached libsodium copy (see the module docstring)."""
    platform = sys.platform if platform is None else platform
    base = os.environ.get("XDG_CACHE_HOME")
    if base:
        return os.path.join(base, "skyjo-lan", "libsodium")
    if platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
        return os.path.join(local, "skyjo-lan", "Cache", "libsodium")
    if platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Caches", "skyjo-lan", "libsodium")
    return os.path.join(os.path.expanduser("~"), ".cache", "skyjo-lan", "libsodium")


_HEX = re.compile(rb"bytes\.fromhex\('([0-9a-fA-F]+)'\)")


def _rbcl_library() -> tuple[str, str] | None:
    """(rbcl's module that holds libsodium, the name of its copy in the cache), without importing
    rbcl; None when rbcl is not laid out as this code knows."""
    spec = importlib.util.find_spec("rbcl")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = next(iter(spec.submodule_search_locations))
    source = os.path.join(package, "_sodium.py")
    try:
        version = _installed_version(package)
        size = os.stat(source).st_size
    except OSError:
        return None
    if version is None:
        return None
    suffix = ".dll" if sys.platform == "win32" else ".so"
    return source, f"libsodium-rbcl-{version}-{size}{suffix}"


def _installed_version(package: str) -> str | None:
    """rbcl's version, from the name of its one `.dist-info` beside `package` (what
    `importlib.metadata.version` reads, without importing it at every start); else (another
    layout, or a stale `.dist-info` left beside the right one) from `importlib.metadata`; None
    when rbcl is not installed."""
    found = [
        name[len("rbcl-") : -len(".dist-info")]
        for name in os.listdir(os.path.dirname(package))
        if name.startswith("rbcl-") and name.endswith(".dist-info")
    ]
    if len(found) == 1:
        return found[0]
    import importlib.metadata

    try:
        return importlib.metadata.version("rbcl")
    except importlib.metadata.PackageNotFoundError:
        return None


def _cached_library(folder: str | None = None) -> str:
    """The path of this user's copy of rbcl's libsodium, made on first use. Raises OSError when it
    cannot be made (or rbcl is not laid out as known: `FileNotFoundError`)."""
    found = _rbcl_library()
    if found is None:
        raise FileNotFoundError("rbcl's libsodium module is not where it was expected")
    source, name = found
    folder = cache_dir() if folder is None else folder
    path = os.path.join(folder, name)
    if os.path.isfile(path):
        return path
    with open(source, "rb") as handle:
        match = _HEX.search(handle.read())
    if match is None:
        raise FileNotFoundError(f"no library in {source}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".partial-", suffix=name, dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(bytes.fromhex(match.group(1).decode("ascii")))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o700)
        try:
            os.replace(tmp, path)
        except OSError:
            if not os.path.isfile(path):  # not another start that made it first (Windows: in use)
                raise
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _load_cached(tried: list[str]) -> ModuleType | None:
    """Import rbcl with its libsodium loaded from the cached copy; None (and why, in `tried`)
    when that cannot be done."""
    folder = cache_dir()
    try:
        path = _cached_library(folder)
        try:
            library = ctypes.CDLL(path)
        except OSError:  # a damaged copy: made again, once
            os.unlink(path)
            library = ctypes.CDLL(_cached_library(folder))
    except OSError as exc:
        tried.append(f"{folder}: {exc.strerror or exc}")
        return None
    holder = types.ModuleType("rbcl._sodium")
    holder._sodium = library  # type: ignore[attr-defined]  # what rbcl.rbcl imports from it
    sys.modules["rbcl._sodium"] = holder
    try:
        return importlib.import_module("rbcl")
    except (ImportError, OSError, AttributeError) as exc:
        tried.append(f"{path}: {exc}")
        for name in [m for m in sys.modules if m == "rbcl" or m.startswith("rbcl.")]:
            del sys.modules[name]
        return None


def _load_rbcl() -> ModuleType:
    """Import rbcl with libsodium from the cached copy, else its own way with its temporary copy
    removed (see the module docstring)."""
    tried: list[str] = []
    cached = _load_cached(tried)
    if cached is not None:
        return cached
    for base in _library_dirs():
        try:
            os.makedirs(base, mode=0o700, exist_ok=True)
            workdir = tempfile.mkdtemp(prefix="skyjo-lan-sodium-", dir=base)
        except OSError as exc:
            tried.append(f"{base}: {exc.strerror or exc}")
            continue
        saved, tempfile.tempdir = tempfile.tempdir, workdir
        try:
            return importlib.import_module("rbcl")
        except OSError as exc:  # the copy could not be written or loaded from there
            tried.append(f"{base}: {exc.strerror or exc}")
            for name in [m for m in sys.modules if m == "rbcl" or m.startswith("rbcl.")]:
                del sys.modules[name]
        finally:
            tempfile.tempdir = saved
            shutil.rmtree(workdir, ignore_errors=True)
    raise GroupUnavailable(
        "cannot load libsodium (rbcl writes it to a temporary file and runs it from there); tried "
        + "; ".join(tried)
        + ". Free some space or set TMPDIR to a writable directory that allows programs to run."
    )


rbcl = _load_rbcl()


# rbcl ships no type information: the signatures are stated here, once.
_add: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_add
_sub: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_sub
_is_valid_point: Callable[[bytes], bool] = rbcl.crypto_core_ristretto255_is_valid_point
_from_hash: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_from_hash
_scalarmult: Callable[[bytes, bytes], bytes] = rbcl.crypto_scalarmult_ristretto255
_scalarmult_base: Callable[[bytes], bytes] = rbcl.crypto_scalarmult_ristretto255_base
_scalar_add: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_add
_scalar_sub: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_sub
_scalar_mul: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_mul


IDENTITY: Final[Point] = Point(bytes(POINT_BYTES))
"""The neutral element, encoded as 32 zero bytes. Never valid on the wire; may appear in sums."""

BASE: Final[Point] = Point(_scalarmult_base((1).to_bytes(SCALAR_BYTES, "little")))
"""The generator G of ristretto255 (encoding e2f2ae0a ... 08d2d76, RFC 9496, Appendix A.1)."""


@dataclass
class OpCounter:
    """Counts the group operations, so benchmarks can report multiplications per card.

    `var_mul` and `base_mul` count the multiplications of the algorithms (by a point other than
    G, by G) whichever code does them: libsodium, or the compiled constant-time path of the
    prover (`mul_fixed_secret`, `lincomb_secret`), which also counts them in `secret_mul` and
    `secret_terms`. The public multi-scalar multiplication counts its calls and terms only.
    """

    var_mul: int = 0
    base_mul: int = 0
    add: int = 0
    validate: int = 0
    from_hash: int = 0
    msm: int = 0
    msm_terms: int = 0
    secret_mul: int = 0
    secret_terms: int = 0

    def reset(self) -> None:
        """Set every counter back to zero."""
        for f in fields(self):
            setattr(self, f.name, 0)

    def snapshot(self) -> dict[str, int]:
        """Current counts, by operation name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


OPS: Final[OpCounter] = OpCounter()
"""Process-wide operation counter (cheap: one integer increment per libsodium call)."""


# --- scalars -----------------------------------------------------------------------------------


def random_scalar(*, rng: RandomSource = SYSTEM) -> int:
    """A uniform secret scalar in [1, L), from `rng` (never zero, so G*k is never the identity).

    One draw: `rng.randbelow(L - 1) + 1`.
    """
    return system_or(rng, secrets).randbelow(L - 1) + 1


def random_scalars(count: int, *, rng: RandomSource = SYSTEM) -> list[int]:
    """`count` independent uniform secret scalars in [1, L): `random_scalar` drawn `count` times.

    From the system's generator (`rng` is `SYSTEM` and `secrets` is the module itself) they are
    cut from one `secrets.token_bytes` call instead of one or two `os.urandom` calls each: 32
    bytes a candidate, its top 3 bits cleared, kept when it lies in [1, L) (about half do; the
    others are drawn again), so each is uniform in [1, L) as `randbelow(L - 1) + 1` is, by the
    same kind of rejection `randbelow` makes. Any other source (a test's stand-in, a vector's
    stream) gets its `count` draws of `random_scalar`, in order, as always.
    """
    source = system_or(rng, secrets)
    if source is not _SYSTEM_SECRETS:
        return [source.randbelow(L - 1) + 1 for _ in range(count)]
    out: list[int] = []
    while len(out) < count:
        # twice the candidates needed and a few more: one call almost always suffices
        raw = _SYSTEM_SECRETS.token_bytes(SCALAR_BYTES * (2 * (count - len(out)) + 8))
        candidates = map(_SCALAR_MASK.__and__, map(int.from_bytes, _chunks(raw, SCALAR_BYTES), LITTLE))
        out += [k for k in candidates if 0 < k < L]
    del out[count:]
    return out


_SYSTEM_SECRETS: Final[ModuleType] = secrets
"""The `secrets` module itself (tests replace the name `secrets` here with seeded stand-ins)."""

_SCALAR_MASK: Final[int] = (1 << 253) - 1
"""The 253 low bits: L is just above 2^252, so a candidate below 2^253 is below L about half the time."""


def system_or(rng: RandomSource, module_secrets: RandomSource) -> RandomSource:
    """`rng`, or for `SYSTEM` the `secrets` module as the drawing module names it.

    The default is drawn through the caller's own module attribute `secrets` (not through
    `randomness`) because test stand-ins still replace that attribute in `group`, `shuffle` and
    `coins` (tests/protocol/model.py, tests/protocol/secrecy.py, tools/vectors/);
    unpatched it is the `secrets` module itself, so production draws are unchanged.
    """
    return module_secrets if rng is SYSTEM else rng


def encode_scalar(k: int) -> bytes:
    """32-byte little-endian encoding of a scalar already reduced into [0, L)."""
    if not 0 <= k < L:
        raise InvalidScalar("scalar out of range [0, L)")
    return k.to_bytes(SCALAR_BYTES, "little")


def decode_scalar(data: object) -> int:
    """Decode a received scalar: exactly 32 bytes, little-endian, strictly below L.

    Out-of-range values are rejected, not reduced, so every scalar has exactly one encoding and a
    proof cannot be re-encoded into a different but still valid byte string.
    """
    if not isinstance(data, bytes):
        raise InvalidScalar(f"scalar must be bytes, got {type(data).__name__}")
    if len(data) != SCALAR_BYTES:
        raise InvalidScalar(f"scalar must be {SCALAR_BYTES} bytes, got {len(data)}")
    k = int.from_bytes(data, "little")
    if k >= L:
        raise InvalidScalar("scalar is not reduced modulo L")
    return k


def _scalar_bytes(k: int) -> bytes:
    return (k % L).to_bytes(SCALAR_BYTES, "little")


def scalar_add(a: int, b: int) -> int:
    """(a + b) mod L for a SECRET operand, by libsodium's fixed-length scalar code.

    Python's own `+` and `%` run in time that depends on the operands' values; libsodium's
    `crypto_core_ristretto255_scalar_add` works on 32-byte buffers in constant time. What is left
    variable is the conversion between `int` and bytes at both ends, which depends only on the
    integers' lengths (see docs/crypto.md, "Secret scalars"). Public operands need not use this.
    """
    return int.from_bytes(_scalar_add(_scalar_bytes(a), _scalar_bytes(b)), "little")


def scalar_mul(a: int, b: int) -> int:
    """(a * b) mod L for a SECRET operand (libsodium's `crypto_core_ristretto255_scalar_mul`)."""
    return int.from_bytes(_scalar_mul(_scalar_bytes(a), _scalar_bytes(b)), "little")


def scalar_sub(a: int, b: int) -> int:
    """(a - b) mod L for a SECRET operand (libsodium's `crypto_core_ristretto255_scalar_sub`)."""
    return int.from_bytes(_scalar_sub(_scalar_bytes(a), _scalar_bytes(b)), "little")


def scalar_dot(a: Iterable[int], b: Iterable[int]) -> int:
    """sum(a_i * b_i) mod L for SECRET operands, accumulated in libsodium's 32-byte form (with the
    compiled extension, in its constant-time scalar code: `scalars_muladd`)."""
    if _msm is not None:
        xs, ys = list(a), list(b)
        if len(xs) != len(ys):
            raise ValueError("scalar_dot of vectors of different lengths")
        if not xs:
            return 0
        return int.from_bytes(_msm.sc_dot(_scalars_bytes(xs), _scalars_bytes(ys)), "little")
    acc = bytes(SCALAR_BYTES)
    for x, y in zip(a, b, strict=True):
        acc = _scalar_add(acc, _scalar_mul(_scalar_bytes(x), _scalar_bytes(y)))
    return int.from_bytes(acc, "little")


def _scalars_bytes(values: Sequence[int]) -> bytes:
    return b"".join(map(int.to_bytes, [k % L for k in values], _SCALAR_LENGTHS, LITTLE))


def _scalars_from(data: bytes) -> list[int]:
    return list(map(int.from_bytes, _chunks(data, SCALAR_BYTES), LITTLE))


_SCALAR_LENGTHS: Final[itertools.repeat[int]] = itertools.repeat(SCALAR_BYTES)
LITTLE: Final[itertools.repeat[Literal["little"]]] = itertools.repeat("little")
"""Endless byte-order arguments of `int.to_bytes` / `int.from_bytes` for `map` (with
`_SCALAR_LENGTHS`: every scalar 32 bytes, little-endian): a list converted at C speed, without a
Python loop (also for hashing's and shuffle's digests)."""


def _chunks(data: bytes, size: int) -> list[bytes]:
    """`data` cut into strings of `size` bytes (its length a multiple of `size`), in order."""
    # a Struct of its own, not `struct.unpack`'s cache of compiled formats, which would keep up to
    # 100 of these (a few hundred kB each for thousands of points)
    return list(struct.Struct(f"{size}s" * (len(data) // size)).unpack(data))


def scalars_muladd(a: int | Sequence[int], b: Sequence[int], c: Sequence[int] | None = None) -> list[int]:
    """[(a_i * b_i + c_i) mod L for each i] for SECRET operands; `a` may be one scalar for every i
    (a challenge), `c` None for zero. With the compiled extension, one call of its constant-time
    Montgomery arithmetic (`_msm.sc_muladd`) instead of two libsodium calls a scalar; the same
    integers either way."""
    n = len(b)
    if isinstance(a, int):
        a = [a] * n if _msm is None else [a]
    elif len(a) != n:
        raise ValueError("scalars_muladd of vectors of different lengths")
    if c is not None and len(c) != n:
        raise ValueError("scalars_muladd of vectors of different lengths")
    if n == 0:
        return []
    if _msm is None:
        if c is None:
            return [scalar_mul(x, y) for x, y in zip(a, b, strict=True)]
        return [scalar_muladd(x, y, z) for x, y, z in zip(a, b, c, strict=True)]
    out = _msm.sc_muladd(_scalars_bytes(a), _scalars_bytes(b), b"" if c is None else _scalars_bytes(c))
    return _scalars_from(out)


def scalar_chain(u: Sequence[int], r: Sequence[int]) -> tuple[list[int], list[int]]:
    """(a_1..a_n, b_1..b_n) with a_i = u_i a_{i-1}, b_i = u_i b_{i-1} + r_i mod L, a_0 = 1, b_0 = 0,
    for SECRET operands (a shuffle proof's commitment chain, unrolled); constant time as
    `scalars_muladd`."""
    if len(u) != len(r):
        raise ValueError("scalar_chain of vectors of different lengths")
    if _msm is None or not u:
        a, b = [1], [0]
        for x, y in zip(u, r, strict=True):
            a.append(scalar_mul(x, a[-1]))
            b.append(scalar_muladd(x, b[-1], y))
        return a[1:], b[1:]
    out = _scalars_from(_msm.sc_chain(_scalars_bytes(u), _scalars_bytes(r)))
    return out[: len(u)], out[len(u) :]


def scalar_muladd(a: int, b: int, c: int) -> int:
    """(a * b + c) mod L, the response of a sigma protocol (s = w + e x), in libsodium's code."""
    product = _scalar_mul(_scalar_bytes(a), _scalar_bytes(b))
    return int.from_bytes(_scalar_add(product, _scalar_bytes(c)), "little")


# --- points ------------------------------------------------------------------------------------


def decode_point(data: object) -> Point:
    """Validate a point received from outside and return it typed as `Point`.

    Rejects (with `InvalidPoint` and a reason): anything but 32 `bytes`; the identity (32 zero
    bytes); a non-canonical field element (s >= 2^255 - 19, the top bit included); a negative one
    (s odd); any other string that RFC 9496's decoding refuses (Section 4.3.1). The cost is one
    `crypto_core_ristretto255_is_valid_point` call (~4 us), paid once per received point.
    """
    if not isinstance(data, bytes):
        raise InvalidPoint(f"point must be bytes, got {type(data).__name__}")
    if len(data) != POINT_BYTES:
        raise InvalidPoint(f"point must be {POINT_BYTES} bytes, got {len(data)}")
    if data == IDENTITY:
        raise InvalidPoint("the identity point is not allowed")
    s = int.from_bytes(data, "little")
    if s >= FIELD_P:
        raise InvalidPoint("non-canonical point encoding (s >= 2^255 - 19)")
    if s & 1:
        raise InvalidPoint("non-canonical point encoding (s is negative, i.e. odd)")
    OPS.validate += 1
    if _is_valid_point(data):
        return Point(data)
    raise InvalidPoint("bytes are not a ristretto255 encoding (RFC 9496 decoding fails)")


def is_identity(p: Point) -> bool:
    """True for the neutral element."""
    return p == IDENTITY


def _refused_operand(*points: Point) -> InvalidPoint | None:
    """After an identity result of add/sub: the error if an operand does not decode (rbcl hides it)."""
    for p in points:
        if len(p) != POINT_BYTES or not _is_valid_point(p):
            return InvalidPoint("bytes are not a ristretto255 encoding (refused in a point addition)")
    return None


def add(p: Point, q: Point) -> Point:
    """p + q (the identity is a valid operand)."""
    OPS.add += 1
    try:
        r = _add(p, q)
    except (TypeError, ValueError) as exc:
        raise InvalidPoint("point must be 32 bytes (refused in a point addition)") from exc
    if r == IDENTITY and (error := _refused_operand(p, q)) is not None:
        raise error
    return Point(r)


def sub(p: Point, q: Point) -> Point:
    """p - q."""
    OPS.add += 1
    try:
        r = _sub(p, q)
    except (TypeError, ValueError) as exc:
        raise InvalidPoint("point must be 32 bytes (refused in a point subtraction)") from exc
    if r == IDENTITY and (error := _refused_operand(p, q)) is not None:
        raise error
    return Point(r)


def neg(p: Point) -> Point:
    """-p."""
    return sub(IDENTITY, p)


def mul_base(k: int) -> Point:
    """k*G with libsodium's fixed-base tables (~12 us, three times cheaper than `mul`)."""
    k %= L
    if k == 0:
        return IDENTITY
    OPS.base_mul += 1
    return Point(_scalarmult_base(k.to_bytes(SCALAR_BYTES, "little")))


def mul(k: int, p: Point) -> Point:
    """k*p for any point p of the group (variable base, ~37 us; uses `mul_base` when p is G).

    libsodium decodes p again on every call; a string that does not decode raises `InvalidPoint`,
    which only happens for data that skipped `decode_point`.
    """
    k %= L
    if k == 0 or p == IDENTITY:
        return IDENTITY
    if k == 1:
        return p
    if p == BASE:
        return mul_base(k)
    OPS.var_mul += 1
    try:
        return Point(_scalarmult(k.to_bytes(SCALAR_BYTES, "little"), p))
    except (RuntimeError, TypeError, ValueError) as exc:
        raise InvalidPoint("libsodium refused the point in a scalar multiplication") from exc


def point_sum(points: Iterable[Point]) -> Point:
    """Sum of points (the identity for an empty iterable)."""
    acc = IDENTITY
    first = True
    for p in points:
        if first:
            acc, first = p, False
        else:
            acc = add(acc, p)
    return acc


def lincomb(terms: Iterable[tuple[int, Point]]) -> Point:
    """sum(k_i * P_i), with as few libsodium calls as the terms allow.

    libsodium has no multi-scalar multiplication, so each distinct point costs one multiplication
    and one addition. This helper merges terms that share a point (adding their scalars in Python),
    sends every multiple of G to the fixed-base table in a single call, and drops zero scalars and
    identity points. Merging is what makes, e.g., the first shuffle of the public deck cheap: all its
    c1 components are G. The scalars are public (verifier coefficients, challenges, responses).
    """
    g_coef = 0
    coefs: dict[Point, int] = {}
    for k, p in terms:
        if p == BASE:
            g_coef += k
        elif p != IDENTITY:
            coefs[p] = coefs.get(p, 0) + k
    acc = mul_base(g_coef)
    for p, k in coefs.items():
        term = mul(k, p)
        if term == IDENTITY:
            continue
        acc = term if acc == IDENTITY else add(acc, term)
    return acc


def lincomb_public(terms: Iterable[tuple[int, Point]]) -> Point:
    """sum(k_i * P_i) for PUBLIC scalars only: verification equations, never a secret.

    With the compiled extension (`protocol.crypto._msm`, see `backend`) the sum is one
    multi-scalar multiplication in variable time (Straus's method for a few terms, Pippenger's
    bucket method for many), whose running time depends on the scalars: safe for challenges,
    responses read from the wire and verifier coefficients, which every observer may know, and
    NEVER for a key, a nonce or re-encryption randomness (provers use `lincomb`, which keeps
    libsodium's constant-time multiplications). Without the extension this is `lincomb`, and the
    two give the same encoding bit for bit.

    Terms sharing a point are merged, zero scalars and identity points dropped, as in `lincomb`.
    Every remaining point is decoded again by the extension, which refuses exactly what
    `decode_point` refuses, with `decode_point`'s error.
    """
    if _msm is None:
        if _missing.get("reason"):
            _LOG.warning(
                "the compiled multi-scalar multiplication is not built (%s): proofs are checked by "
                "the slower pure-Python path; reinstall with a C compiler present to build it",
                _missing.pop("reason"),
            )
        return lincomb(terms)
    coefs: dict[Point, int] = {}
    get = coefs.get
    for k, p in terms:
        coefs[p] = get(p, 0) + k
    coefs.pop(IDENTITY, None)
    scalars, points = nonzero_terms(coefs)
    if not points:
        return IDENTITY
    if len(points) == 1 and points[0] == BASE:
        return mul_base(scalars[0])
    return msm_public_vartime(scalars, points)


def nonzero_terms(coefs: Mapping[Point, int]) -> tuple[list[int], list[Point]]:
    """The terms of a merged sum (point -> coefficient, not reduced) as two parallel lists, each
    coefficient reduced mod L, the terms whose coefficient is then zero dropped."""
    scalars = list(map(L.__rmod__, coefs.values()))  # k % L of each, at C speed
    if 0 not in scalars:  # (the common case: a zero is a coincidence or a cancelled point)
        return scalars, list(coefs)
    kept = [(k, p) for k, p in zip(scalars, coefs, strict=True) if k]
    return [k for k, _ in kept], [p for _, p in kept]


def lincomb_public_terms(
    scalars: Sequence[int],
    points: Sequence[Point],
    *,
    reduced: bool = False,
    forms: Mapping[Point, bytes] | None = None,
) -> Point:
    """sum(scalars[i] * points[i]) for PUBLIC scalars, as `lincomb_public`, from two parallel lists.

    For a verifier that has already gathered one coefficient per point (points may repeat: a
    repeated point is simply two terms of the same sum): the terms go to the multi-scalar
    multiplication as they are, without `lincomb_public`'s merging dictionary, which costs more
    than the repeated terms it would save. Identity points are dropped. Without the extension this
    is `lincomb` of the pairs (which merges them), and gives the same encoding bit for bit.
    `reduced=True` when every scalar is already in [0, L) (not reduced again). `forms`: decoded
    forms kept by the caller (`kept_forms`), as for `msm_public_vartime`.
    """
    if len(scalars) != len(points):
        raise ValueError("one scalar per point")
    if IDENTITY in points:
        kept = [(k, p) for k, p in zip(scalars, points, strict=True) if p != IDENTITY]
        scalars, points = [k for k, _ in kept], [p for _, p in kept]
    if _msm is None:
        return lincomb_public(zip(scalars, points, strict=True))
    if not points:
        return IDENTITY
    return msm_public_vartime(scalars, points, reduced=reduced, forms=forms)


def msm_public_vartime(
    scalars: Sequence[int],
    points: Sequence[Point],
    *,
    reduced: bool = False,
    forms: Mapping[Point, bytes] | None = None,
) -> Point:
    """sum(scalars[i] * points[i]) by the compiled extension, in VARIABLE TIME: public scalars only.

    Each point must be what `decode_point` accepts (the identity included in the refusals) and
    raises `decode_point`'s own `InvalidPoint` otherwise; scalars are reduced mod L. Returns the
    canonical encoding (`IDENTITY` for a zero sum). `RuntimeError` when the extension is not
    built (`backend`). A point that `decode_points` decoded is not decoded again: its decoded
    form is taken from that function's store. `reduced=True`: the scalars are already in [0, L)
    (a larger one raises ValueError from the extension or OverflowError). `forms`: decoded forms
    the caller kept (`kept_forms`), taken before the store's.
    """
    if _msm is None:
        raise RuntimeError("the compiled multi-scalar multiplication is not available")
    if len(scalars) != len(points):
        raise ValueError("one scalar per point")
    if not (all(map(isinstance, points, itertools.repeat(bytes))) and set(map(len, points)) <= {POINT_BYTES}):
        for p in points:
            if not isinstance(p, bytes) or len(p) != POINT_BYTES:
                decode_point(p)  # raises the same error as for a received point
    OPS.msm += 1
    OPS.msm_terms += len(points)
    items = _items(points, forms)
    if not reduced:
        scalars = [k % L for k in scalars]
    packed = b"".join(map(int.to_bytes, scalars, _SCALAR_LENGTHS, LITTLE))
    return _extension_sum(_msm.lincomb_public_vartime, packed, items, points)


def _items(points: Sequence[Point], forms: Mapping[Point, bytes] | None) -> list[bytes]:
    """For the extension's sums: each point's decoded form if `forms` or the store holds it, else
    its encoding (decoded, and checked, by the extension)."""
    with _decoded_lock:
        if not forms:
            return list(map(_decoded.get, points, points))
        found = _decoded.get
        kept = forms.get
        return [kept(p) or found(p, p) for p in points]


def kept_forms(points: Sequence[Point]) -> dict[Point, bytes]:
    """The decoded forms the store (`decode_points`) holds now of `points` (those it holds; none
    without the extension): for a check put off past the time the store keeps them, so that its
    sum does not decode them again (`msm_public_vartime`'s `forms`)."""
    if _msm is None:
        return {}
    with _decoded_lock:
        forms = list(map(_decoded.get, points))
    out = dict(zip(points, forms, strict=True))
    if None in forms:
        return {p: form for p, form in out.items() if form is not None}
    return cast("dict[Point, bytes]", out)


def _extension_sum(
    call: Callable[[bytes, list[bytes]], bytes], packed: bytes, items: list[bytes], points: Sequence[Point]
) -> Point:
    """`call(packed, items)`, one of the extension's public sums; a point it refuses (its error
    names the index) raises `decode_point`'s own error for that point."""
    try:
        result = call(packed, items)
    except ValueError as exc:
        if len(exc.args) == 2 and exc.args[0] == "invalid point":
            decode_point(points[exc.args[1]])  # raises decode_point's reason for that point
            raise InvalidPoint("bytes are not a ristretto255 encoding (RFC 9496 decoding fails)") from exc
        raise
    return Point(result)


def decode_points(items: Sequence[object]) -> list[Point]:
    """`decode_point` of every item, in order, with the same result and the same error.

    With the compiled extension the items are checked by one call of its RFC 9496 decoder (the
    same refusals as `decode_point`, which is asked for the exact reason of the first refused
    item, so the error is the one `decode_point` gives), and each decoded form is kept (at most
    `DECODED_KEPT`, the oldest dropped first) for the multi-scalar multiplications that will use
    the point: a received point is decoded once, not once on receipt and again in the sum. Every
    call decodes all its items (a point already kept is validated again: sessions of one process,
    a host's bot seats, each validate what they receive, as separate peers do).
    Without the extension, this is `decode_point` of each item.
    """
    module = _msm
    if module is None:
        return [decode_point(p) for p in items]
    # the type and length checks and the decoding in one call, which gives each point's form as a
    # string of its own (a verify decodes 1,400 share batches of three points)
    forms: list[bytes] | None = module.decode_list(items)
    if forms is None:
        for p in items:
            decode_point(p)  # raises the first refused item's own error
        raise InvalidPoint("bytes are not a ristretto255 encoding (RFC 9496 decoding fails)")
    OPS.validate += len(forms)
    points = cast("list[Point]", list(items))  # checked: 32-byte bytes, valid encodings
    _keep_forms(points, forms)
    return points


def _store_forms(points: Sequence[Point], forms: bytes, size: int) -> None:
    """Keep the decoded forms (`forms`, `size` bytes each) of `points` as the newest of the store."""
    kept = points[-DECODED_KEPT:]
    start = (len(points) - len(kept)) * size
    _keep_forms(kept, _chunks(forms[start:] if start else forms, size))


def _keep_forms(points: Sequence[Point], forms: Sequence[bytes]) -> None:
    """Keep `forms[i]`, the decoded form of `points[i]`, as the newest of the store (at most
    `DECODED_KEPT` in all: the oldest go first; a point the store holds keeps its place)."""
    if len(points) > DECODED_KEPT:
        points, forms = points[-DECODED_KEPT:], forms[-DECODED_KEPT:]
    with _decoded_lock:
        # the oldest go first, by `popitem` (a plain dict's oldest keys were found by iterating
        # from its start, over every slot deleted before: slower as the store turned)
        excess = len(_decoded) + len(points) - DECODED_KEPT
        if excess > 0:
            if excess >= len(_decoded):
                _decoded.clear()
            else:  # `popitem(last=False)` `excess` times, the loop run by C
                _drain(map(_decoded.popitem, itertools.repeat(False, excess)))
        _decoded.update(zip(points, forms, strict=True))


def forget_decoded() -> None:
    """Drop every decoded form `decode_points`' store holds: called when a round ends (every seat
    signed it, so every sum of the round has run).

    A round's received points are not used by a later round's sums: a deal verifies its own
    shuffles, a flip its own shares, and a check put off (`skyjo-lan verify`) keeps its own
    forms. Kept, they only filled the store (up to `DECODED_KEPT`, about 2.4 MB) over a game's
    first rounds, so a peer's memory rose until round 3 or 4 instead of being flat after round 1
    (issue 29, point 5). The points `keep_decoded` was given during the round (G, the
    generators, the joint key: every deal's) stay, so the next deal does not decode them again;
    those not given again in the next round go at its end. Sessions of one process (a host's
    bot seats) share the store: one that ends its round first may drop forms another still
    uses; those points are then decoded again by the sum (the extension decodes an encoding it
    is given), with the same result.
    """
    with _decoded_lock:
        lasting = {p: form for p in _lasting if (form := _decoded.get(p)) is not None}
        _decoded.clear()
        _decoded.update(lasting)
        _lasting.clear()


def keep_decoded(points: Sequence[Point]) -> None:
    """Make the decoded forms of `points` (valid points used in many sums: the generators, G, the
    joint key) the newest of `decode_points`' store, decoding those it does not hold, so that
    the sums of the next deal find them all. Without the extension, nothing."""
    if _msm is None:
        return
    with _decoded_lock:
        _lasting.update(dict.fromkeys(points))
        known = {p: _decoded.pop(p) for p in points if p in _decoded}
    missing = [p for p in points if p not in known]
    if missing:
        decode_points(missing)
    with _decoded_lock:
        _decoded.update(known)


def _forms_or_encodings(points: Sequence[Point]) -> bytes:
    """The points' kept decoded forms, joined, if the store holds all of them; else their encodings
    (the constant-time functions of the extension take either, and decode the encodings)."""
    with _decoded_lock:
        forms = list(map(_decoded.get, points))
    if None in forms:
        return b"".join(points)
    return b"".join(cast("list[bytes]", forms))


DECODED_KEPT: Final[int] = 8192
"""How many decoded forms `decode_points` keeps (about 2.4 MB with the keys and the dict): an 8-peer
deal receives about 5,300 points, each used by a later sum of the shuffle verifier; the seats of
one process (a host with bot seats) receive the same ones."""

_decoded: OrderedDict[Point, bytes] = OrderedDict()
_lasting: Final[dict[Point, None]] = {}
"""The points given to `keep_decoded` since the last round's end (`forget_decoded` keeps them)."""
_drain: Final[Callable[[Iterable[object]], None]] = deque[object](maxlen=0).extend
"""Runs an iterator to its end, keeping nothing."""
_decoded_lock = threading.Lock()


# --- the prover's path: SECRET scalars, constant time -------------------------------------------


def _fixed_table(p: Point) -> bytes:
    """The compiled extension's table of p (cached for a few points: G, h, the joint key)."""
    assert _msm is not None
    return _kept_table(_fixed_tables, FIXED_TABLES_KEPT, _msm.fixed_table, p)


def _kept_table(kept: dict[Point, bytes], limit: int, make: Callable[[Point], bytes], p: Point) -> bytes:
    """`make(p)`, one of the extension's precomputed tables of p, kept in `kept` (at most `limit`:
    all are dropped when it is full, since the points worth keeping come back at once); a point
    the extension refuses raises `decode_point`'s own error."""
    table = kept.get(p)
    if table is None:
        if not isinstance(p, bytes) or len(p) != POINT_BYTES:
            decode_point(p)  # the same error as for a received point
        try:
            table = make(p)
        except ValueError as exc:
            decode_point(p)
            raise InvalidPoint("bytes are not a ristretto255 encoding (RFC 9496 decoding fails)") from exc
        if len(kept) >= limit:
            kept.clear()
        kept[p] = table
    return table


FIXED_TABLES_KEPT: Final[int] = 8
"""Tables kept by `mul_fixed_secret` (40 kB each): G, h and the joint keys of the last games."""

_fixed_tables: dict[Point, bytes] = {}


def mul_fixed_secret(
    bases: Sequence[Point], scalars: Sequence[Sequence[int]], addends: Sequence[Point] = ()
) -> list[Point]:
    """[sum_t scalars[t][i] * bases[t] (+ addends[i]) for each i], for SECRET scalars.

    For bases used many times (G, the chain generator h, the joint key): with the compiled
    extension each sum is its constant-time fixed-base multiplication over a table of the base
    (Bernstein et al., "High-speed high-security signatures", 2012, section 4: signed radix 16,
    each table entry chosen by conditional moves), with no branch or memory index depending on a
    scalar; without it, libsodium's own multiplications (`lincomb`). Both give the same encoding
    bit for bit. 1 to 4 bases; the addends, when given, are public points (one per sum).
    """
    count = len(scalars[0]) if scalars else 0
    if not 1 <= len(bases) <= 4 or len(scalars) != len(bases) or any(len(s) != count for s in scalars):
        raise ValueError("1 to 4 bases, the same number of scalars for each")
    if addends and len(addends) != count:
        raise ValueError("one addend per sum")
    if _msm is None:
        return [
            lincomb(
                [
                    *((s[i], b) for b, s in zip(bases, scalars, strict=True)),
                    *([(1, addends[i])] if addends else []),
                ]
            )
            for i in range(count)
        ]
    OPS.secret_mul += count * len(bases)
    for b in bases:
        if b == BASE:
            OPS.base_mul += count
        else:
            OPS.var_mul += count
    out: bytes = _msm.mul_fixed_ct(
        tuple(_fixed_table(b) for b in bases),
        tuple(_scalars_bytes(s) for s in scalars),
        _forms_or_encodings(addends) if addends else b"",
    )
    return cast("list[Point]", _chunks(out, POINT_BYTES))


def mul_fixed_secret_forms(base: Point, scalars: Sequence[int]) -> bytes | None:
    """[k * base for k in scalars] for SECRET scalars, left in the extension's own form (unencoded),
    for `add_secret_forms`; None without the extension (then use `mul_fixed_secret`).

    The constant-time fixed-base multiplication of `mul_fixed_secret`, without the final encoding
    (an inverse square root per point): the encryptions of zero of a prepared shuffle are only
    ever added to the deck's ciphertexts, so they are never encoded at all.
    """
    if _msm is None:
        return None
    OPS.secret_mul += len(scalars)
    if base == BASE:
        OPS.base_mul += len(scalars)
    else:
        OPS.var_mul += len(scalars)
    forms: bytes = _msm.mul_fixed_ct((_fixed_table(base),), (_scalars_bytes(scalars),), b"", True)
    return forms


def add_secret_forms(forms: bytes, points: Sequence[Point]) -> list[Point]:
    """[S_i + points[i]] encoded, where the S_i are SECRET forms from `mul_fixed_secret_forms` and
    the points public (kept decoded forms are used); constant time in the S_i. Needs the extension.
    """
    module = _msm or _msm_module  # the forms exist only if it is built (switched off since: tests)
    assert module is not None
    OPS.add += len(points)
    with _decoded_lock:
        items = list(map(_decoded.get, points, points))
    try:
        out, sums = module.add_ct(forms, items, True)
    except ValueError as exc:
        if len(exc.args) == 2 and exc.args[0] == "invalid point":
            decode_point(points[exc.args[1]])
            raise InvalidPoint("bytes are not a ristretto255 encoding (RFC 9496 decoding fails)") from exc
        raise
    results = cast("list[Point]", _chunks(out, POINT_BYTES))
    if IDENTITY not in results:  # the sums' forms, kept for the sums that will use them (public)
        _store_forms(results, sums, module.DECODED_SIZE)
    return results


def add_pairs(a: Sequence[Point], b: Sequence[Point]) -> list[Point]:
    """[a_i + b_i for each i], as `add` of each pair (the same encodings, the same errors), for
    valid points. With the extension: one call, each point decoded once (kept forms are used),
    the sums encoded, and their forms kept for the sums that will take them (the public deck
    M_k + Y is the first shuffle's input); libsodium's addition decodes both operands a call."""
    if len(a) != len(b):
        raise ValueError("add_pairs of lists of different lengths")
    module = _msm
    if module is None or not a:
        return [add(p, q) for p, q in zip(a, b, strict=True)]
    forms = _forms_or_encodings(a)
    if len(forms) != len(a) * module.DECODED_SIZE:
        try:
            forms = module.decode_points(forms)
        except ValueError:
            return [add(p, q) for p, q in zip(a, b, strict=True)]  # add's own error
    return add_secret_forms(forms, b)


def lincomb_secret(terms: Sequence[tuple[int, Point]]) -> Point:
    """sum(k_i * P_i) for SECRET scalars and public points (a prover's commitment).

    Terms that share a point are merged first (their scalars added by `scalar_add`, libsodium's
    constant-time code: which points are equal is public), zero-free: then, with the compiled
    extension, one constant-time Straus multiplication (the selection of `mul_fixed_secret`, a
    table of 8 multiples per point); without it, `lincomb` (libsodium's multiplications). The
    same encoding either way.
    """
    if _msm is None:
        return lincomb(terms)
    grouped: dict[Point, list[int]] = {}
    for k, p in terms:
        if p != IDENTITY:
            if p in grouped:
                grouped[p].append(k)
            else:
                grouped[p] = [k]
    if not grouped:
        return IDENTITY
    # one scalar per point: a repeated point's scalars (the public deck's c1 = G) summed by the
    # extension's constant-time scalar code in one call (`scalar_dot` with ones), not one
    # libsodium `scalar_add` each: the same sum mod L
    merged = {p: ks[0] % L if len(ks) == 1 else scalar_dot(ks, [1] * len(ks)) for p, ks in grouped.items()}
    OPS.secret_terms += len(merged)
    for p in merged:
        if p == BASE:
            OPS.base_mul += 1
        else:
            OPS.var_mul += 1
    points = list(merged)
    try:
        out: bytes = _msm.lincomb_ct(_scalars_bytes([merged[p] for p in points]), _forms_or_encodings(points))
    except ValueError as exc:
        if len(exc.args) == 2 and exc.args[0] == "invalid point":
            decode_point(points[exc.args[1]])
            raise InvalidPoint("bytes are not a ristretto255 encoding (RFC 9496 decoding fails)") from exc
        raise
    return Point(out)


def backend() -> str:
    """Which code computes verification sums: the compiled extension or the pure-Python path."""
    if _msm is not None:
        return "compiled multi-scalar multiplication"
    if _msm_module is not None or os.environ.get("SKYJO_LAN_NO_EXTENSION"):
        return "pure Python over libsodium, compiled extension switched off"
    return "pure Python over libsodium, no compiled extension"


def msm_available() -> bool:
    """Whether `lincomb_public` runs the compiled multi-scalar multiplication now (a sum of many
    terms then costs much less than one multiplication per point)."""
    return _msm is not None


def use_extension(enabled: bool) -> bool:
    """Switch the compiled extension on or off for this process (tests, benchmarks); returns
    whether it was on. Switching on raises `RuntimeError` when it was not built."""
    global _msm
    was = _msm is not None
    if enabled and _msm_module is None:
        raise RuntimeError("the compiled multi-scalar multiplication is not built")
    _msm = _msm_module if enabled else None
    return was


def _load_extension() -> ModuleType | None:
    """The compiled extension, or None (why goes to `_missing`, logged at the first use)."""
    if os.environ.get("SKYJO_LAN_NO_EXTENSION"):
        return None
    try:
        return importlib.import_module("protocol.crypto._msm")
    except ImportError as exc:
        _missing["reason"] = str(exc)
        return None


_LOG = logging.getLogger("skyjo_lan.crypto")
_missing: dict[str, str] = {"reason": ""}
_msm_module = _load_extension()
_msm: ModuleType | None = _msm_module


def from_hash(data: bytes) -> Point:
    """RFC 9496's one-way map (Section 4.3.4) of 64 uniform bytes to an element (may be the identity).

    libsodium's `crypto_core_ristretto255_from_hash`: the two 32-byte halves each go through the
    Elligator-based MAP, and the two results are added; the output is close to uniform in the group,
    with no known discrete logarithm to any other point.
    """
    if not isinstance(data, bytes) or len(data) != HASH_BYTES:
        raise ValueError(f"from_hash takes exactly {HASH_BYTES} bytes")
    OPS.from_hash += 1
    return Point(_from_hash(data))


def is_valid_point(data: bytes) -> bool:
    """True for the canonical encoding of a non-identity element (what `decode_point` accepts)."""
    try:
        decode_point(data)
    except InvalidPoint:
        return False
    return True


# --- issue 29, the flip: small public sums, a public card's shares -------------------------------

FEW_TERMS: Final[int] = 32
"""Up to this many distinct points, `lincomb_public_few` runs the extension's interleaved wNAF;
beyond, `msm_public_vartime` (Pippenger's buckets, as fast at about 32 full-length scalars and
faster beyond; an 8-seat flip's check is 30 points, 14 of them with 128-bit scalars)."""

PUBLIC_TABLES_KEPT: Final[int] = 64
"""Precomputed tables kept by `lincomb_public_few` (5 kB each): G and the seats' key shares of the
last games."""

_public_tables: dict[Point, bytes] = {}


def _public_table(p: Point) -> bytes:
    """The extension's table of P, 3P, ..., 63P (made once for each lasting point)."""
    assert _msm is not None
    return _kept_table(_public_tables, PUBLIC_TABLES_KEPT, _msm.public_table, p)


def lincomb_public_few(terms: Iterable[tuple[int, Point]], lasting: Collection[Point] = ()) -> Point:
    """`lincomb_public` (the same result, the same errors) for sums of a few terms: PUBLIC scalars
    only (verification), never a secret.

    With the extension, up to `FEW_TERMS` distinct points, the sum is the extension's interleaved
    wNAF (`_msm.c`, "the flip"): each scalar k as the shorter of k and L - k (a batch weight -r
    with r < 2^128 costs half a full one), points decoded by `decode_points` taken in their
    decoded form, and the points of `lasting` (used by many sums: G, the seats' key shares) with
    a table of odd multiples made once and kept. Variable time, safe for public scalars only, as
    `msm_public_vartime`. More terms go to `msm_public_vartime`; without the extension, `lincomb`.
    """
    if _msm is None:
        return lincomb_public(terms)
    coefs: dict[Point, int] = {}
    get = coefs.get
    for k, p in terms:
        coefs[p] = get(p, 0) + k
    return lincomb_public_merged(coefs, lasting)


def lincomb_public_merged(
    coefs: dict[Point, int], lasting: Collection[Point] = (), forms: Mapping[Point, bytes] | None = None
) -> Point:
    """`lincomb_public_few` of the terms (k, p) for p, k in `coefs.items()` (a sum whose terms
    are already merged by point, as a batch check adds them up; the dict is left as it is).
    `forms`: decoded forms kept by the caller (`kept_forms`), as for `msm_public_vartime`."""
    module = _msm
    if module is None:
        return lincomb_public((k, p) for p, k in coefs.items())
    scalars, points = nonzero_terms(coefs)
    if IDENTITY in coefs:
        kept = [(k, p) for k, p in zip(scalars, points, strict=True) if p != IDENTITY]
        scalars, points = [k for k, _ in kept], [p for _, p in kept]
    if not points:
        return IDENTITY
    if len(points) > FEW_TERMS:
        return msm_public_vartime(scalars, points, forms=forms)
    for p in points:
        if not isinstance(p, bytes) or len(p) != POINT_BYTES:
            decode_point(p)  # raises the same error as for a received point
    OPS.msm += 1
    OPS.msm_terms += len(points)
    tables = {p: _public_table(p) for p in points if p in lasting}
    items = _items(points, forms)
    if tables:
        items = [tables.get(p, item) for p, item in zip(points, items, strict=True)]
    packed = b"".join(map(int.to_bytes, scalars, _SCALAR_LENGTHS, LITTLE))
    return _extension_sum(module.lincomb_public_wnaf, packed, items, points)


def sum_public(plus: Point, minus: Sequence[Point]) -> Point:
    """plus - sum(minus) for PUBLIC points (a public card's M = c2 - sum D_i): the same result and
    errors as `sub(plus, point_sum(minus))`, with the extension in one call that decodes each
    point once (a form kept by `decode_points` is not decoded again) and encodes once, instead of
    libsodium's addition, which decodes both operands and encodes the sum each time. Its decoding
    runs in variable time: never for a point that is secret (a private card's shares)."""
    module = _msm
    if module is None or not minus:
        return sub(plus, point_sum(minus))
    points = [plus, *minus]
    if not all(isinstance(p, bytes) and len(p) == POINT_BYTES for p in points):
        return sub(plus, point_sum(minus))  # libsodium's error
    OPS.add += len(minus)
    with _decoded_lock:
        found = _decoded.get
        items = [found(p, p) for p in points]
    try:
        result: bytes = module.sum_public(items, b"\x00" + b"\x01" * len(minus))
    except ValueError as exc:
        if len(exc.args) == 2 and exc.args[0] == "invalid point":
            # a point the extension refuses (the identity, which libsodium's addition takes, or
            # one that does not decode): libsodium's own result or error
            return sub(plus, point_sum(minus))
        raise
    return Point(result)
