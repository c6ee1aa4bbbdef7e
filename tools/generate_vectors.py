"""Write or check the wire-protocol test vectors (protocol/vectors/): fixed keys and seeds ->
exact bytes and hashes. A developer tool, not shipped with the package.

    python -m tools.generate_vectors            # rewrite protocol/vectors/*
    python -m tools.generate_vectors --check    # compare with the files, write nothing
    python -m tools.generate_vectors --no-game  # skip the whole-game vector (a few seconds)

Every vector is computed by the product code (`protocol.config`, `protocol.messages`,
`protocol.transcript`, `protocol.crypto`, and for the whole game `protocol.session` driven by
`protocol.loopback`); only the randomness is fixed (tools/vectors/common.py).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from tools.vectors import GAME_FILE, VECTOR_DIR, build_all, build_game, differences, dump


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files, write nothing")
    parser.add_argument("--no-game", action="store_true", help="skip the whole-game vector (a few seconds)")
    args = parser.parse_args(argv)
    contents = build_all()
    game_data = b""
    if not args.no_game:
        contents["game.json"], game_data = build_game()
    status = 0
    for name, content in contents.items():
        path = VECTOR_DIR / name
        if args.check:
            stored = json.loads(path.read_text()) if path.exists() else None
            diff = differences(stored, json.loads(dump(content))) if stored is not None else ["missing"]
            if diff:
                status = 1
                print(f"{name}: {len(diff)} difference(s)")
                for line in diff[:20]:
                    print(f"  {line}")
            else:
                print(f"{name}: ok")
        else:
            path.write_text(dump(content))
            print(f"wrote {path.relative_to(VECTOR_DIR.parents[1])}")
    if game_data:
        path = VECTOR_DIR / GAME_FILE
        if args.check:
            same = path.exists() and path.read_bytes() == game_data
            status = status or (0 if same else 1)
            print(f"{GAME_FILE}: {'ok' if same else 'differs'}")
        else:
            path.write_bytes(game_data)
            print(f"wrote {path.relative_to(VECTOR_DIR.parents[1])} ({len(game_data)} bytes)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
