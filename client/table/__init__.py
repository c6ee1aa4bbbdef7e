"""A seat at a table: the peer that runs one session, on this machine or over the LAN.

`peer` (`PeerRunner`: a session under trio), `local` (`skyjo-lan play`: a table of in-memory
peers), and the LAN table: `seat` (one seated peer with its saved game), `saved` (the .resume
file), `host`, `join`, `resume`, `commands` (`host`/`join`/`--resume` without the screen).
"""
