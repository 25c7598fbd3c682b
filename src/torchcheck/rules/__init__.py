"""The rule set: one rule per module, grouped by family (discovered, not registered)."""
