"""The client the sign-in backoff counts: the connection's address unless a trusted proxy forwarded
it; X-Forwarded-For is believed only from a proxy the settings name, and never while the server
itself may have rewritten the address from it."""

from __future__ import annotations

import pytest

from corpus.settings import Settings
from services.client import UNKNOWN, UNVERIFIED, networks, resolve

NONE = networks([])
PROXY = networks(["127.0.0.1", "10.0.0.0/8"])


@pytest.mark.parametrize(
    "peer, forwarded, trusted, rewrites, client",
    [
        ("127.0.0.1", None, NONE, False, "127.0.0.1"),  # bound to loopback: a key all the same (was None)
        ("::1", None, NONE, False, "::1"),
        ("198.51.100.4", None, NONE, False, "198.51.100.4"),
        ("127.0.0.1", "203.0.113.7", NONE, False, "127.0.0.1"),  # no trusted proxy: the header is not believed
        ("198.51.100.4", "203.0.113.7", PROXY, False, "198.51.100.4"),  # from a peer that is no proxy
        ("127.0.0.1", "203.0.113.7", PROXY, False, "203.0.113.7"),  # from the proxy: the address it saw
        ("127.0.0.1", "1.2.3.4, 203.0.113.7", PROXY, False, "203.0.113.7"),  # the client's own claim is not
        ("127.0.0.1", "203.0.113.7, 10.1.2.3", PROXY, False, "203.0.113.7"),  # through two trusted proxies
        ("127.0.0.1", "[2001:db8::1]:4711", PROXY, False, "2001:db8::1"),
        ("127.0.0.1", "203.0.113.7:4711", PROXY, False, "203.0.113.7"),
        ("127.0.0.1", "not-an-address", PROXY, False, "127.0.0.1"),
        ("127.0.0.1", "10.0.0.2, 10.0.0.3", PROXY, False, "127.0.0.1"),  # only proxies: the nearest is all we know
        ("203.0.113.7", "203.0.113.7", NONE, True, UNVERIFIED),  # the server may have taken it from the header
        ("203.0.113.7", "203.0.113.7", PROXY, True, UNVERIFIED),
        ("198.51.100.4", None, NONE, True, "198.51.100.4"),  # no header: nothing was rewritten
        (None, None, NONE, False, UNKNOWN),
    ],
)
def test_the_client_is_believed_only_from_a_trusted_proxy(peer, forwarded, trusted, rewrites, client):
    assert resolve(peer, forwarded, trusted, rewrites) == client


def test_trusted_proxies_are_a_setting_of_addresses_or_networks(monkeypatch):
    monkeypatch.setenv("GROUNDWORK_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8 ,::1")
    assert Settings.load({}).trusted_proxies == ["127.0.0.1", "10.0.0.0/8", "::1"]
    monkeypatch.delenv("GROUNDWORK_TRUSTED_PROXIES")
    assert Settings.load({}).trusted_proxies == []  # off by default
    with pytest.raises(ValueError, match="'proxy.local' is not an IP address or network"):
        Settings.load({"groundwork": {"trusted_proxies": ["proxy.local"]}})
