"""Database kernel: declarative base, engine/session factory and automatic migrations."""

from stockdesk.shared.db.base import Base
from stockdesk.shared.db.database import Database

__all__ = ["Base", "Database"]
