"""Domain errors of the conversations app; the API error handler renders them by shape."""

from __future__ import annotations


class ConversationError(Exception):
    """Base: an error the caller may show to the person, with an HTTP status and a stable code."""

    http_status = 400
    code = "invalid"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class EmptyMessage(ConversationError):
    code = "empty_message"


class MessageTooLong(ConversationError):
    http_status = 413
    code = "message_too_long"


class UnknownConversation(ConversationError):
    http_status = 404
    code = "unknown_conversation"


class UnknownTurn(ConversationError):
    http_status = 404
    code = "unknown_turn"


class BadToken(ConversationError):
    http_status = 403
    code = "bad_token"


class IdempotencyConflict(ConversationError):
    http_status = 409
    code = "idempotency_conflict"


class RateLimited(ConversationError):
    http_status = 429
    code = "rate_limited"


class ConsentRequired(ConversationError):
    """A turn before the current privacy notice was accepted: refused and not stored (the page shows the notice)."""

    http_status = 403
    code = "consent_required"
