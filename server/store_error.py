"""A store's refusal with a stable code: raised by every store backend (``server.store``) and met by every layer
above it — the service retries on some, the sockets answer the others with their code — so it lives below all
of them, as ``server.user_error`` does for the command line."""

from __future__ import annotations


class StoreError(Exception):
    """A store refusal with a stable code (``store/...``)."""

    code = "store/error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
