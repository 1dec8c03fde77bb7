"""The one exception type for user mistakes (bad input, bad options)."""


class UserError(Exception):
    """A problem the user can fix; the CLI prints its message as one line and exits 2.

    Messages name the problem and the fix, e.g. "no abstract column in papers.csv
    (columns: id, body); name it with --text-column".
    """
