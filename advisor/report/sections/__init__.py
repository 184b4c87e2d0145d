"""The advisory's sections, in order: each a pure function of the facts ``advisor.advise.build``
gathers (decision included) returning markdown lines and tables.

``SECTIONS`` is the one registry: ``advisor.report.advisory.to_markdown`` numbers the titled
ones and joins them. To add a section, write a module here with a ``render(data, picture)``
and put it in its place below.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from advisor.report.sections import architecture, audit, capacity, closing, costs, engines, fingerprint, headline, hosted, rollout
from advisor.report.sections import tenants
from advisor.report.sections import conversations
from advisor.report.sections import money
from advisor.report.sections import tiers
from advisor.report.sections.format import Block

Render = Callable[[dict[str, Any], "str | None"], list[Block]]


@dataclass(frozen=True)
class Section:
    title: str | None  # a numbered "## n. title" heading; None: no heading
    render: Render


SECTIONS: tuple[Section, ...] = (
    Section(None, headline.render),
    Section(fingerprint.TITLE, fingerprint.render),
    Section(audit.TITLE, audit.render),
    Section(tenants.TITLE, tenants.render),
    Section(capacity.TITLE, capacity.render),
    Section(None, tiers.render),  # the host-memory tier: the capacity section's closing paragraph
    Section(conversations.TITLE, conversations.render),
    Section(engines.TITLE, engines.render),
    Section(architecture.TITLE, architecture.render),
    Section(costs.TITLE, costs.render),
    Section(money.TITLE, money.render),
    Section(rollout.TITLE, rollout.render),
    Section(hosted.TITLE, hosted.render),
    Section(closing.TITLE, closing.read_next),
    Section(None, closing.footer),
)
