"""`python -m topic_explorer.pipeline.cli`: the `topic-explorer` command, as run from a clone."""

import sys

from topic_explorer.pipeline.cli.main import main

sys.exit(main())
