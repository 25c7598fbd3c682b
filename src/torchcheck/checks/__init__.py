"""Runtime checks: plain functions that raise :class:`CheckFailed`.

These modules import torch freely but never pytest; the pytest plugin wraps them.
The public names are re-exported lazily from :mod:`torchcheck`.
"""
