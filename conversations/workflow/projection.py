"""Read-only projections: a node gets exactly the state keys it declared, deeply frozen."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """Turn a frozen projection back into plain JSON-able data (for the NodeRun trace)."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


def project(state: Mapping[str, Any], keys: tuple[str, ...]) -> Mapping[str, Any]:
    """Return a read-only view of `keys` only; a missing key reads as None."""
    return _freeze({key: state.get(key) for key in keys})
