"""Directory coverage (issue #25): every row is traceable, the matrix is pinned, bad rows fail the load."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from resources.models import Organization, Service
from resources.selectors import coverage
from resources.services import DEFAULT_FIXTURE, directory_load
from resources.taxonomy import CORE_NEEDS, COVERAGE_REGIONS, METRO_REGIONS

RESEARCHED = DEFAULT_FIXTURE.parent / "researched.jsonl"
CHECK_DAY = dt.date(2026, 12, 1)

# Measured on the fixture as committed: verified local entries (active, source seen, street
# address in the region) per core need, in CORE_NEEDS order. A change to the data must change
# this table on purpose. Zeros are real gaps (see resources/README.md, "Coverage").
MATRIX = {
    "houston": [3, 5, 3, 3, 2, 3, 0, 1],
    "dallas_fort_worth": [2, 2, 4, 3, 1, 2, 0, 1],
    "austin": [0, 1, 1, 1, 1, 0, 1, 0],
    "san_antonio": [1, 0, 2, 1, 1, 1, 1, 1],
    "el_paso": [0, 1, 3, 1, 0, 2, 0, 1],
    "rio_grande_valley": [1, 0, 2, 1, 0, 1, 0, 0],
    "corpus_christi": [1, 1, 1, 1, 1, 1, 0, 1],
    "west_texas": [1, 0, 2, 2, 0, 1, 1, 0],
    "east_texas": [1, 0, 2, 1, 1, 1, 0, 1],
}


def _researched_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in RESEARCHED.read_text().splitlines() if line.strip()]


def test_every_fixture_row_names_its_source_and_every_researched_row_its_check_date() -> None:
    entries = {entry["slug"]: entry for entry in json.loads(DEFAULT_FIXTURE.read_text())["entries"]}
    assert all(entry["service"]["source_url"].startswith("http") for entry in entries.values())
    rows = _researched_rows()
    assert rows, "researched.jsonl is empty"
    for row in rows:
        assert row["source_url"].startswith("http") and dt.date.fromisoformat(row["checked_at"]), row["id"]
        service = entries[row["id"]]["service"]  # the built fixture carries the row (rebuild if this fails)
        assert service["source_url"] == row["source_url"] and service["last_verified_at"] == row["checked_at"]


@pytest.mark.django_db
def test_loaded_researched_entries_carry_their_check_date_as_last_verified(directory: dict[str, int]) -> None:
    for row in _researched_rows():
        service = Service.objects.get(slug=row["id"])
        assert service.last_verified_at == dt.date.fromisoformat(row["checked_at"]), row["id"]
        assert service.source_verified and service.source_url == row["source_url"]


@pytest.mark.django_db
def test_the_coverage_matrix_is_the_measured_one(directory: dict[str, int]) -> None:
    report = coverage(today=CHECK_DAY)
    assert len(report.cells) == len(COVERAGE_REGIONS) * len(CORE_NEEDS) == 72
    measured: dict[str, list[int]] = {region: [] for region in COVERAGE_REGIONS}
    for cell in report.cells:
        measured[cell.region].append(cell.count)
        assert cell.target == (3 if cell.region in METRO_REGIONS else 1)
    assert measured == MATRIX
    assert report.total_services == Service.objects.count() == 120
    assert report.stale == ()  # every dated check is from CHECK_DAY


@pytest.mark.django_db
def test_an_entry_without_a_street_address_is_not_counted_as_local(directory: dict[str, int]) -> None:
    cells = {(cell.region, cell.need): cell for cell in coverage(today=CHECK_DAY).cells}
    assert "lone-star-legal-aid" not in cells[("houston", "legal_aid")].slugs  # city only, no address
    assert "dallas-county-cscd" in cells[("dallas_fort_worth", "supervision")].slugs
    # researched rows whose street address could not be confirmed stay out of their cells
    assert "williamson-cscd-georgetown" not in cells[("austin", "supervision")].slugs
    assert "williamson-cscd-justice-center" in cells[("austin", "supervision")].slugs
    assert "presbyterian-night-shelter" not in cells[("dallas_fort_worth", "housing")].slugs
    assert "ugm-dallas-calvert-place" in cells[("dallas_fort_worth", "housing")].slugs
    # phone-only help (no confirmed walk-in address) is not a local office; an addressed clinic is
    assert "central-texas-food-bank-snap-help" not in cells[("austin", "benefits")].slugs
    assert "stmarys-law-clinics-san-antonio" in cells[("san_antonio", "legal_aid")].slugs


@pytest.mark.django_db
def test_an_old_check_is_reported_as_stale(directory: dict[str, int]) -> None:
    Service.objects.filter(slug="dallas-county-cscd").update(last_verified_at=dt.date(2026, 1, 1))
    report = coverage(today=CHECK_DAY)
    assert ("dallas-county-cscd", "2026-01-01") in report.stale
    assert "988-lifeline" in report.undated


@pytest.mark.django_db
def test_the_coverage_command_prints_the_matrix_as_json(directory: dict[str, int]) -> None:
    out = StringIO()
    call_command("resources", "coverage", "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert len(data["cells"]) == 72 and data["total_services"] == 120
    assert "austin/id_documents" in data["empty"]
    houston_supervision = next(
        cell for cell in data["cells"] if cell["region"] == "houston" and cell["need"] == "supervision"
    )
    assert houston_supervision["count"] == 5 and "harris-county-cscd-east" in houston_supervision["entries"]
    text = StringIO()
    call_command("resources", "coverage", stdout=text)
    assert "cells at target" in text.getvalue() and "empty:" in text.getvalue()


@pytest.mark.django_db
def test_the_coverage_command_writes_the_committed_markdown_report(directory: dict[str, int]) -> None:
    out = StringIO()
    call_command("resources", "coverage", "--markdown", stdout=out)
    text = out.getvalue()
    assert text.startswith("# Directory coverage\n")
    assert "| houston | 3/3 | 5/3 | 3/3 | 3/3 | **2/3** | 3/3 | **0/3** | **1/3** |" in text
    assert "- austin / id_documents" in text.split("## Empty cells")[1].split("##")[0]
    assert "- dallas_fort_worth / housing: " + "`austin-street-center`" in text
    # resources/COVERAGE.md is this output for the committed fixture (only the generation date may differ)
    committed = (DEFAULT_FIXTURE.parent.parent / "COVERAGE.md").read_text()

    def undated(doc: str) -> list[str]:
        return [line for line in doc.splitlines() if not line.startswith("Generated by")]

    assert undated(committed) == undated(text), "regenerate resources/COVERAGE.md with resources coverage --markdown"


def _break(entry: dict[str, Any], how: str) -> None:
    if how == "missing source":
        entry["service"]["source_url"] = ""
    elif how == "invalid phone":
        entry["phones"] = [{"number": "555-CALL-NOW", "type": "voice", "description": "", "extension": ""}]
    elif how == "outside Texas":
        entry["locations"][0].update(latitude=40.7128, longitude=-74.0060)
    elif how == "region does not match city":
        entry["locations"][0]["region"] = "houston"


@pytest.mark.parametrize("how", ["missing source", "invalid phone", "outside Texas", "region does not match city"])
@pytest.mark.django_db
def test_a_bad_row_fails_the_load_with_the_row_named_and_nothing_loaded(tmp_path: Path, how: str) -> None:
    data = json.loads(DEFAULT_FIXTURE.read_text())
    index = next(i for i, entry in enumerate(data["entries"]) if entry["slug"] == "south-plains-food-bank")
    _break(data["entries"][index], how)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(ValidationError, match="south-plains-food-bank"):
        directory_load(path=broken)
    assert Organization.objects.count() == 0 and Service.objects.count() == 0
