"""RedactPIIFilter: nothing a user typed reaches a log handler unredacted."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from conversations.hooks.logfilter import RedactPIIFilter


@pytest.fixture
def log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactPIIFilter())
    logger = logging.getLogger("tests.hooks.logfilter")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)


def test_it_redacts_pii_passed_as_format_arguments(log: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = log
    logger.info("user %s wrote from %s", "my ssn is 412-55-7890", "713-555-0182")
    assert stream.getvalue() == "user my ssn is [SSN] wrote from [PHONE]\n"


def test_it_redacts_the_traceback_text_too(log: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = log
    try:
        raise ValueError("bad input: 412-55-7890")
    except ValueError:
        logger.exception("failed")
    assert "412-55-7890" not in stream.getvalue()
    assert "[SSN]" in stream.getvalue()


def test_it_formats_then_clears_args_and_keeps_the_record() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "call %s", ("713-555-0182",), None)
    assert RedactPIIFilter().filter(record) is True
    assert record.msg == "call [PHONE]"
    assert record.args is None
    assert record.getMessage() == "call [PHONE]"


def test_a_broken_format_string_does_not_raise_or_leak() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "ssn %s %s 412-55-7890", ("only one",), None)
    assert RedactPIIFilter().filter(record) is True
    assert "412-55-7890" not in record.getMessage()
