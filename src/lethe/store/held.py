"""Where live data may hold a string: the rows a proof of erasure reads to tell a trace of an
erased text from a word that a memory the purge did not target still holds.

Each source is a table, the expression naming the memory a row belongs to, and the text
columns read; both stores read the same ones (`sqlite_proof`, `postgres_proof`). Every other
text column of lethe's own tables is read too, as an anonymous record (`table.column`):
full-text index internals and gram texts never, since what they keep is what the scan is
looking for.
"""

from __future__ import annotations

MEMORY_SOURCES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "memories",
        "id",
        (
            "id",
            "namespace",
            "agent",
            "content",
            "category",
            "metadata",
            "forget_reason",
            "change_reason",
        ),
    ),
    ("memory_versions", "memory_id", ("content", "reason", "metadata", "tags")),
    ("memory_context", "memory_id", ("content",)),
    ("memory_tags", "memory_id", ("tag",)),
    ("events", "memory_id", ("reason", "details", "actor", "namespace")),
)

NOT_RECORDS = frozenset(
    {
        "memory_gram_text",
        "context_gram_text",
        "receipts",
        "receipt_keys",
        "reembed_vectors",
        "owed_work",
    }
)
"""Tables never read as records: index content, the receipts themselves (digests), and the
work still owed (a purge's receipt waits there with its digests while the scan runs)."""
INDEX_SUFFIXES = ("_data", "_idx", "_docsize", "_config", "_content")
