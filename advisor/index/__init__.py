"""Tokens to a radix tree: the index, the unlimited-capacity analysis, partitioning over workers."""
