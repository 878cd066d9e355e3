"""manage.py resources …: load is idempotent; match prints cards as JSON."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from resources.models import Service
from resources.services import DEFAULT_FIXTURE


@pytest.mark.django_db
def test_load_then_match_prints_houston_housing_cards() -> None:
    out = StringIO()
    call_command("resources", "load", stdout=out)
    assert "created" in out.getvalue()
    call_command("resources", "load", stdout=out)
    # one service per fixture entry (reference + researched); a second load creates nothing more
    assert Service.objects.count() == len(json.loads(DEFAULT_FIXTURE.read_text())["entries"])
    out = StringIO()
    call_command(
        "resources",
        "match",
        "--category",
        "housing",
        "--region",
        "houston",
        "--near",
        "Houston 77002",
        "--json",
        stdout=out,
    )
    cards = json.loads(out.getvalue())
    assert len(cards) == 5
    assert cards[0]["region"] == "houston" and cards[0]["distance_km"] is not None
    assert set(cards[0]) >= {
        "id",
        "slug",
        "name",
        "phone",
        "phone_display",
        "lat",
        "lon",
        "open_now",
        "is_statewide_line",
        "categories",
    }
    statewide = [card for card in cards if card["is_statewide_line"]]
    assert all(card["lat"] is None and card["lon"] is None for card in statewide)


@pytest.mark.django_db
def test_match_with_a_bad_category_is_a_clear_command_error() -> None:
    with pytest.raises(CommandError, match="Unknown need category"):
        call_command("resources", "match", "--category", "pizza", "--region", "houston")
    with pytest.raises(CommandError, match="No Texas city"):
        call_command("resources", "match", "--category", "food", "--near", "Paris, France")
