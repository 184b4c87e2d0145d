"""Command modules; importing each registers its commands on ``advisor.cli.app``.

The order here is the order of `advisor --help`: the data flow, lint to report.
"""

from advisor.commands import lint  # noqa: F401
from advisor.commands import analyze  # noqa: F401
from advisor.commands import simulate  # noqa: F401
from advisor.commands import prescribe  # noqa: F401
from advisor.commands import cost  # noqa: F401
from advisor.commands import report  # noqa: F401
