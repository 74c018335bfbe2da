"""The CLI face of proof of erasure: `lethe purge --receipt FILE`, the receipt in purge's
output, and `lethe receipt verify | list | show`, end to end on a real SQLite file with the
real MiniLM embedder (CliRunner: stdin is never a terminal, so purges take --yes)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner, Result

from lethe import Lethe
from lethe.cli import app, confirming
from lethe.embed import Embedder
from lethe.schemas import load
from tests.backends import snapshot

SECRET = "User's gate code is ZQ-7731-KX for the back garage"
TOKEN = "ZQ-7731-KX"
OTHER = "User prefers green tea in the morning"

runner = CliRunner()
validator = jsonschema.Draft202012Validator(load("forget-response"))


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own database, workspace, settings and config out of every test."""
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


@pytest.fixture
def db(db_path: Path) -> str:
    return str(db_path)


def run(db: str, *args: str, input: str | None = None) -> Result:
    return runner.invoke(app, [*args, "--db", db], input=input)


def ok(db: str, *args: str) -> Result:
    result = run(db, *args)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def remember(db: str, text: str, *more: str) -> str:
    memory_id: str = json.loads(ok(db, "remember", text, *more, "--json").stdout)["id"]
    return memory_id


def one_error(result: Result, *fragments: str) -> None:
    """Exit 1 and one `error:` line on stderr holding every fragment; no traceback."""
    assert result.exit_code == 1, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def purged_with_receipt(db: str, tmp_path: Path, name: str = "receipt.json") -> tuple[str, Path]:
    memory_id = remember(db, SECRET)
    file = tmp_path / name
    result = ok(db, "purge", memory_id, "--yes", "--receipt", str(file))
    receipt = json.loads(file.read_text(encoding="utf-8"))
    line = f"receipt {receipt['receipt_id']}: erased (signed; written to {file})"
    assert line in " ".join(result.stdout.split())
    return memory_id, file


# -- purge --receipt -----------------------------------------------------------------------


def test_purge_receipt_file_is_the_stored_receipt_and_verifies(db: str, tmp_path: Path) -> None:
    memory_id, file = purged_with_receipt(db, tmp_path)
    text = file.read_text(encoding="utf-8")
    assert text.startswith('{\n  "lethe_receipt": 1,\n'), "indent 2"
    receipt = json.loads(text)
    assert receipt["status"] == "erased"
    assert [m["id"] for m in receipt["memories"]] == [memory_id]
    assert receipt["confirmed"]["via"] == "yes"
    assert TOKEN not in text and "gate code" not in text, "a receipt never holds the words"
    shown = json.loads(ok(db, "receipt", "show", receipt["receipt_id"]).stdout)
    assert shown == receipt

    verified = ok(db, "receipt", "verify", str(file))
    flat = " ".join(verified.stdout.split())
    assert flat.startswith(f"holds: receipt {receipt['receipt_id']},")
    assert f"ids: {memory_id}" in flat and receipt["erased_at"] in flat
    body = json.loads(ok(db, "receipt", "verify", str(file), "--json").stdout)
    assert body == {
        "holds": True,
        "problems": [],
        "receipt_id": receipt["receipt_id"],
        "status": "erased",
        "erased_at": receipt["erased_at"],
        "ids": [memory_id],
    }


def test_purge_without_receipt_shows_its_id_and_json_holds_it(db: str, tmp_path: Path) -> None:
    first = remember(db, SECRET)
    human = ok(db, "purge", first, "--yes")
    [receipt] = json.loads(ok(db, "receipt", "list", "--json").stdout)["items"]
    rid = receipt["receipt_id"]
    flat = " ".join(human.stdout.split())
    assert f"receipt {rid}: erased (signed; lethe receipt show {rid} --out FILE)" in flat

    second = remember(db, OTHER)
    body = json.loads(ok(db, "purge", second, "--yes", "--json").stdout)
    validator.validate(body)
    assert body["deletedIds"] == [second]
    assert body["receipt"]["status"] == "erased"
    assert [m["id"] for m in body["receipt"]["memories"]] == [second]
    assert body["receipt"] == json.loads(
        ok(db, "receipt", "show", body["receipt"]["receipt_id"]).stdout
    )
    assert list(tmp_path.glob("*.json")) == []


@pytest.mark.parametrize("tamper", ["id", "digest"])
def test_a_tampered_receipt_does_not_hold(db: str, tmp_path: Path, tamper: str) -> None:
    memory_id, file = purged_with_receipt(db, tmp_path)
    live = remember(db, OTHER)
    receipt = json.loads(file.read_text(encoding="utf-8"))
    entry = receipt["memories"][0]
    if tamper == "id":
        entry["id"] = live
        expected = f"{live} still exists"
    else:
        entry["content_sha256"] = "0" * 64
        expected = f"the audit log holds no purge of {memory_id} with that digest"
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(receipt, indent=2), encoding="utf-8")

    result = run(db, "receipt", "verify", str(bad))
    assert result.exit_code == 1, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"does not hold: receipt {receipt['receipt_id']}")
    assert "- the signature does not match the receipt's contents" in lines
    assert f"- {expected}" in lines
    assert result.stderr.startswith(f"error: receipt {receipt['receipt_id']} does not hold")

    body = json.loads(run(db, "receipt", "verify", str(bad), "--json").stdout)
    assert body["holds"] is False and expected in body["problems"]


def test_an_incomplete_erasure_exits_4_and_never_says_erased(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token left in a daily log lethe owns (another namespace's, which the purge's
    cleanup does not rewrite): the rows go, the receipt is incomplete, the status is 4."""
    workspace = tmp_path / "ws"
    monkeypatch.setenv("LETHE_WORKSPACE_DIR", str(workspace))
    memory_id = remember(db, SECRET)
    remember(db, OTHER, "--namespace", "work")
    stale = workspace / "work" / "memory" / "1999-01-01.md"
    assert stale.parent.is_dir()
    stale.write_text(f"# 1999-01-01\n\n- 09:00 [episodic] gate {TOKEN}\n", encoding="utf-8")
    file = tmp_path / "receipt.json"

    result = run(db, "purge", memory_id, "--yes", "--receipt", str(file))
    assert result.exit_code == 4, (result.stdout, result.stderr, result.exception)
    done = result.stdout.split("Would erase for good 1 memory.", 1)[1]
    assert "erased" not in done.lower(), done
    assert f"deleted the rows of {memory_id}" in done
    receipt = json.loads(file.read_text(encoding="utf-8"))
    assert receipt["status"] == "incomplete"
    assert [r["path"] for r in receipt["scan"]["remaining"]] == [
        "workspace/work/memory/1999-01-01.md"
    ]
    assert f"receipt {receipt['receipt_id']}: incomplete" in " ".join(done.split())
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: the rows were deleted but the erasure is not proven")
    assert "erased" not in line
    assert run(db, "show", memory_id).exit_code == 1, "the rows are gone all the same"

    # The receipt is genuine: it holds, and says it is incomplete.
    verified = ok(db, "receipt", "verify", str(file))
    assert verified.stdout.startswith("holds: ")
    assert "status: incomplete" in verified.stdout

    again = remember(db, f"Spare gate code {TOKEN} is in the drawer")
    body = run(db, "purge", again, "--yes", "--json")
    assert body.exit_code == 4, (body.stdout, body.stderr)
    answer = json.loads(body.stdout)
    validator.validate(answer)
    assert answer["receipt"]["status"] == "incomplete"


# -- bad input -----------------------------------------------------------------------------


def test_an_existing_receipt_file_is_refused_before_anything_is_purged(
    db: str, tmp_path: Path
) -> None:
    memory_id = remember(db, SECRET)
    file = tmp_path / "receipt.json"
    file.write_text("mine\n", encoding="utf-8")
    before = snapshot(db)
    one_error(
        run(db, "purge", memory_id, "--yes", "--receipt", str(file)),
        f"--receipt {file} already exists",
        "never written over",
    )
    assert snapshot(db) == before, "nothing was purged"
    assert file.read_text(encoding="utf-8") == "mine\n"
    ok(db, "show", memory_id)

    missing = tmp_path / "no-such-folder" / "receipt.json"
    one_error(
        run(db, "purge", memory_id, "--yes", "--receipt", str(missing)),
        f"the folder {missing.parent} does not exist",
    )
    assert snapshot(db) == before
    assert not missing.parent.exists()


def test_no_receipt_file_when_nothing_is_purged(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = remember(db, SECRET)
    file = tmp_path / "receipt.json"
    unknown = run(db, "purge", "mem_000000000000", "--yes", "--receipt", str(file))
    assert unknown.exit_code == 1
    assert "no receipt written" in unknown.stderr and not file.exists()

    monkeypatch.setattr(confirming, "interactive", lambda: True)
    declined = run(db, "purge", memory_id, "--receipt", str(file), input="n\n")
    assert declined.exit_code == 0, (declined.stdout, declined.stderr)
    assert "declined" in declined.stderr and not file.exists()
    ok(db, "show", memory_id)

    asked = run(db, "purge", memory_id, "--receipt", str(file), input="y\n")
    assert asked.exit_code == 0, (asked.stdout, asked.stderr)
    assert json.loads(file.read_text(encoding="utf-8"))["confirmed"]["via"] == "prompt"


def test_verify_reports_unreadable_and_foreign_files(db: str, tmp_path: Path) -> None:
    purged_with_receipt(db, tmp_path)
    missing = tmp_path / "missing.json"
    one_error(run(db, "receipt", "verify", str(missing)), f"cannot read {missing}")
    text = tmp_path / "notes.txt"
    text.write_text("not json at all\n", encoding="utf-8")
    one_error(run(db, "receipt", "verify", str(text)), f"{text} is not JSON")
    binary = tmp_path / "blob.json"
    binary.write_bytes(b'{"a": "\xff"}')
    one_error(run(db, "receipt", "verify", str(binary)), "is not UTF-8 text")
    for foreign in ('{"status": "erased"}', "[1, 2]", '{"lethe_receipt": 2}'):
        other = tmp_path / "other.json"
        other.write_text(foreign, encoding="utf-8")
        one_error(run(db, "receipt", "verify", str(other)), "not a lethe erasure receipt")


# -- list and show -------------------------------------------------------------------------


def test_list_is_newest_first_and_show_writes_a_new_file(db: str, tmp_path: Path) -> None:
    one_error(run(db, "receipt", "list"), "there is no memory store")
    first, _ = purged_with_receipt(db, tmp_path, "one.json")
    a, b = remember(db, OTHER), remember(db, "User owns a blue bicycle named Comet")
    ok(db, "purge", a, b, "--yes")
    items = json.loads(ok(db, "receipt", "list", "--json").stdout)["items"]
    assert [(i["count"], sorted(i["ids"]), i["status"]) for i in items] == [
        (2, sorted([a, b]), "erased"),
        (1, [first], "erased"),
    ]
    page = json.loads(ok(db, "receipt", "list", "--limit", "1", "--offset", "1", "--json").stdout)
    assert [i["receipt_id"] for i in page["items"]] == [items[1]["receipt_id"]]
    table = ok(db, "receipt", "list").stdout
    assert "no receipts past 2" in ok(db, "receipt", "list", "--offset", "2").stdout
    assert table.index(items[0]["receipt_id"]) < table.index(items[1]["receipt_id"])
    assert run(db, "receipt", "list", "--limit", "0").exit_code == 2

    rid = items[0]["receipt_id"]
    out = tmp_path / "two.json"
    written = ok(db, "receipt", "show", rid, "--out", str(out))
    assert f"wrote receipt {rid} to {out}" in " ".join(written.stdout.split())
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(
        ok(db, "receipt", "show", rid).stdout
    )
    ok(db, "receipt", "verify", str(out))
    one_error(run(db, "receipt", "show", rid, "--out", str(out)), "already exists")
    one_error(run(db, "receipt", "show", "rcpt_0000000000000000"), "no receipt rcpt_0000")


def test_an_interrupted_purge_is_listed_then_receipted_and_verify_says_so(
    db: str, tmp_path: Path, embedder: Embedder
) -> None:
    """A purge whose cleanup died after its commit: while no open can sign (the key is
    readable by others) the list shows it without a receipt; then its receipt verifies and
    says the check never ran, not that traces were found."""
    with Lethe.open(db, embedder=embedder) as mem:
        memory_id = mem.remember(SECRET).id
        key = mem.store.signing_key_path()

        def died() -> bool:
            raise RuntimeError("the cleanup died")

        mem.store.compact = died  # type: ignore[method-assign]
        with pytest.raises(RuntimeError):
            mem.execute(mem.plan_purge([memory_id]))
    os.chmod(key, 0o644)
    table = " ".join(ok(db, "receipt", "list").stdout.split())
    assert "— " in table and "no receipt: interrupted" in table
    [listed] = json.loads(ok(db, "receipt", "list", "--json").stdout)["items"]
    assert listed["receipt_id"] is None and listed["ids"] == [memory_id]
    os.chmod(key, 0o600)
    [item] = json.loads(ok(db, "receipt", "list", "--json").stdout)["items"]
    assert item["status"] == "incomplete" and item["ids"] == [memory_id]
    out = tmp_path / "interrupted.json"
    ok(db, "receipt", "show", item["receipt_id"], "--out", str(out))
    verdict = " ".join(ok(db, "receipt", "verify", str(out)).stdout.split())
    assert verdict.startswith("holds: ") and "interrupted after its commit" in verdict
    assert "found traces" not in verdict


def test_every_receipt_command_has_help() -> None:
    purge = runner.invoke(app, ["purge", "--help"])
    assert "--receipt" in purge.stdout and "Exit status 4" in " ".join(purge.stdout.split())
    for command in ("verify", "list", "show"):
        result = runner.invoke(app, ["receipt", command, "--help"])
        assert result.exit_code == 0 and "--json" in result.stdout, command
