"""Compliance rules (pure functions over plain data) and the append-only, hash-chained audit log."""
