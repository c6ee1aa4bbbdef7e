"""The network: bytes on a TCP stream up to an authenticated, encrypted link between two seats.

`framing` (length-prefixed frames), `linkproto` (the link's messages), `link` (handshake,
SPAKE2 password, encryption), `guard` (connection and password-guessing limits), `wordcode`
(spoken table passwords, made canonical before SPAKE2), `addresses` (which addresses to
announce and dial), `discovery` (mDNS), `mesh` (one peer's links to every other seat).
Nothing here knows the lobby or the saved game: that is `client.table`.
"""
