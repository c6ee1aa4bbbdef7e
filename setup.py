"""Build script beside pyproject.toml: only the optional C extension `protocol.crypto._msm`.

Everything else about the package is in pyproject.toml. The extension is `optional=True`: on a
machine without a C compiler (or one without `unsigned __int128`, e.g. MSVC, where the source
stops with #error) the build carries on without it and `protocol.crypto.group` uses its
pure-Python path, which gives the same results (see docs/crypto.md).
"""

import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

GCC_FLAGS = ["-O2", "-fpeel-loops"]
"""-O2 and loop peeling, not -O3: with GCC 12, -O3 spills the 128-bit column sums of the field
squaring to the stack in the inverse square root (RFC 9496 decoding), a third slower (5.0
against 3.6 us a point here); the sums and the prover's constant-time paths are as fast or faster
(docs/performance.md, issue 29's fifth stop)."""
OTHER_FLAGS = ["-O2"]
"""Clang (macOS's compiler) has no -fpeel-loops and would warn about it at every build."""


def _is_gcc(command: list[str]) -> bool:
    """Whether the C compiler `command` runs is GCC (clang calls itself "gcc" on macOS, but says
    clang in its version)."""
    try:
        shown = subprocess.run([command[0], "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError, IndexError):
        return False
    text = (shown.stdout + shown.stderr).lower()
    return "clang" not in text and ("gcc" in text or "free software foundation" in text)


class BuildExt(build_ext):
    """build_ext with the optimisation flags chosen for the compiler found."""

    def build_extensions(self) -> None:
        command = getattr(self.compiler, "compiler_so", None)
        flags = GCC_FLAGS if isinstance(command, list) and _is_gcc(command) else OTHER_FLAGS
        if self.compiler.compiler_type == "msvc":
            flags = []
        for extension in self.extensions:
            extension.extra_compile_args = list(flags)
        super().build_extensions()


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        Extension(
            "protocol.crypto._msm",
            sources=["protocol/crypto/_msm.c"],
            optional=True,
        )
    ],
)
