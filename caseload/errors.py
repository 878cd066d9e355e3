"""Domain errors of caseload (the project's error handler and the admin both render their message)."""

from __future__ import annotations


class CaseloadError(Exception):
    http_status = 400
    code = "caseload_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotInCaseload(CaseloadError):
    """The object is not in the user's caseload; said as 'not found' so ids cannot be probed."""

    http_status = 404
    code = "not_found"


class NotPermitted(CaseloadError):
    http_status = 403
    code = "not_permitted"


class ModeConflict(CaseloadError):
    """The conversation is already in the requested mode, or held by someone else."""

    http_status = 409
    code = "mode_conflict"


class ReplyNotPossible(CaseloadError):
    """A case-manager SMS cannot go out (web conversation, opted out, empty or too long)."""

    http_status = 400
    code = "reply_not_possible"
