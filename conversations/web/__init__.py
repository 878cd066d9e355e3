"""Web channel: the chat page, its DRF API and SSE stream, the WebSocket progress consumer, rate limits.

Mirrors `conversations.sms`: views and API at the edge, the chat's own services and selectors
beside them, the turn itself run through `conversations.services`.
"""
