"""Checks of what people type on the `host` and `join` command lines, before anything opens.

A typo must end in one line that says what is wrong and exit status 2, not in a traceback from
deep inside the network code (a port out of range raised inside a trio nursery), a silent
surprise (`--port 99999` listening somewhere else) or a table nobody can find (a name mDNS cannot
carry). Every check raises `InputError` with that line, names the option, and returns the value
in the form the rest of the program uses.
"""

from __future__ import annotations

import errno
import ipaddress
import socket

PORT_MAX = 65535
TABLE_NAME_MAX_BYTES = 63
"""A DNS-SD instance name is one DNS label: at most 63 bytes of UTF-8 (RFC 6763, 4.1.1)."""
NICK_MAX_CHARS = 32

DEFAULT_TURN = 60
"""Seconds of a person's move countdown by default (`host --turn`); at zero their own program
plays for them until they press a key."""


class InputError(ValueError):
    """A value given on the command line that cannot be used; `reason` is the line to show."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _shown(text: str) -> str:
    """`text` printable in a message even when it is not valid UTF-8 (argv bytes the locale
    could not decode arrive as lone surrogates) or holds control characters."""
    shown = []
    for char in text[:80]:
        if 0xDC80 <= ord(char) <= 0xDCFF:  # an undecodable byte, as surrogateescape keeps it
            shown.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif not char.isprintable():
            shown.append(repr(char)[1:-1])
        else:
            shown.append(char)
    return "'" + "".join(shown) + ("...'" if len(text) > 80 else "'")


def port(text: str, option: str = "--port") -> int:
    """A TCP port for listening: 1-65535, or 0 for any free port."""
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or int(value) > PORT_MAX:
        raise InputError(f"{option} {_shown(text)} is not a port (1 to {PORT_MAX}, or 0 for any free port)")
    return int(value)


def interface(text: str, option: str = "--interface") -> str:
    """An IPv4 address of this machine to listen (and announce) on; 0.0.0.0 means all of them.

    Checked by binding a socket to it, which is exactly what listening will need: an address that
    is not local fails here with one line instead of later inside the lobby."""
    try:
        address = ipaddress.IPv4Address(text.strip())
    except ValueError:
        raise InputError(
            f"{option} {_shown(text)} is not an IPv4 address (give one of this machine's, e.g. 192.168.1.20)"
        ) from None
    if address.is_multicast or address == ipaddress.IPv4Address("255.255.255.255"):
        raise InputError(f"{option} {address} is a multicast or broadcast address, not this machine's")
    if address.is_unspecified:
        return str(address)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((str(address), 0))
        except OSError as exc:
            if exc.errno == errno.EADDRNOTAVAIL:
                raise InputError(f"{option} {address} is not an address of this machine") from None
            raise InputError(f"{option} {address}: {exc.strerror or exc}") from None
    return str(address)


def port_is_free(address: str, number: int) -> None:
    """Refuse a listening port another program already holds on `address` (0: any port is fine).

    Binds as trio's listeners do (`net.ports.probe_option`): with SO_REUSEADDR on Unix, so a port
    that only has connections in TIME_WAIT from a previous game is not reported busy; with
    SO_EXCLUSIVEADDRUSE on Windows, where SO_REUSEADDR would bind over another listener."""
    from .net.ports import probe_option

    if number == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        option = probe_option()
        if option is not None:
            probe.setsockopt(*option, 1)
        try:
            probe.bind((address, number))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise InputError(f"port {number} is already in use") from None
            if exc.errno == errno.EACCES:
                raise InputError(f"port {number} needs privileges here (choose one above 1023)") from None
            raise InputError(f"port {number}: {exc.strerror or exc}") from None


def _ip_literal(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().removeprefix("[").removesuffix("]"))
    except ValueError:
        return None


def hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``[IPv6]:PORT`` to dial: a host and a port 1-65535.

    A bare address (``127.0.0.1``, ``::1``) is refused: without a port it would otherwise be read
    as a table name and sent to mDNS on every interface."""
    value = text.strip()
    if _ip_literal(value) is not None:
        shape = "[ADDRESS]:PORT" if ":" in value else "HOST:PORT"
        raise InputError(f"{value} is an address: give its port too ({shape})")
    if value.startswith("["):
        host, sep, port_text = value[1:].partition("]:")
        if not sep or _ip_literal(host) is None:
            raise InputError(f"{_shown(text)} is not [IPv6 ADDRESS]:PORT")
    else:
        host, _, port_text = value.rpartition(":")
    if not host or not host.isprintable() or any(c.isspace() for c in host) or host.startswith("-"):
        raise InputError(f"{_shown(text)} is not HOST:PORT (no host name before the ':')")
    if not (port_text.isascii() and port_text.isdigit()) or not 1 <= int(port_text) <= PORT_MAX:
        raise InputError(f"{_shown(text)}: {_shown(port_text)} is not a port (1 to {PORT_MAX})")
    return host, int(port_text)


def _text(text: str, what: str) -> str:
    """`text` stripped, refused when empty, not UTF-8 or holding a control character."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{what} {_shown(text)} is not valid UTF-8 text") from None
    value = text.strip()
    if not value:
        raise InputError(f"{what} is empty")
    for char in value:
        if not char.isprintable() and char != " ":
            raise InputError(
                f"{what} {_shown(text)} holds a control or invisible character (U+{ord(char):04X})"
            )
    return value


def table_name(text: str, option: str = "--name") -> str:
    """A table name every peer can show and mDNS can announce and browse.

    One DNS-SD instance label: valid UTF-8, printable, at most 63 bytes (the label limit; a longer
    name is announced by nobody's rules and `discover` never lists it). No '.' (mDNS software
    splits a name there into two labels) and no ':' (`join NAME` would read it as HOST:PORT).
    Returns it without surrounding spaces. `option` names where it came from in the message."""
    prefix = f"{option}: " if option else ""
    value = _text(text, f"{prefix}the table name")
    size = len(value.encode("utf-8"))
    if size > TABLE_NAME_MAX_BYTES:
        raise InputError(
            f"{prefix}the table name is {size} bytes in UTF-8; "
            f"at most {TABLE_NAME_MAX_BYTES} fit in an mDNS announcement"
        )
    for char in ".:":
        if char in value:
            raise InputError(f"{prefix}a table name cannot contain {char!r} (try a space or '-')")
    _zeroconf_accepts(value, option)
    return value


def _zeroconf_accepts(name: str, option: str) -> None:
    """Whatever else zeroconf's own check of service instance names refuses (the same function
    refuses the name when the table is announced, as BadTypeInNameException)."""
    from zeroconf import BadTypeInNameException
    from zeroconf._utils.name import service_type_name

    from .net.discovery import SERVICE

    try:
        service_type_name(f"{name}.{SERVICE}")
    except BadTypeInNameException as exc:
        raise InputError(
            f"{option + ': ' if option else ''}mDNS cannot announce this table name ({exc})"
        ) from None


def nick(text: str, option: str = "--nick") -> str:
    """A player's name at the table: valid UTF-8, printable, 1 to 32 characters."""
    value = _text(text, f"{option}: the name")
    if len(value) > NICK_MAX_CHARS:
        raise InputError(f"{option}: the name has {len(value)} characters; at most {NICK_MAX_CHARS}")
    return value


def join_target(text: str | None) -> str | None:
    """What `join` was given: None (choose from the tables found), ``HOST:PORT`` (checked, and
    returned in the form `table.join.find_table` reads) or a table name (checked like `table_name`).

    An address without a port is refused here, before anything browses mDNS."""
    if text is None:
        return None
    if _ip_literal(text) is not None or ":" in text:
        host, number = hostport(text)
        return f"[{host}]:{number}" if ":" in host else f"{host}:{number}"
    return table_name(text, "")
