"""The key that signs erasure receipts: Ed25519, made on first use, kept beside the store.

The private key is a PEM file only its owner can read (created with mode 0600, refused if it
is readable by anyone else); its public half is recorded in the store, so a receipt can be
checked against the store it came from (`lethe receipt verify`) by anyone who can open the
store, without the private key. Signing and checking are the `cryptography` library's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from lethe.errors import SigningKeyError

__all__ = ["Ed25519PrivateKey", "SigningKeyError"]


def canonical(body: dict[str, Any]) -> bytes:
    """The bytes a receipt's signature covers: its JSON without the signature, keys sorted,
    no spaces, ASCII only — the same on every machine."""
    unsigned = {k: v for k, v in body.items() if k != "signature"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def public_text(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def key_id(public: str) -> str:
    """A short name for a public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(base64.b64decode(public)).hexdigest()[:16]


def load_or_create(path: Path) -> Ed25519PrivateKey:
    """The private key at `path`, made there first if there is none (owner-only)."""
    if path.is_symlink():
        raise SigningKeyError(
            f"the receipt signing key {path} is a symbolic link",
            hint="replace it by the key file itself (owner-only), or remove it to have a new "
            "key made",
        )
    if not path.exists():
        made = _create(path)
        if made is not None:
            return made
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SigningKeyError(
            f"the receipt signing key {path} can be read by others (mode {stat.filemode(mode)})",
            hint=f"make it owner-only: chmod 600 {path}",
        )
    try:
        loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise SigningKeyError(
            f"the receipt signing key {path} cannot be read: {exc}",
            hint="restore it from a backup, or move it away to have a new key made "
            "(receipts signed with the old key still verify: its public half is in the store)",
        ) from exc
    if not isinstance(loaded, Ed25519PrivateKey):
        raise SigningKeyError(
            f"{path} is not an Ed25519 key", hint="move it away; a new one is made"
        )
    return loaded


def _create(path: Path) -> Ed25519PrivateKey | None:
    """A new key written at `path` (owner-only, never through a link), or None when
    another process made one there meanwhile."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return None
    except OSError as exc:
        raise SigningKeyError(
            f"the receipt signing key cannot be made at {path}: {exc}",
            hint=f"make {path.parent} writable by this user; nothing was erased",
        ) from exc
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
        handle.flush()
        os.fsync(handle.fileno())
    return key


def sign(key: Ed25519PrivateKey, body: dict[str, Any]) -> dict[str, Any]:
    """The body with its public key, key id and signature added."""
    public = public_text(key.public_key())
    signed = {**body, "public_key": public, "key_id": key_id(public)}
    signed["signature"] = base64.b64encode(key.sign(canonical(signed))).decode()
    return signed


def signature_holds(body: dict[str, Any]) -> bool:
    """Whether the receipt's signature is valid under the public key it names."""
    try:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(body["public_key"]))
        public.verify(base64.b64decode(body["signature"]), canonical(body))
    except (KeyError, TypeError, ValueError, InvalidSignature):
        return False
    return True
