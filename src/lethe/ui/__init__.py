"""The web inspector: a local page where a person sees what their agent remembers, what it
forgot (by whom, why), and puts it back. A face like the CLI and the MCP server: it parses
requests, calls the engine and renders what comes back; every decision stays in the engine.
"""

from lethe.ui.app import create_app
from lethe.ui.server import serve

__all__ = ["create_app", "serve"]
