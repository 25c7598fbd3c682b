"""TCK9xx: deprecated, removed and non-public PyTorch APIs (parity with TorchFix, and what it misses)."""
