import sys


def progress_bar(msg, verbose=True):
    """Overwrite the current terminal line with `msg`."""
    if verbose:
        sys.stderr.write("\r")
        sys.stderr.write(msg)
        sys.stderr.flush()
