"""One vocabulary at the floor: defined once in `vocab`, stdlib-only, and every consumer agrees with it."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

import vocab
from vocab.gsm7 import GSM7_BASIC

ROOT = Path(__file__).resolve().parents[2]
APPS = ("pathways_site", "caseload", "outreach", "publicstats", "toolserver", "conversations", "plans", "corpus")
APPS += ("resources", "audit")
VOCABULARIES = {
    "need categories": vocab.NEED_CATEGORIES,
    "regions": vocab.REGIONS,
    "crisis categories": vocab.CRISIS_CATEGORIES,
    "role names": vocab.ROLE_NAMES,
}


def _sources() -> list[Path]:
    return [
        path
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts and "__pycache__" not in path.parts
    ]


def _string_literals(tree: ast.AST) -> list[tuple[int, set[str]]]:
    """Every tuple/list/set literal (including Literal[...] arguments) made only of string constants."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
            values = [elt.value for elt in node.elts if isinstance(elt, ast.Constant) and isinstance(elt.value, str)]
            if len(values) == len(node.elts):
                found.append((node.lineno, set(values)))
    return found


def test_vocab_imports_only_the_standard_library() -> None:
    """The safety hooks import vocab and must stay pure Python: nothing outside the stdlib may creep in."""
    for path in sorted((ROOT / "vocab").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""] if node.level == 0 else ["vocab"]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top in sys.stdlib_module_names or top in {"vocab", "__future__"}, f"{path.name}: {module}"


def test_no_app_writes_a_vocabulary_out_again() -> None:
    """A literal that lists (nearly) a whole vocabulary is a copy that will drift: import it from vocab instead.

    Subsets chosen on purpose (e.g. the coverage matrix's core needs) are far from whole and pass."""
    copies = []
    for path in _sources():
        for line, values in _string_literals(ast.parse(path.read_text(), filename=str(path))):
            for name, words in VOCABULARIES.items():
                if len(values & set(words)) >= len(words) - 1 and len(values) >= 3:
                    copies.append(f"{path.relative_to(ROOT)}:{line} copies the {name}")
    assert not copies, "\n".join(copies)


def test_the_gsm7_alphabet_role_names_and_folding_are_written_once() -> None:
    greek = "".join(ch for ch in "ΦΓΛΩΠΨΣΘΞ" if ch in GSM7_BASIC)
    places = []
    for path in _sources():
        text = path.read_text()
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if greek in node.value:
                    places.append(f"{path.relative_to(ROOT)}:{node.lineno} spells the GSM-7 alphabet")
                if node.value in {vocab.CASE_MANAGER, vocab.PARTNER_EDITOR}:
                    places.append(f"{path.relative_to(ROOT)}:{node.lineno} spells the role {node.value!r}")
            if isinstance(node, ast.Attribute) and node.attr == "combining":
                places.append(f"{path.relative_to(ROOT)}:{node.lineno} folds accents by hand (use vocab.fold)")
    assert not places, "\n".join(places)


def test_every_need_category_has_intake_terms_and_nothing_else_does() -> None:
    from conversations.workflow.intake_rules import _NEED_TERMS

    assert list(_NEED_TERMS) == list(vocab.NEED_CATEGORIES)
    assert all(_NEED_TERMS[category] for category in vocab.NEED_CATEGORIES)


def test_the_intake_prompt_offers_exactly_the_categories_its_schema_accepts() -> None:
    from conversations.workflow.nodes import IntakeOpinion, prompt

    rendered = prompt("intake_v1")
    assert "{{" not in rendered
    listed = re.search(r"top_need: one of (.+?) — ", rendered)
    assert listed is not None
    assert tuple(listed.group(1).split(", ")) == vocab.NEED_CATEGORIES
    schema = IntakeOpinion.model_json_schema()["properties"]["top_need"]
    assert tuple(schema["enum"]) == vocab.NEED_CATEGORIES


def test_a_prompt_naming_an_unknown_placeholder_fails_loudly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from conversations.workflow import nodes

    (tmp_path / "probe_v1.md").write_text("one of {{need_categories}}; and {{regions}}\n")
    monkeypatch.setattr(nodes, "PROMPTS", tmp_path)
    with pytest.raises(KeyError, match=r"unknown placeholder \{\{regions\}\}"):
        nodes.prompt("probe_v1")


def test_every_consumer_holds_the_vocab_itself() -> None:
    """The corpus, the directory, intake, the hooks and the roles read the one definition (no look-alike copy)."""
    from caseload import roles
    from conversations.hooks import crisis
    from conversations.workflow import intake_rules
    from corpus import types
    from resources import services, taxonomy

    assert types.CATEGORIES is taxonomy.NEED_CATEGORIES is intake_rules.NEED_CATEGORIES is vocab.NEED_CATEGORIES
    assert taxonomy.REGIONS is vocab.REGIONS
    assert crisis.CRISIS_CATEGORIES is vocab.CRISIS_CATEGORIES
    assert roles.ROLE_NAMES is vocab.ROLE_NAMES
    assert set(roles.ROLE_PERMISSIONS) == set(vocab.ROLE_NAMES) - {vocab.ADMIN}  # admin holds everything
    assert services.PARTNER_GROUP == vocab.PARTNER_EDITOR
    assert set(taxonomy.NEED_CATEGORY_LABELS) == set(vocab.NEED_CATEGORIES)


@pytest.mark.parametrize(
    ("text", "folded"),
    [("Cárcel", "carcel"), ("IDENTIFICACIÓN", "identificacion"), ("niño", "nino"), ("Édinburg", "edinburg")],
)
def test_fold_lowercases_and_strips_accents(text: str, folded: str) -> None:
    assert vocab.fold(text) == folded


def _doc_list(text: str, label: str) -> tuple[str, ...]:
    found = re.search(rf"^- {label}[^:]*: (.+?)\.\n(?:- |\n)", text, flags=re.MULTILINE | re.DOTALL)
    assert found is not None, label
    return tuple(word.strip() for word in " ".join(found.group(1).split()).split(","))


def test_the_architecture_document_states_the_taxonomy_the_code_uses() -> None:
    """docs/architecture.md is what a newcomer reads: its taxonomy must be the one in vocab, in vocab's order."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert _doc_list(text, "Need categories") == vocab.NEED_CATEGORIES
    assert _doc_list(text, "Crisis categories") == vocab.CRISIS_CATEGORIES
    assert _doc_list(text, "Regions") == vocab.REGIONS
    assert _doc_list(text, "Staff roles") == vocab.ROLE_NAMES
