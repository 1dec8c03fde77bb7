"""`topic-explorer`: build topics from abstracts, serve the dashboard, evaluate a build.

Each command parses its options (`parser.py`) and calls one library function (`commands.py`). User mistakes end
as a one-line "error: ..." on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import errno
import logging
import os
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
        status = args.run(args)
        sys.stdout.flush()  # here, so a reader that stopped reading is noticed while it can be handled
        return status
    except UserError as error:
        print(error_line(error), file=sys.stderr)
        return EXIT_USER_ERROR
    except BrokenPipeError:  # `... --json | head`: the reader has what it wanted; not an error, and nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own flush at exit stays quiet
        return 0
    except OSError as error:  # a full disk, a folder without permission: the machine's state, not a bug
        print(error_line(UserError(os_problem(error))), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted: nothing was written", file=sys.stderr)
        return 130


def os_problem(error: OSError) -> str:
    """What went wrong with the machine, and the remedy that fits it (a full disk is not a missing permission)."""
    place = f" {error.filename}" if error.filename else ""
    remedy = {
        errno.ENOSPC: "free some disk space",
        errno.EDQUOT: "free some space within your disk quota",
        errno.EACCES: "choose a folder you can write to",
        errno.EPERM: "choose a folder you can write to",
        errno.EROFS: "choose a folder on a disk that is not read-only",
    }.get(error.errno, "check the path and try again")
    return f"could not use{place}: {error.strerror or error}; {remedy}"


def error_line(error: UserError) -> str:
    """The one line a user mistake prints, whatever the message quotes (a column name with a line break, say)."""
    return "error: " + " ".join(str(error).split())
