"""The installed scripts' entry points (`lethe`, `lethe-mcp`, `python -m lethe`).

`--version` is answered here, before the command line loads: registering its commands imports
the engine's models, numpy and the tokenizer (about half a second), which a version check
has no use for. The entry points, and only they, tune numpy's threads for the process
(`lethe.common.threads.tune_blas`): importing lethe as a library changes nothing.
"""

from __future__ import annotations

import sys

from lethe.common.threads import tune_blas


def _version_only() -> bool:
    if sys.argv[1:] != ["--version"]:
        return False
    from lethe import __version__

    print(f"lethe {__version__}")
    return True


def lethe() -> None:
    tune_blas()
    if not _version_only():
        from lethe.cli import main

        main()


def lethe_mcp() -> None:
    tune_blas()
    if not _version_only():
        from lethe.cli.app import mcp_main

        mcp_main()
