"""`python -m client` is the same as the `skyjo-lan` command."""

from .cli import main

raise SystemExit(main())
