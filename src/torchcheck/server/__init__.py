"""``torchcheck server``: a language server for editors (needs the ``server`` extra: pygls).

Nothing here imports pygls, libcst or the rules until the server starts, so the command
line stays cheap to load and reports a missing extra with the command that installs it.
The command's options are defined here and added to the command line's parser by
:func:`add_arguments`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

__all__ = ["DESCRIPTION", "LOG_LEVELS", "PYGLS_MISSING", "add_arguments", "serve"]

PYGLS_MISSING = (
    "torchcheck: error: `torchcheck server` needs pygls, which is not installed.\n"
    'Install the server extra: pip install "torchcheck-lint[server]"\n'
)
DESCRIPTION = (
    "Run the language server: editors get torchcheck's findings as you type, quick fixes and "
    "`# noqa` actions, over the Language Server Protocol on standard input and output. "
    "Configure your editor to start `torchcheck server`; see docs/editors.md."
)
LOG_LEVELS = ("error", "warning", "info", "debug")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_STDIO_HELP = "talk over standard input and output (the default and only transport; editors' language clients pass it)"
_LOG_FILE_HELP = "append the server's log to PATH instead of writing it to standard error"
_LOG_LEVEL_HELP = "how much to log: " + ", ".join(LOG_LEVELS) + " (default: warning)"
_VERBOSE_HELP = "log everything, as --log-level debug does"


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The ``server`` command's options, on its subparser."""
    parser.description = DESCRIPTION
    parser.add_argument("--stdio", action="store_true", help=_STDIO_HELP)
    parser.add_argument("--log-file", type=Path, metavar="PATH", help=_LOG_FILE_HELP)
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="warning", help=_LOG_LEVEL_HELP)
    parser.add_argument("-v", "--verbose", action="store_const", const="debug", dest="log_level", help=_VERBOSE_HELP)
    return parser


def configure_logging(log_file: Path | None, level: str) -> None:
    """The server's log (and pygls's) to ``log_file``, or to standard error: standard
    output carries the protocol."""
    import logging  # here: the command line loads this module and must stay cheap

    handler: logging.Handler = logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def serve(options: argparse.Namespace | None = None) -> int:
    """Serve the Language Server Protocol on standard input and output until the client
    exits; 2 (with the install command) when pygls is missing."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        sys.stderr.write(PYGLS_MISSING)
        return 2
    try:
        configure_logging(getattr(options, "log_file", None), getattr(options, "log_level", "warning"))
    except OSError as error:
        sys.stderr.write(f"torchcheck: error: cannot write the log file: {error}\n")
        return 2
    from torchcheck.server.language_server import create_server

    create_server().start_io()
    return 0
