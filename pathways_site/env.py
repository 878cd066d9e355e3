"""Strict environment parsing: odd values fail loudly with the variable's name, never silently default."""

from __future__ import annotations

import ipaddress
import os
from typing import overload

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@overload
def env_str(name: str, default: str) -> str: ...
@overload
def env_str(name: str, default: None = None) -> str | None: ...
def env_str(name: str, default: str | None = None) -> str | None:
    """Return the variable stripped, or the default when unset or empty."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip()


def env_bool(name: str, *, default: bool) -> bool:
    """Parse a boolean; anything outside the known spellings is a configuration error."""
    value = env_str(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of true/false/1/0/yes/no/on/off, got {value!r}")


def env_int(name: str, *, default: int, minimum: int | None = None) -> int:
    """Parse an integer, refusing non-numbers and values below the minimum."""
    value = env_str(name)
    if value is None:
        return default
    try:
        parsed = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}") from None
    if minimum is not None and parsed < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {parsed}")
    return parsed


def env_float(name: str, *, default: float, minimum: float | None = None) -> float:
    """Parse a float, refusing non-numbers and values below the minimum."""
    value = env_str(name)
    if value is None:
        return default
    try:
        parsed = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}") from None
    if minimum is not None and parsed < minimum:
        raise ImproperlyConfigured(f"{name} must be >= {minimum}, got {parsed}")
    return parsed


def env_list(name: str, *, default: list[str]) -> list[str]:
    """Parse a comma-separated list, dropping empty items."""
    value = env_str(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_networks(name: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Parse a comma-separated list of IP addresses or CIDR networks (a bare address is a /32 or /128)."""
    networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
    for item in env_list(name, default=[]):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(f"{name} must list IP addresses or networks, got {item!r}") from None
    return networks


# Django's test client's host name: never resolvable, so it cannot be served to anyone.
_LOCAL_NAMES = frozenset({"localhost", "testserver"})


def is_loopback_host(host: str) -> bool:
    """True when an ALLOWED_HOSTS entry can only be reached from this machine (localhost, 127.x, ::1).

    A wildcard ("*", ".example.org") or any other name or address counts as reachable by others.
    """
    name = host.strip().lower().strip("[]")
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
