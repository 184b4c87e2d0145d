"""What to change: actions, the traffic rewritten by them, and template diffs."""
