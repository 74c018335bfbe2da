"""docs/migrate.md's mem0 export snippet runs on the real mem0ai (2.x, from `.venv/mem0`, made
by `make test`), and what it writes is what `lethe import --from mem0` reads.

The snippet was written for mem0 1.x once and failed on 2.x (`get_all` needs `filters=`);
this test runs it as printed. The one change made to it is where its store lives: `Memory()`
becomes `Memory.from_config(...)` with a vector store and history in the test's folder (the
default vector store is one folder for every process, `/tmp/qdrant`). mem0 stores memories
through its vector store, which needs no model or API key, so the test writes them there
itself; reading them back (`get_all`) calls no model either.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from lethe import Lethe

pytestmark = pytest.mark.mem0

ROOT = Path(__file__).resolve().parents[2]
MEM0_PYTHON = ROOT / ".venv" / "mem0" / "bin" / "python"
MIGRATE = ROOT / "docs" / "migrate.md"

SEED = """
import hashlib, json, sys, uuid
from datetime import datetime, timezone

from mem0 import Memory

config = json.loads(sys.argv[1])
m = Memory.from_config(config)
people = {
    "alice": ["Is allergic to penicillin", "Prefers trains to planes"],
    "bob": ["Lives in Porto"],
}
for user, texts in people.items():
    for text in texts:
        m.vector_store.insert(
            vectors=[[0.01] * 1536],
            ids=[str(uuid.uuid4())],
            payloads=[{
                "data": text,
                "hash": hashlib.md5(text.encode()).hexdigest(),
                "user_id": user,
                "created_at": datetime.now(timezone.utc).isoformat(),
            }],
        )
"""


def the_snippet() -> str:
    """The Python block of docs/migrate.md's mem0 section, as printed."""
    text = MIGRATE.read_text(encoding="utf-8")
    section = text[text.index("## mem0 (`mem0`)") :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "docs/migrate.md's mem0 section has no python block"
    return found.group(1)


def test_the_documented_mem0_export_imports_into_lethe(tmp_path: Path) -> None:
    assert MEM0_PYTHON.exists(), (
        "mem0's environment is missing: run make test (or make .venv/mem0/.installed)"
    )
    config = {
        "vector_store": {
            "provider": "qdrant",
            "config": {"path": str(tmp_path / "qdrant"), "collection_name": "mem0"},
        },
        "history_db_path": str(tmp_path / "history.db"),
    }
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LETHE_", "OPENAI_"))},
        "HOME": str(tmp_path),
        "MEM0_DIR": str(tmp_path / ".mem0"),
        "MEM0_TELEMETRY": "False",
        "OPENAI_API_KEY": "not-used: nothing here calls a model",
    }
    seeded = subprocess.run(
        [str(MEM0_PYTHON), "-c", SEED, json.dumps(config)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert seeded.returncode == 0, seeded.stderr
    snippet = the_snippet()
    assert snippet.count("Memory()") == 1, snippet
    runnable = snippet.replace("Memory()", f"Memory.from_config({config!r})")
    ran = subprocess.run(
        [str(MEM0_PYTHON), "-c", textwrap.dedent(runnable)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    exported = json.loads((tmp_path / "mem0.json").read_text(encoding="utf-8"))
    assert sorted(r["memory"] for r in exported["results"]) == [
        "Is allergic to penicillin",
        "Prefers trains to planes",
    ]

    with Lethe.open(tmp_path / "lethe.db") as mem:
        report = mem.import_from("mem0", tmp_path / "mem0.json")
        assert (report.imported, report.records) == (2, 2)
        stored = sorted(m.content for m in mem.list_memories({"namespace": "alice"}).items)
        assert stored == ["Is allergic to penicillin", "Prefers trains to planes"]
        again = mem.import_from("mem0", tmp_path / "mem0.json")
        assert (again.imported, again.skipped_duplicates) == (0, 2)
