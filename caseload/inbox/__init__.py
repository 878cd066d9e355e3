"""The case-manager inbox: conversations that need a person, a thread view with inline decisions, live updates."""
