"""Anonymised, replayable traces written from any traffic advisor reads."""
