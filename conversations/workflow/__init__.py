"""The turn workflow: a declared graph of named transitions, node functions over read-only projections,
and an engine that advances a saved turn one checkpointed node at a time."""
