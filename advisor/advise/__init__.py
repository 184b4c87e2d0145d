"""The advisory: facts gathered from the traffic, templates and catalog, and the decision.

``build`` (in ``facts``) measures, simulates and costs; ``decide`` turns those facts into
go / no-go / trial with its reasons, as a pure function of them. ``advisor report`` and
``advisor plan`` both call ``build`` with a traffic set.
"""

from advisor.advise.facts import ReportOptions, Thresholds, build, decide, read_next, rollout

__all__ = ["ReportOptions", "Thresholds", "build", "decide", "read_next", "rollout"]
