"""TCK912-TCK915: numerically more accurate spellings (opt-in)."""
