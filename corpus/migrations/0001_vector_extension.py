from django.db import migrations
from pgvector.django import VectorExtension


class Migration(migrations.Migration):
    """Enable pgvector before any model declares a vector column."""

    initial = True
    dependencies: list[tuple[str, str]] = []
    operations = [VectorExtension()]
