"""`topic-explorer`: build topics from abstracts, serve the dashboard, evaluate a build.

Each command parses its options (`parser.py`) and calls one library function (`commands.py`). User mistakes end
as a one-line "error: ..." on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import logging
import sys
import warnings

from topic_explorer.pipeline.cli.parser import make_parser
from topic_explorer.pipeline.errors import UserError

EXIT_USER_ERROR = 2


def main(argv: list[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    logging.getLogger("topic_explorer.pipeline").setLevel(
        logging.WARNING if getattr(args, "quiet", False) else logging.INFO
    )
    warnings.simplefilter("ignore")  # library warnings are not actionable for users
    try:
        return args.run(args)
    except UserError as error:
        print(error_line(error), file=sys.stderr)
        return EXIT_USER_ERROR
    except OSError as error:  # a full disk, a folder without permission: the machine's state, not a bug
        place = f" {error.filename}" if error.filename else ""
        problem = (
            f"could not use{place}: {error.strerror or error}; free some disk space or choose a folder you can write to"
        )
        print(error_line(UserError(problem)), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted: nothing was written", file=sys.stderr)
        return 130


def error_line(error: UserError) -> str:
    """The one line a user mistake prints, whatever the message quotes (a column name with a line break, say)."""
    return "error: " + " ".join(str(error).split())
