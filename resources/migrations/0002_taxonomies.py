"""Create the two fixed taxonomies (need categories, reentry attributes) with stable ids."""

from django.db import migrations


def create(apps, schema_editor):
    from resources.taxonomy import (
        ATTRIBUTES_TAXONOMY,
        NEED_CATEGORY_LABELS,
        NEEDS_TAXONOMY,
        REENTRY_ATTRIBUTES,
        stable_id,
    )

    taxonomy_model = apps.get_model("resources", "Taxonomy")
    term_model = apps.get_model("resources", "TaxonomyTerm")
    specs = (
        (NEEDS_TAXONOMY, "Pathways need categories (what a person needs help with).", NEED_CATEGORY_LABELS),
        (ATTRIBUTES_TAXONOMY, "Pathways reentry attributes (who a service accepts).", REENTRY_ATTRIBUTES),
    )
    for name, description, terms in specs:
        taxonomy, _ = taxonomy_model.objects.get_or_create(
            id=stable_id("taxonomy", name), defaults={"name": name, "description": description, "version": "1"}
        )
        for code, label in terms.items():
            term_model.objects.get_or_create(
                id=stable_id("term", name, code),
                defaults={"taxonomy": taxonomy, "code": code, "name": label, "description": label},
            )


class Migration(migrations.Migration):
    dependencies = [("resources", "0001_initial")]
    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
