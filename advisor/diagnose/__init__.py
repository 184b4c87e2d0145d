"""Why hits are lost: dynamic spans, section order and capacity, read off the traffic's tokens."""
