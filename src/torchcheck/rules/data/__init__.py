"""TCK8xx: data loading."""
