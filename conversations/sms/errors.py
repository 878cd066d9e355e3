"""Domain errors of the SMS gateway (rendered by the project's handler by shape)."""

from __future__ import annotations

from conversations.errors import ConversationError


class OutboundNotPending(ConversationError):
    """Only a message waiting for approval (or a human-mode suggestion) can be approved or rejected."""

    http_status = 409
    code = "outbound_not_pending"


class UnknownOutbound(ConversationError):
    http_status = 404
    code = "unknown_outbound"


class RejectionNeedsReason(ConversationError):
    code = "rejection_needs_reason"
