import sys
import time

_last = time.time()


def progress_bar(current, total, msg=None):
    """Minimal console progress bar."""
    global _last
    now = time.time()
    if current == total - 1 or now - _last > 1.0:
        _last = now
        sys.stdout.write("\r[%d/%d] %s" % (current + 1, total, msg or ""))
        if current == total - 1:
            sys.stdout.write("\n")
        sys.stdout.flush()
