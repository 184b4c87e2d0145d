"""Renderers of results: pure functions from result objects to text, JSON or markdown."""
