"""The turn workflow and its channels: web chat, SMS, the LLM client and the safety hooks."""
