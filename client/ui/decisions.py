"""Walking a `Decision`: which targets can be picked now, and moving the cursor among them.

Pure functions over a decision and the rectangles the last render drew each target in.
"""

from __future__ import annotations

from .canvas import Rect, Target
from .model import Decision, Option


def candidates(decision: Decision, chosen: tuple[Target, ...]) -> list[Target]:
    """The targets that may be picked after `chosen`, in the options' order, each once."""
    out: list[Target] = []
    seen: set[Target] = set()
    if decision.multi:
        picked = set(chosen)
        for option in decision.options:
            if picked <= set(option.path):
                for target in option.path:
                    if target not in picked and target not in seen:
                        seen.add(target)
                        out.append(target)
        return out
    depth = len(chosen)
    for option in decision.options:
        if len(option.path) > depth and option.path[:depth] == chosen:
            target = option.path[depth]
            if target not in seen:
                seen.add(target)
                out.append(target)
    return out


def complete(decision: Decision, chosen: tuple[Target, ...]) -> Option | None:
    """The option `chosen` makes, once it is complete (and only then)."""
    if decision.multi:
        if len(chosen) != decision.multi:
            return None
        picked = set(chosen)
        return next((o for o in decision.options if set(o.path) == picked), None)
    matches = [o for o in decision.options if o.path[: len(chosen)] == chosen]
    exact = [o for o in matches if len(o.path) == len(chosen)]
    if exact and len(matches) == len(exact):
        return exact[0]
    return None


def order(targets: list[Target], rects: dict[Target, Rect]) -> list[Target]:
    """Targets in reading order of where they are drawn (undrawn ones last, as given)."""
    drawn = [t for t in targets if t in rects]
    rest = [t for t in targets if t not in rects]
    drawn.sort(key=lambda t: (rects[t].y, rects[t].x))
    return drawn + rest


def move_cursor(
    cursor: Target | None, direction: str, targets: list[Target], rects: dict[Target, Rect]
) -> Target | None:
    """The target the cursor goes to with an arrow key (`direction`: left right up down)."""
    if not targets:
        return None
    if cursor not in targets or cursor not in rects:
        return order(targets, rects)[0]
    cx, cy = rects[cursor].center
    best: tuple[float, Target] | None = None
    for target in targets:
        if target == cursor or target not in rects:
            continue
        tx, ty = rects[target].center
        dx, dy = tx - cx, ty - cy
        if direction == "right":
            main, side = dx, dy
        elif direction == "left":
            main, side = -dx, dy
        elif direction == "down":
            main, side = dy, dx
        else:
            main, side = -dy, dx
        if main <= 0.5:
            continue
        # prefer targets straight ahead: sideways distance costs more than forward distance
        weight = 3.0 if direction in ("left", "right") else 0.5
        score = main + abs(side) * weight
        if best is None or score < best[0]:
            best = (score, target)
    return cursor if best is None else best[1]


def cycle(
    cursor: Target | None, step: int, targets: list[Target], rects: dict[Target, Rect]
) -> Target | None:
    """Tab / shift-Tab: the next target in reading order."""
    ordered = order(targets, rects)
    if not ordered:
        return None
    if cursor not in ordered:
        return ordered[0]
    return ordered[(ordered.index(cursor) + step) % len(ordered)]


def nearest(previous: Rect | None, targets: list[Target], rects: dict[Target, Rect]) -> Target | None:
    """Where the cursor lands when its target went away: the closest one to where it was."""
    if not targets:
        return None
    if previous is None:
        return order(targets, rects)[0]
    px, py = previous.center
    drawn = [t for t in targets if t in rects]
    if not drawn:
        return targets[0]
    return min(drawn, key=lambda t: abs(rects[t].center[0] - px) + 2 * abs(rects[t].center[1] - py))


__all__ = ["Option", "candidates", "complete", "cycle", "move_cursor", "nearest", "order"]
