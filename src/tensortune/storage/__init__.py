"""Records storage: SQLite (default) with JSON-lines import/export."""

from tensortune.storage.records import TuningRecord
from tensortune.storage.sqlite import SCHEMA_VERSION, SQLiteStorage, StorageError

__all__ = ["SCHEMA_VERSION", "SQLiteStorage", "StorageError", "TuningRecord"]
