"""TCK3xx: mixed precision (autocast and GradScaler)."""
