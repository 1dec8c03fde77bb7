"""Describing topics: terms, keywords, labels, derived titles, the topic tree."""
