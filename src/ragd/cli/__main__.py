"""``python -m ragd.cli``: the ``ragd`` command."""

import sys

from . import main

sys.exit(main())
