"""TCK5xx: reproducibility."""
