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
            extra_compile_args=["-O3"],
        )
    ]
)
