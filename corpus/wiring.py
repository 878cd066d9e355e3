"""Intake's readings of a question, injected into the corpus by settings.

The corpus cannot import the workflow (layering), yet the workflow searches within intake's need,
hands some questions to a person first and gives the gate intake's own-case probability: searching,
training and judging the gate the way it runs needs all three, so settings name the functions
("module:function") and these readers resolve them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from django.conf import settings

NeedFor = Callable[[str], "str | None"]


def _wired(setting: str) -> Callable[[str], Any] | None:
    """The workflow function a setting names; None when unset."""
    target = getattr(settings, setting, "")
    if not target:
        return None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def need_resolver() -> NeedFor | None:
    """Intake's need for a question, wired by settings.CORPUS_INTAKE_NEED."""
    return _wired("CORPUS_INTAKE_NEED")


def handoff_resolver() -> Callable[[str], str | None] | None:
    """Intake's hand-off before retrieval, wired by settings.CORPUS_INTAKE_HANDOFF."""
    return _wired("CORPUS_INTAKE_HANDOFF")


def own_case_resolver() -> Callable[[str], float | None] | None:
    """Intake's own-case probability for a question, wired by settings.CORPUS_INTAKE_OWN_CASE."""
    return _wired("CORPUS_INTAKE_OWN_CASE")
