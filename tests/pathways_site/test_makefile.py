"""Every `manage.py` line the Makefile runs parses with its command's own parser.

`make validate` once ran `corpus load -v 0`, which the corpus command refuses (its verbosity option
belongs before the subcommand), so the target died before judging anything. Parsing each line is
cheap and catches that without running the commands.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class
from django.core.management.base import CommandError

MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"
_LINE = re.compile(r"manage\.py\s+([^|;&\n\\]+)")


def _invocations() -> list[list[str]]:
    out = []
    for match in _LINE.finditer(MAKEFILE.read_text(encoding="utf-8")):
        words = shlex.split(match.group(1))
        if not any("$" in w for w in words):
            out.append(words)
    return out


def test_the_makefile_runs_manage_py_at_all() -> None:
    names = {words[0] for words in _invocations()}
    assert {"migrate", "corpus", "safety", "seed_demo"} <= names


@pytest.mark.parametrize("words", _invocations(), ids=" ".join)
def test_each_manage_py_line_parses(words: list[str]) -> None:
    name, *args = words
    command = load_command_class(get_commands()[name], name)
    parser = command.create_parser("manage.py", name)
    try:
        parser.parse_args(args)
    except CommandError as exc:  # the parser raises this instead of exiting when not run from a shell
        pytest.fail(f"`manage.py {' '.join(words)}` does not parse: {exc}")
