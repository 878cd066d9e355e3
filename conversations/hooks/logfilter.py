"""A logging filter that redacts PII from every record before any handler writes it."""

from __future__ import annotations

import logging

from conversations.hooks.pii import redact

__all__ = ["RedactPIIFilter"]


class RedactPIIFilter(logging.Filter):
    """Redact the formatted message (and any traceback text) of each record, then clear its args.

    Formatting first matters: a phone number passed as an argument ("%s", phone) only exists in
    the final string. Attach it to handlers (not loggers) so records propagated from child loggers
    are covered too. Never drops a record and never raises. The patterns only, not the name model:
    loading the model from inside a log call logs itself (and costs seconds), and every caller that
    logs a person's text has already redacted it with the model.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format or __str__ must not lose the record or leak its args
            message = f"{record.msg!s} (unformattable args)"
        record.msg = redact(message, ner=False).text
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, ner=False).text
        if record.stack_info:
            record.stack_info = redact(record.stack_info, ner=False).text
        return True
