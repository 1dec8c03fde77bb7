"""The stages in order: a build folder from a corpus (`build`), and papers added to a build (`add`).

The one layer that calls every stage; only the command line imports it.
"""
