"""Evaluation harness: pinned conversation traces run through the real workflow, scored per stratum.

Data-only pipeline: this package reaches the workflow through `conversations.services` and
`conversations.selectors` only; it never imports an LLM client (an import-linter contract says so).
"""
