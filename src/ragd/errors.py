"""One exception hierarchy for ragd.

Every error a user can cause derives from :class:`RagdError` and carries an
``exit_code``: 2 for usage or input mistakes, 1 for runtime failures. The CLI
prints ``str(error)`` as one line and exits with that code; no traceback.
"""

from __future__ import annotations


class RagdError(Exception):
    """Base of every ragd error."""

    exit_code = 1


class UsageError(RagdError):
    """The caller asked for something that cannot be done as asked."""

    exit_code = 2


class ConfigError(UsageError):
    """A setting is missing, unknown or out of range."""


class InvalidQueryError(UsageError, ValueError):
    """A query is empty, too long or otherwise unusable."""


class InvalidDocumentError(UsageError, ValueError):
    """A document cannot be loaded or chunked; the message names file, line and field."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        where = []
        if source:
            where.append(str(source))
        if line is not None:
            where.append(f"line {line}")
        if field:
            where.append(f"field {field!r}")
        super().__init__(f"{': '.join([', '.join(where), message]) if where else message}")
        self.source = source
        self.line = line
        self.field = field
        self.reason = message


class DocumentTooLargeError(InvalidDocumentError):
    """A document is larger than the configured ``max_document_bytes``."""


class UnknownCollectionError(UsageError, LookupError):
    """A collection name that the store does not hold."""


class EmbedModelMismatchError(UsageError):
    """A collection is bound to one embedding model and was opened with another."""

    @classmethod
    def check(cls, collection: str, bound: tuple[str, int], given: tuple[str, int]) -> None:
        """Raise when the ``(model, dims)`` a collection is ``bound`` to are not those
        ``given``, naming both (the one message of every store and of the collection)."""
        if (bound[0], int(bound[1])) != (given[0], int(given[1])):
            raise cls(f"collection {collection!r} is bound to embedding model {bound[0]} "
                      f"({bound[1]} dims), not {given[0]} ({given[1]} dims)")


class ProfileMismatchError(UsageError):
    """A collection was created with one profile and was opened with another."""


class StoreError(RagdError):
    """The store failed at run time (I/O, locking, corrupt file, lost server)."""


class VectorDBUnavailableError(StoreError):
    """The store cannot be reached: a database server down, a file that cannot be opened."""


class VectorDBWriteError(StoreError):
    """A write to the store failed; the ingest job stops (documents already written stay)."""


class RetrievalTimeoutError(RagdError):
    """A retrieval took longer than the profile's ``timeout_seconds``."""


class EmbedderError(RagdError):
    """An embedder failed at run time (model file, remote endpoint)."""


class EmbeddingFailureError(EmbedderError):
    """Embedding a document failed after every retry; the document is skipped."""


class LLMError(RagdError):
    """A chat model (an OpenAI-compatible endpoint) failed at run time."""


class LLMUnavailableError(LLMError):
    """The endpoint cannot be reached or keeps failing (refused, timed out, 429, 5xx)."""


class LLMResponseError(LLMError):
    """The endpoint refused the request or answered something that is not a chat completion."""


class LLMInvalidOutputError(LLMError):
    """The model's text is not the JSON asked for (malformed, cut off, wrong type).

    ``content`` holds the text the model returned (with any API key blanked out).
    """

    def __init__(self, message: str, *, content: str | None = None) -> None:
        super().__init__(message)
        self.content = content
