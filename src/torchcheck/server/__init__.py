"""``torchcheck server``: a language server for editors (needs the ``server`` extra: pygls).

Nothing here imports pygls, libcst or the rules until the server starts, so the command
line stays cheap to load and reports a missing extra with the command that installs it.
"""

from __future__ import annotations

import sys

__all__ = ["PYGLS_MISSING", "serve"]

PYGLS_MISSING = (
    "torchcheck: error: `torchcheck server` needs pygls, which is not installed.\n"
    'Install the server extra: pip install "torchcheck-lint[server]"\n'
)


def serve() -> int:
    """Serve the Language Server Protocol on standard input and output until the client
    exits; 2 (with the install command) when pygls is missing."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        sys.stderr.write(PYGLS_MISSING)
        return 2
    from torchcheck.server.language_server import create_server

    create_server().start_io()
    return 0
