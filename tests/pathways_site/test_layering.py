"""import-linter enforces the arrows of docs/architecture.md, and a wrong-way import really breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "pathways_site",
    "caseload",
    "outreach",
    "publicstats",
    "toolserver",
    "conversations",
    "plans",
    "corpus",
    "resources",
    "audit",
    "vocab",
)
LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")


def _lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
    )


def _copy_project(target: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, target / package, ignore=shutil.ignore_patterns("__pycache__", "*.json", "fixtures")
        )
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")


@pytest.mark.slow
def test_the_layering_contracts_hold() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "bad_import", "contract"),
    [
        ("audit/_probe.py", "import caseload\n", "Layering"),
        ("corpus/_probe.py", "import resources\n", "Layering"),
        ("conversations/hooks/_probe.py", "import django\n", "pure Python"),
        ("corpus/_probe.py", "import anthropic\n", "Only conversations.llm imports anthropic"),
        ("vocab/_probe.py", "import audit\n", "Layering"),
        ("vocab/_probe.py", "import django\n", "nothing but the standard library"),
    ],
)
def test_a_wrong_way_import_breaks_the_contracts(tmp_path: Path, module: str, bad_import: str, contract: str) -> None:
    _copy_project(tmp_path)
    (tmp_path / module).write_text(bad_import)
    result = _lint(tmp_path)
    assert result.returncode != 0
    assert contract in result.stdout
    broken_lines = [line for line in result.stdout.splitlines() if "BROKEN" in line]
    assert any(contract in line for line in broken_lines), result.stdout
