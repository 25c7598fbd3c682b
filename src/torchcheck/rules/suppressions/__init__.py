"""TCK0xx: torchcheck's own comments (TCK000, a file that cannot be linted, is the engine's)."""
