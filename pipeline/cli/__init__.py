"""The command line on top: each command parses its options and calls one library function."""
