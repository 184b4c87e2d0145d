"""Observed against predicted: what the engine or provider reported against advisor's
prediction, per request and in total, and the gap split into what advisor can name."""
