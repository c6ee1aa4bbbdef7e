"""Build script beside pyproject.toml: only the optional C extension `protocol.crypto._msm`.

Everything else about the package is in pyproject.toml. The extension is `optional=True`: on a
machine without a C compiler (or one without `unsigned __int128`, e.g. MSVC, where the source
stops with #error) the build carries on without it and `protocol.crypto.group` uses its
pure-Python path, which gives the same results (see docs/crypto.md).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "protocol.crypto._msm",
            sources=["protocol/crypto/_msm.c"],
            optional=True,
            # -O2 and loop peeling, not -O3: with GCC 12, -O3 spills the 128-bit column sums of
            # the field squaring to the stack in the inverse square root (RFC 9496 decoding), a
            # third slower (5.0 against 3.6 us a point here); the sums and the prover's
            # constant-time paths are as fast or faster (docs/performance.md, issue 29's fifth stop)
            extra_compile_args=["-O2", "-fpeel-loops"],
        )
    ]
)
