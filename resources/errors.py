"""Domain errors of the directory, in the shape the project's DRF exception handler renders."""

from __future__ import annotations


class ResourceError(Exception):
    """Base class: `http_status`, `code` and a `message` safe to show to the caller."""

    http_status = 400
    code = "resource_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownCategory(ResourceError):
    code = "unknown_category"


class UnknownRegion(ResourceError):
    code = "unknown_region"


class UnknownAttribute(ResourceError):
    code = "unknown_attribute"


class NotPermitted(ResourceError):
    http_status = 403
    code = "not_permitted"


class ChangeRequestNotPending(ResourceError):
    http_status = 409
    code = "change_request_not_pending"


class ChangeRequestConflict(ResourceError):
    """The live entry changed since the request was made; applying it would overwrite that change."""

    http_status = 409
    code = "change_request_conflict"


class FeedError(ResourceError):
    """A partner feed could not be used; `code` says why (timeout, too_large, http_error, invalid)."""

    http_status = 502

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
