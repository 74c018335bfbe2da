"""`lethe receipt`: the signed erasure receipts purges leave (see `engine/proof.py`).

verify checks a receipt file against the store (`Lethe.verify_receipt`), list and show read
the receipts the store keeps. `write_receipt` and `receipt_target` are also what
`lethe purge --receipt FILE` writes with: a receipt file is never written over.
"""

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from lethe.cli.app import (
    DbOpt,
    JsonOpt,
    app,
    emit_items,
    emit_json,
    fail,
    open_lethe,
    stderr,
    stdout,
)
from lethe.common.validate import MAX_OFFSET

receipt_app = typer.Typer(
    name="receipt",
    help="Erasure receipts: the signed record each purge leaves of what it erased, where and "
    "how (ids and digests, never the words). Verify a receipt file against this store, list "
    "the receipts it keeps, or show one.",
    no_args_is_help=True,
)
app.add_typer(receipt_app)

OutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        "-o",
        metavar="FILE",
        dir_okay=False,
        help="Write the receipt's JSON to FILE (a new file; an existing one is refused).",
    ),
]


def receipt_target(path: Path, option: str) -> Path:
    """Refuse, before anything is done, a receipt file that cannot be made: an existing
    file (receipts are evidence: never written over) or a missing folder."""
    if path.exists() or path.is_symlink():
        raise fail(
            f"{option} {path} already exists; a receipt is never written over",
            hint="name a new file",
        )
    folder = path.parent
    if not folder.is_dir():
        raise fail(
            f"{option} {path}: the folder {folder} does not exist",
            hint="create it first, or name a file in an existing folder",
        )
    return path


def write_receipt(path: Path, receipt: dict[str, Any]) -> None:
    """The receipt as JSON (indent 2, UTF-8) in a new file."""
    text = json.dumps(receipt, ensure_ascii=False, indent=2) + "\n"
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        rid = receipt.get("receipt_id")
        raise fail(
            f"the receipt {rid} could not be written to {path}: {exc.strerror or exc}",
            hint=f"the store keeps it: lethe receipt show {rid} --out FILE",
        ) from None


def _read(path: Path) -> Any:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise fail(
            f"cannot read {path}: {exc.strerror or exc}",
            hint="give the JSON file lethe purge --receipt or lethe receipt show --out wrote",
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at position {exc.start})",
            hint="a receipt is a JSON file",
        ) from None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise fail(
            f"{path} is not JSON: {exc}",
            hint="give the JSON file lethe purge --receipt or lethe receipt show --out wrote",
        ) from None


@receipt_app.command(
    help="Check a receipt file against this store: its signature, that the signing key is "
    "this store's, that the audit log holds a purge of each id with the receipt's content "
    "digest, and that none of the ids exists. Prints 'holds' or each problem.\n\n"
    "Exit status 1 when the receipt does not hold (or is not a lethe receipt).",
)
def verify(
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", help="A receipt's JSON (from lethe purge --receipt)."),
    ],
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render_receipts

    receipt = _read(file)
    with open_lethe(db, existing=True) as mem:
        problems = mem.verify_receipt(receipt)
    if json_:
        emit_json(render_receipts.verdict_json(receipt, problems))
    else:
        stdout().print(render_receipts.verdict_view(receipt, problems), soft_wrap=True)
    if problems:
        stderr().print(
            f"error: receipt {receipt.get('receipt_id')} does not hold "
            f"({len(problems)} problem(s))",
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(1)


@receipt_app.command(
    name="list", help="The receipts this store keeps, newest first: id, time, status, ids."
)
def list_(
    limit: Annotated[int, typer.Option(min=1, max=1000, help="Page size (1-1000).")] = 50,
    offset: Annotated[
        int, typer.Option(min=0, max=MAX_OFFSET, help=f"Skip this many first (0 to {MAX_OFFSET}).")
    ] = 0,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render_receipts

    with open_lethe(db, existing=True) as mem:
        receipts = mem.receipts(limit, offset)
    if json_:
        emit_items((render_receipts.summary(r) for r in receipts), offset=offset, limit=limit)
        return
    out = stdout()
    if not receipts:
        out.print("no receipts" + (f" past {offset}" if offset else "") + ": nothing was purged")
        return
    out.print(render_receipts.receipts_table(receipts))


@receipt_app.command(
    help="Print a receipt's JSON (the signed document, as purge --receipt writes it), or "
    "write it to a new file with --out."
)
def show(
    receipt_id: Annotated[
        str, typer.Argument(metavar="ID", help="A receipt id, rcpt_… (see lethe receipt list).")
    ],
    out: OutOpt = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    if out is not None:
        receipt_target(out, "--out")
    with open_lethe(db, existing=True) as mem:
        receipt = mem.receipt(receipt_id)
    if receipt is None:
        raise fail(f"no receipt {receipt_id} in this store", hint="see lethe receipt list")
    if out is None:
        emit_json(receipt)
        return
    write_receipt(out, receipt)
    if json_:
        emit_json({"receipt_id": receipt_id, "written_to": str(out)})
    else:
        stdout().print(f"wrote receipt {receipt_id} to {out}", markup=False, soft_wrap=True)
