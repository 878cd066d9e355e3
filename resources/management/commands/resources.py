"""`manage.py resources load|refresh|match|coverage|import-hsds|export-hsds` — the directory's command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from resources.errors import ResourceError

if TYPE_CHECKING:
    from resources.types import CoverageReport


class Command(BaseCommand):
    help = "Resource directory: load the fixture, refresh feeds, match, HSDS import/export."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        load = sub.add_parser("load", help="Load resources/fixtures/directory.json (idempotent).")
        load.add_argument("--file", type=Path, default=None)
        load.add_argument("--update", action="store_true", help="Overwrite existing entries from the fixture.")
        refresh = sub.add_parser("refresh", help="Fetch partner HSDS feeds into pending change requests.")
        refresh.add_argument("--org", default=None, help="Organization slug (default: every org with a feed).")
        match = sub.add_parser("match", help="Print the cards the matcher returns.")
        match.add_argument("--category", required=True)
        match.add_argument("--region", default=None)
        match.add_argument("--near", default=None, help='A place in words, e.g. "Houston 77002".')
        match.add_argument("--language", default=None)
        match.add_argument("--need", action="append", default=[], help="Reentry attribute required (repeatable).")
        match.add_argument("--limit", type=int, default=5)
        match.add_argument("--json", action="store_true")
        cov = sub.add_parser("coverage", help="Verified local entries per region and core need, gaps and stale checks.")
        cov_format = cov.add_mutually_exclusive_group()
        cov_format.add_argument("--json", action="store_true")
        cov_format.add_argument(
            "--markdown", action="store_true", help="The report as Markdown (resources/COVERAGE.md is this output)."
        )
        imp = sub.add_parser("import-hsds", help="Import a Pathways HSDS export file (all or nothing).")
        imp.add_argument("file", type=Path)
        exp = sub.add_parser("export-hsds", help="Export the directory as HSDS JSON.")
        exp.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            getattr(self, "_" + action.replace("-", "_"))(options)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        except ResourceError as exc:
            raise CommandError(exc.message) from exc

    def _load(self, options: dict[str, Any]) -> None:
        from resources.services import directory_load
        from resources.spanish import spanish_overlay_apply

        counts = directory_load(path=options["file"], update=options["update"])
        spanish = spanish_overlay_apply()
        if options.get("verbosity", 1):
            self.stdout.write(
                f"resources: {counts['created']} created, {counts['updated']} updated, {counts['unchanged']} unchanged"
            )
            self.stdout.write(
                f"resources: Spanish for {spanish['services']} services, {spanish['documents']} documents, {spanish['hours']} hours"
            )

    def _refresh(self, options: dict[str, Any]) -> None:
        from resources.feeds import feeds_refresh_all

        refreshes = feeds_refresh_all(slug=options["org"])
        if not refreshes:
            self.stdout.write("No organization with a feed URL.")
        for refresh in refreshes:
            detail = (
                f"{refresh.change_requests_created} change request(s)"
                if refresh.status == "ok"
                else f"{refresh.error_code}: {refresh.error_message}"
            )
            self.stdout.write(f"{refresh.organization.slug}: {refresh.status} — {detail}")

    def _match(self, options: dict[str, Any]) -> None:
        from resources.selectors import match, resolve_place

        near = None
        region = options["region"]
        if options["near"]:
            place = resolve_place(options["near"])
            if place is None:
                raise CommandError(f"No Texas city or ZIP found in {options['near']!r}.")
            near = (place.lat, place.lon)
            region = region or place.region
        cards = match(
            category=options["category"],
            region=region,
            near=near,
            language=options["language"],
            limit=options["limit"],
            needs=tuple(options["need"]),
        )
        if options["json"]:
            self.stdout.write(json.dumps([card.as_dict() for card in cards], indent=2, ensure_ascii=False))
            return
        for card in cards:
            where = "statewide line" if card.is_statewide_line else f"{card.city} ({card.region})"
            distance = f", {card.distance_km} km" if card.distance_km is not None else ""
            self.stdout.write(f"- {card.name} — {card.phone_display or 'no phone'} — {where}{distance}")

    def _coverage(self, options: dict[str, Any]) -> None:
        from resources.selectors import coverage
        from resources.taxonomy import CORE_NEEDS, COVERAGE_REGIONS

        report = coverage()
        if options["json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
            return
        if options.get("markdown"):
            self.stdout.write(_coverage_markdown(report), ending="")
            return
        counts = {(cell.region, cell.need): cell for cell in report.cells}
        self.stdout.write(f"{'':18}" + " ".join(f"{need[:9]:>9}" for need in CORE_NEEDS))
        for region in COVERAGE_REGIONS:
            row = []
            for need in CORE_NEEDS:
                cell = counts[(region, need)]
                row.append(f"{cell.count:>7}/{cell.target}" if cell.filled else f"{cell.count:>6}/{cell.target}!")
            self.stdout.write(f"{region:18}" + " ".join(row))
        filled = sum(1 for cell in report.cells if cell.filled)
        self.stdout.write(
            f"{filled}/{len(report.cells)} cells at target; {len(report.empty)} empty; {report.total_services} services"
        )
        if report.empty:
            self.stdout.write("empty: " + ", ".join(f"{cell.region}/{cell.need}" for cell in report.empty))
        self.stdout.write(f"checked more than 180 days ago: {len(report.stale)}; never dated: {len(report.undated)}")
        for slug, when in report.stale:
            self.stdout.write(f"  stale {slug} (last checked {when})")

    def _import_hsds(self, options: dict[str, Any]) -> None:
        from resources.hsds import import_directory

        try:
            document = json.loads(options["file"].read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise CommandError(f"Cannot read {options['file']}: {exc}") from exc
        counts = import_directory(document)
        self.stdout.write("imported " + ", ".join(f"{value} {key}" for key, value in counts.items()))

    def _export_hsds(self, options: dict[str, Any]) -> None:
        from resources.hsds import export_directory

        document = export_directory()
        options["file"].write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        self.stdout.write(f"exported {len(document['services'])} services to {options['file']}")


def _coverage_markdown(report: CoverageReport) -> str:
    """The coverage report as a Markdown document, so the committed COVERAGE.md is regenerated, never hand-edited."""
    from resources.taxonomy import CORE_NEEDS, COVERAGE_REGIONS

    cells = {(cell.region, cell.need): cell for cell in report.cells}
    filled = sum(1 for cell in report.cells if cell.filled)
    lines = [
        "# Directory coverage",
        "",
        "Generated by `python manage.py resources coverage --markdown > resources/COVERAGE.md`"
        f" on {report.checked_on}; do not edit by hand.",
        "",
        "A cell counts *verified local* entries: active, not a statewide line, with a source URL, seen in that",
        "source (`source_verified`), and a physical location in the region with a street address. Targets: 3 in",
        "the metro regions, 1 elsewhere. `n/t` is count/target; a cell below target is marked **bold**.",
        "",
        f"**{filled}/{len(report.cells)} cells at target; {len(report.empty)} empty; "
        f"{report.total_services} services in the directory.**",
        "",
        "| region | " + " | ".join(CORE_NEEDS) + " |",
        "|---|" + "---|" * len(CORE_NEEDS),
    ]
    for region in COVERAGE_REGIONS:
        row = []
        for need in CORE_NEEDS:
            cell = cells[(region, need)]
            text = f"{cell.count}/{cell.target}"
            row.append(text if cell.filled else f"**{text}**")
        lines.append(f"| {region} | " + " | ".join(row) + " |")
    lines += ["", "## Empty cells", ""]
    lines += [f"- {cell.region} / {cell.need}" for cell in report.empty] or ["- none"]
    lines += ["", "## Below target (not empty)", ""]
    partial = [cell for cell in report.below_target if cell.count]
    lines += [f"- {cell.region} / {cell.need}: {cell.count} of {cell.target}" for cell in partial] or ["- none"]
    lines += ["", "## Entries per cell", ""]
    for region in COVERAGE_REGIONS:
        for need in CORE_NEEDS:
            cell = cells[(region, need)]
            if cell.slugs:
                lines.append(f"- {region} / {need}: " + ", ".join(f"`{slug}`" for slug in cell.slugs))
    lines += [
        "",
        "## Verification age",
        "",
        f"- checked more than 180 days ago: {len(report.stale)}"
        + "".join(f"\n  - `{slug}` (last checked {when})" for slug, when in report.stale),
        f"- never dated (reference entries the project has not re-checked): {len(report.undated)}",
        "",
    ]
    return "\n".join(lines)
