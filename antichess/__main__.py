"""`python -m antichess ...`: the same as the `antichess` command."""

import sys

from .cli import main

sys.exit(main())
