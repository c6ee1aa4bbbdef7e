"""One screen per game: the registry the UI asks (see `base.GameScreen`)."""

from __future__ import annotations

from .base import GameAdapter, adapter

__all__ = ["GameAdapter", "adapter"]
