"""The names lethe's records are made of: memory and episode ids, namespaces, layers, and the
defaults a record gets when none is given.

Apart from `lethe.model` so that what only needs a name (the command line as it registers
its options, `lethe.common.validate`, the MCP server's access rules) does not load pydantic and the
record models.
"""

from __future__ import annotations

import os
import re
from typing import Literal, get_args

Layer = Literal["episodic", "semantic", "learning", "caveat", "goal"]
LAYERS: tuple[str, ...] = get_args(Layer)

MEMORY_ID_RE = re.compile(r"^(mem|sys)_[0-9a-f]{12}$")
EPISODE_ID_RE = re.compile(r"^ep_[0-9a-f]{12}$")
NAMESPACE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$")
DEFAULT_NAMESPACE = "default"
DEFAULT_AGENT = "user"


def new_memory_id(*, system: bool = False) -> str:
    # os.urandom is what secrets.token_hex draws from; importing secrets costs the command
    # line's start-up a few milliseconds.
    return ("sys_" if system else "mem_") + os.urandom(6).hex()


def new_episode_id() -> str:
    return "ep_" + os.urandom(6).hex()
