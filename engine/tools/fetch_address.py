"""Where ``fetch`` may connect (SPEC 5): a host is resolved once, every address it resolves to is checked, and the
connection goes to the address that was checked, so a name cannot answer "public" to the check and "127.0.0.1" to
the connect (DNS rebinding).

Refused unless the user allows private addresses (``fetch.allow_private``, or yolo): every address that is not
globally routable (loopback, private, link-local with the cloud metadata services, carrier-grade NAT, unspecified,
multicast, reserved, documentation ranges) and every IPv6 address that carries such an IPv4 address inside it
(IPv4-mapped, IPv4-compatible, 6to4, Teredo, NAT64). The legacy IPv4 spellings (``2130706433``, ``0x7f.1``,
``017700000001``, ``127.1``) need no rule of their own: the system's resolver turns them into the address they
name, and that address is what is checked.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable

from engine.errors import ToolError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# host, port -> the addresses the host resolves to (text form). Replaced in tests by a fake resolver.
Resolver = Callable[[str, int], Awaitable[list[str]]]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system's resolver gives ``host`` (an IP literal comes back as itself)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ToolError(f"cannot fetch from {host}: the name does not resolve ({exc.strerror or exc})") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def parse_address(text: str) -> IPAddress:
    """An address from the resolver's text; a scope (``fe80::1%eth0``) is dropped, it names no other host."""
    return ipaddress.ip_address(text.split("%", 1)[0])


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries and that a connection to it may reach, if any."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64 or address in _NAT64_LOCAL:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _IPV4_COMPATIBLE and int(address) > 1:
        return ipaddress.IPv4Address(int(address))
    return None


def why_private(address: IPAddress) -> str | None:
    """Why ``address`` is not a public internet address (in words), or None when it is one."""
    inner = embedded_ipv4(address)
    if inner is not None:
        reason = why_private(inner)
        return f"it carries the IPv4 address {inner}, {reason}" if reason else None
    if address.is_loopback:
        return "a loopback address (this machine)"
    if address.is_link_local:
        return "a link-local address (the cloud metadata service lives there)"
    if address.is_unspecified:
        return "the unspecified address (it reaches this machine)"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:
        return "a private network address"
    if not address.is_global:
        return "an address that is not on the public internet"
    return None


async def checked_addresses(host: str, port: int, resolver: Resolver, *, allow_private: bool) -> list[IPAddress]:
    """Every address ``host`` resolves to, checked; ``ToolError`` naming the address when one is not public (one
    private answer among public ones is enough to refuse: the connection could go to any of them)."""
    found = [parse_address(text) for text in await resolver(host, port)]
    if not found:
        raise ToolError(f"cannot fetch from {host}: the name resolves to no address")
    if allow_private:
        return found
    for address in found:
        reason = why_private(address)
        if reason is not None:
            shown = host if host == str(address) else f"{host} ({address})"
            raise ToolError(
                f"refused to fetch from {shown}: {reason}. fetch reaches only public internet addresses; the user "
                "can allow private ones with fetch.allow_private in the config"
            )
    return found
