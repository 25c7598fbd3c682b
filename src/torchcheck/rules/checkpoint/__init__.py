"""TCK4xx: checkpoints and serialization."""
