"""Command modules; importing each registers its commands on ``advisor.cli.app``."""

from advisor.commands import analyze  # noqa: F401
from advisor.commands import report  # noqa: F401
from advisor.commands import cost  # noqa: F401
from advisor.commands import lint  # noqa: F401
from advisor.commands import simulate  # noqa: F401
from advisor.commands import prescribe  # noqa: F401
