"""`python -m advisor`: the same entry point as the console script."""

import sys

from advisor.cli import main

sys.exit(main())
