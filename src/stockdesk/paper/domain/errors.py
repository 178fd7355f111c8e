"""The paper book's errors: each a one-line message the CLI prints with exit code 2."""

from __future__ import annotations

from stockdesk.shared.errors import BadRequestException, ConflictException, NotFoundException


class BookNotFound(NotFoundException):
    def __init__(self, name: str):
        super().__init__(f"no paper book named {name!r}", code="PAPER_BOOK_NOT_FOUND")


class BookExists(ConflictException):
    def __init__(self, name: str):
        super().__init__(f"a paper book named {name!r} already exists", code="PAPER_BOOK_EXISTS")


class BookClosed(ConflictException):
    def __init__(self, name: str):
        super().__init__(f"paper book {name!r} is closed", code="PAPER_BOOK_CLOSED")


class BadBookInput(BadRequestException):
    def __init__(self, message: str):
        super().__init__(message, code="PAPER_BAD_INPUT")
