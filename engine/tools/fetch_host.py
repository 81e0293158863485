"""The one host of a ``fetch`` URL (SPEC 5): the permission rules, the private-address check and the connection all
use the host this module gives, so no spelling of a host can pass one of them and reach another.

The URL is parsed once (``urllib.parse.urlsplit``) and its host normalised:
- IDNA (UTS 46): full-width letters and digits and the ideographic and full-width full stops (``127。0。0。1``)
  become ASCII, letters lower case, a name in another script its ``xn--`` form;
- trailing dots dropped (``localhost.`` is ``localhost``);
- an IPv4 address in any spelling the system's resolver accepts (``2130706433``, ``0x7f.1``, ``017700000001``,
  ``127.1``) in dotted-quad form;
- an IPv6 address in its compressed form, and one that maps an IPv4 address (``[::ffff:127.0.0.1]``) as that IPv4
  address, which is where a connection to it goes.
A host that cannot be normalised is refused: it could not be compared with a rule.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

from engine.errors import ToolError
from engine.record import record

# Labels the resolver reads as numbers (decimal, octal with a leading 0, hex with 0x): a host made only of them is
# an IPv4 address, whatever the spelling.
_NUMERIC_IPV4 = re.compile(r"(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}")


@record
class FetchTarget:
    scheme: str
    # The normalised host: a name, a dotted-quad IPv4 address or a compressed IPv6 address (no brackets).
    host: str
    port: int
    # The port as the URL wrote it (None when it named none): the Host header repeats it.
    given_port: int | None
    # The path ("/" at least) and the query to request; a fragment is never sent.
    path: str
    query: str

    @property
    def host_header(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return shown if self.given_port is None else f"{shown}:{self.given_port}"


def fetch_target(url: str) -> FetchTarget:
    """The parts of an http(s) URL a request uses; ``ToolError`` naming the URL when it has no usable host."""
    try:
        parts = urlsplit(url.strip())
        given_port = parts.port
    except ValueError as exc:
        raise ToolError(f"cannot fetch {url!r}: {exc}") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        shown = f"the scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        raise ToolError(f"cannot fetch {url!r}: it has {shown}; only http:// and https:// URLs are fetched")
    if not parts.hostname:
        raise ToolError(f"cannot fetch {url!r}: the URL has no host")
    try:
        host = normalised_host(parts.hostname)
    except ValueError as exc:
        raise ToolError(f"cannot fetch {url!r}: {exc}") from exc
    port = given_port if given_port is not None else (443 if scheme == "https" else 80)
    return FetchTarget(scheme, host, port, given_port, parts.path or "/", parts.query)


def url_host(url: object) -> str | None:
    """The normalised host of a URL the model gave; None when it has none or it cannot be normalised (the tool then
    says what is wrong)."""
    if not isinstance(url, str):
        return None
    try:
        return fetch_target(url).host
    except ToolError:
        return None


def normalised_host(host: str) -> str:
    """``host`` (a URL's host, without brackets) in the one form every comparison uses; ``ValueError`` saying why
    when it is not a host name or address."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        return _normalised_ipv6(text)
    name = (text.lower() if text.isascii() else _idna_name(text, host)).rstrip(".")
    if not name or ".." in name:
        raise ValueError(f"{host!r} is not a valid host name")
    if _NUMERIC_IPV4.fullmatch(name):
        try:
            return socket.inet_ntoa(socket.inet_aton(name))
        except OSError:
            raise ValueError(f"{host!r} is not a valid IPv4 address") from None
    return name


def _idna_name(text: str, host: str) -> str:
    """UTS 46 for a host with characters beyond ASCII (the ``idna`` tables load only then)."""
    import idna

    try:
        mapped = idna.uts46_remap(text, std3_rules=False, transitional=False)
        return mapped if mapped.isascii() else idna.encode(mapped, uts46=False).decode("ascii")
    except idna.IDNAError as exc:
        raise ValueError(f"{host!r} is not a valid host name ({exc})") from exc


def _normalised_ipv6(text: str) -> str:
    try:
        address = ipaddress.IPv6Address(text.split("%", 1)[0])
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a valid IPv6 address") from exc
    mapped = address.ipv4_mapped
    return str(mapped) if mapped is not None else str(address)
