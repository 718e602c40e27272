"""ragd's exceptions as HTTP statuses and one JSON error shape: ``{"error": {type, message}}``.

Bad input is a 4xx naming what is wrong; an unexpected failure is a 500 that says only
that it was logged (the traceback goes to the server's log, never to the client).
"""

from __future__ import annotations

import logging
from typing import Any

from ..errors import (DocumentTooLargeError, EmbedderError, EmbedModelMismatchError, LLMError,
                      ProfileMismatchError, RagdError, RetrievalTimeoutError, StoreError,
                      UsageError)

log = logging.getLogger("ragd.service")

STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (LookupError, 404),                 # UnknownCollectionError, NotFoundError
    (ProfileMismatchError, 409),
    (EmbedModelMismatchError, 409),
    (DocumentTooLargeError, 413),
    (UsageError, 400),                  # InvalidQueryError, InvalidDocumentError, ConfigError
    (RetrievalTimeoutError, 504),
    (LLMError, 502),
    (StoreError, 503),                  # VectorDBUnavailableError, VectorDBWriteError
    (EmbedderError, 503),
)


class ServiceError(Exception):
    """An error of the service itself (not of the library): status, type and message."""

    def __init__(self, status: int, type_: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.type = type_
        self.message = message
        self.headers = headers


class RequestTimeout(ServiceError):
    def __init__(self, seconds: float) -> None:
        super().__init__(504, "RequestTimeout",
                         f"the request took longer than {seconds:g} s and was abandoned "
                         "(an ingest may still complete)")


def error_body(type_: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"type": type_, "message": message, **extra}}


def status_of(exc: BaseException) -> int:
    for cls, status in STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def describe(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """(status, JSON body) for any exception an operation raised."""
    if isinstance(exc, ServiceError):
        return exc.status, error_body(exc.type, exc.message)
    if isinstance(exc, RagdError):
        return status_of(exc), error_body(type(exc).__name__, str(exc))
    log.exception("unexpected error", exc_info=exc)
    return 500, error_body("InternalError", "internal error; the server log has the details")
