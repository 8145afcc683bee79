"""``python -m elot`` runs the command line."""

import sys

from elot.cli import main

sys.exit(main())
