"""TCK7xx: tensor semantics."""
