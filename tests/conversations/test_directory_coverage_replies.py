"""Matching uses the directory's coverage (issue #25): a local place first where one is listed, an
honest 'no local listing' with the statewide line and 2-1-1 where none is."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def ask(text: str) -> dict:
    out = StringIO()
    call_command("ask", text, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_an_id_in_dallas_lists_a_dallas_area_dps_office_first() -> None:
    turn = ask("need my ID in dallas")
    assert turn["top_need"] == "id_documents" and turn["region"] == "dallas_fort_worth"
    first = turn["resources"][0]
    assert first["name"].startswith("Texas DPS Driver License Office") and first["region"] == "dallas_fort_worth"
    assert first["address"]
    assert "local listing" not in turn["reply"]


def test_a_region_with_a_local_entry_never_answers_with_only_statewide_lines() -> None:
    turn = ask("I need food in Lubbock")
    assert turn["region"] == "west_texas"
    assert turn["resources"][0]["region"] == "west_texas" and not turn["resources"][0]["is_statewide_line"]


def test_an_empty_cell_says_there_is_no_local_listing_and_gives_the_statewide_line_and_211() -> None:
    # No Lubbock parole office could be verified (see resources/README.md, "Coverage").
    turn = ask("where do i report to parole in lubbock")
    assert turn["top_need"] == "supervision" and turn["region"] == "west_texas"
    assert turn["resources"] and all(card["is_statewide_line"] for card in turn["resources"])
    assert "211" in [card["phone"] for card in turn["resources"][:2]]
    assert "local listing" in turn["reply"] and "2-1-1" in turn["reply"]


def test_the_honest_gap_is_said_in_spanish_too() -> None:
    turn = ask("¿dónde me reporto con mi oficial de libertad condicional en Lubbock?")
    if turn["top_need"] != "supervision":
        pytest.skip("intake did not read this as supervision")
    assert turn["language"] == "es" and "lugar local" in turn["reply"]
