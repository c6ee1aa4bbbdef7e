"""Walking a `Decision`: which targets can be picked now, moving the cursor among them, and the
help that says what each choice does.

Pure functions over a decision and the rectangles the last render drew each target in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .canvas import Rect, Target
from .i18n import tr
from .model import Decision, Option
from .targets import ButtonTarget, LineTarget, PileTarget


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


# --- the help ---------------------------------------------------------------------------------------

_BUTTON_KEYS = ("action.button.{}", "skipbo.button.{}", "skyjo.button.{}")
_GROUPED = frozenset({"market", "hand", "building", "sdiscard"})
"""Kinds whose keys are listed as one row when three or more follow each other ("3-6 market cards 1-4")."""


def describe(
    lang: str,
    decision: Decision | None,
    target: Target,
    names: Sequence[str] = (),
    me: int | None = None,
) -> str:
    """A target in words, for the help overlay: every kind of target has a sentence."""
    from .catalogue import CATALOGUE

    if decision is not None and target in decision.labels:
        return decision.labels[target]
    seat: int | None = getattr(target, "seat", None)
    mine = seat is None or seat == me
    who = names[seat] if seat is not None and 0 <= seat < len(names) else ""
    suffix = "" if mine else ".other"
    kind = target.kind
    if isinstance(target, PileTarget):
        return tr(lang, f"target.{target.name}")
    if isinstance(target, ButtonTarget):
        for pattern in _BUTTON_KEYS:
            key = pattern.format(target.name)
            if key in CATALOGUE["en"]:
                return tr(lang, key)
        return tr(lang, "target.button")
    if isinstance(target, LineTarget):
        return tr(lang, f"target.line.{target.axis}", n=target.number + 1)
    if kind in ("order", "faces"):
        return tr(lang, f"target.{kind}")
    if kind == "stock":
        return tr(lang, f"target.stock{suffix}", who=who)
    number = int(target[-1]) + 1
    if kind in ("grid", "held", "sdiscard", "hand"):
        return tr(lang, f"target.{kind}{suffix}", n=number, who=who)
    return tr(lang, f"target.{kind}", n=number)


_KEY_ORDER = {key: i for i, key in enumerate("1234567890")}


def help_rows(
    lang: str,
    decision: Decision,
    chosen: tuple[Target, ...],
    buttons: Mapping[Target, str],
    names: Sequence[str] = (),
    me: int | None = None,
) -> list[tuple[str, str]]:
    """The help of a decision: what it is, the keys to move and choose, and each choice with its key.

    Choices without a key of their own (an ACTION card you hold) get one row saying how to reach
    them and what happens next.
    """
    rows: list[tuple[str, str]] = [("", tr(lang, f"help.{decision.kind}")), ("", "")]
    rows.append((tr(lang, "help.k.arrows"), tr(lang, "help.move")))
    rows.append((tr(lang, "help.k.enter"), tr(lang, "help.choose")))
    rows.append(("Tab", tr(lang, "help.tab")))
    keys = decision.key_map(len(chosen))
    unkeyed: list[Target] = []
    runs: list[list[tuple[str, Target]]] = []
    for target in candidates(decision, chosen):
        key = keys.get(target)
        if not key:
            unkeyed.append(target)
        elif (
            runs
            and target.kind in _GROUPED
            and runs[-1][-1][1].kind == target.kind
            and int(runs[-1][-1][1][-1]) + 1 == int(target[-1])
            and getattr(target, "seat", me) == me
            and target not in buttons
        ):
            runs[-1].append((key, target))
        else:
            runs.append([(key, target)])
    runs.sort(key=lambda run: _KEY_ORDER.get(run[0][0], len(_KEY_ORDER)))  # 1 2 3 … 9 0, then the rest
    for run in runs:
        if len(run) > 2:
            first, last = run[0][1], run[-1][1]
            rows.append(
                (
                    f"{run[0][0]}-{run[-1][0]}",
                    tr(lang, f"target.{first.kind}.many", first=int(first[-1]) + 1, last=int(last[-1]) + 1),
                )
            )
            continue
        for key, target in run:
            rows.append((key, buttons.get(target) or describe(lang, decision, target, names, me)))
    if any(t.kind == "held" and getattr(t, "seat", None) == me for t in unkeyed):
        rows.append((tr(lang, "help.k.held"), tr(lang, "help.held")))
    if chosen:
        rows.append((tr(lang, "help.k.esc"), tr(lang, "help.back")))
    return rows


__all__ = [
    "Option",
    "candidates",
    "complete",
    "cycle",
    "describe",
    "help_rows",
    "move_cursor",
    "nearest",
    "order",
]
