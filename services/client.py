"""Which client a browser session is, for the sign-in backoff: the address of the connection, or,
behind a reverse proxy the settings name (``trusted_proxies``), the address that proxy saw.

Nothing a browser sends is believed on its own. ``X-Forwarded-For`` counts only when the
connection comes from a trusted proxy; then the client is the right-most address in it that is not
a trusted proxy (the one the last trusted hop saw). The server under Streamlit (uvicorn) rewrites
the connection's address from that header itself when the connection comes from its own trusted
hosts (``FORWARDED_ALLOW_IPS``, the loopback addresses when unset); ``make run`` turns that off
(``FORWARDED_ALLOW_IPS=""``). Where it may still be on, a session whose request carries the header
cannot be told apart from a spoofed one: every such session counts as one client,
:data:`UNVERIFIED`, and the server log says how to set it up (docs/security.md).
"""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Iterable

import streamlit as st

from services.settings import settings

log = logging.getLogger("groundwork.signin")

UNVERIFIED = "forwarded (unverified)"
UNKNOWN = "unknown"
_warned = False

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(entries: Iterable[str]) -> list[Network]:
    """The trusted proxies as networks (an address is a network of one)."""
    return [ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip()]


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":")[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, trusted: list[Network]) -> bool:
    return address is not None and any(address in n for n in trusted)


def resolve(peer: str | None, forwarded_for: str | None, trusted: list[Network], server_rewrites: bool) -> str:
    """The client key of a connection from ``peer`` whose request carried ``forwarded_for``.

    ``server_rewrites``: the server may have put an address from the header in place of the peer's.
    """
    if forwarded_for and server_rewrites:
        return UNVERIFIED
    address = _address(peer or "")
    if address is None:
        return UNKNOWN
    if forwarded_for and _trusted(address, trusted):
        for hop in reversed(forwarded_for.split(",")):
            hop_address = _address(hop)
            if hop_address is None:
                return str(address)  # a hop that is no address: the trusted proxy is all we know
            if not _trusted(hop_address, trusted):
                return str(hop_address)
    return str(address)


def server_rewrites_forwarded() -> bool:
    """Whether uvicorn may rewrite the connection's address from ``X-Forwarded-For``."""
    return os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1").strip() != ""


def _peer() -> str | None:
    """The connection's address as the server has it (loopback included)."""
    try:
        from streamlit import runtime
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        client = runtime.get_instance().get_client(ctx.session_id) if ctx is not None else None
        context = getattr(client, "client_context", None)
        return getattr(context, "remote_ip", None)
    except Exception:  # noqa: BLE001 - no server (a bare script run, AppTest)
        return None


def _forwarded_for() -> str | None:
    try:
        return st.context.headers.get("X-Forwarded-For")
    except Exception:  # noqa: BLE001 - no browser session
        return None


def client_key() -> str:
    """This browser session's client, as the sign-in backoff counts it."""
    global _warned
    forwarded = _forwarded_for()
    rewrites = server_rewrites_forwarded()
    key = resolve(_peer(), forwarded, networks(settings().trusted_proxies), rewrites)
    if key == UNVERIFIED and not _warned:
        _warned = True
        log.warning(
            "a request carries X-Forwarded-For while the server may rewrite addresses from it "
            "(FORWARDED_ALLOW_IPS is not empty): such sign-ins are counted as one client. "
            "Start the server with FORWARDED_ALLOW_IPS= and name the proxy in GROUNDWORK_TRUSTED_PROXIES "
            "(docs/security.md)."
        )
    return key
