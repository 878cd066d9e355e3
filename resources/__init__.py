"""The HSDS-aligned Texas resource directory: organizations, services, matching, partner edits, feeds."""
