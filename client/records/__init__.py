"""This machine's record of its games: `skyjo-lan history` and `skyjo-lan ranking`.

* `history`: each saved transcript of the games folder, verified once (`protocol.verify`) and
  remembered in a cache keyed by the file's contents (`cache`), as one `GameEntry`;
* `ranking`: a rating per identity and game from the verified, finished games only (openskill's
  Plackett-Luce model; docs/ranking.md says why and how);
* `book`: the same, computed off the screen's path, for the lobby's "12 games · 5 wins · #2";
* `report`: the two commands' text and JSON.
"""
