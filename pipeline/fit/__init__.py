"""Fitting the topic model on the fit sample: reduction, clustering, named topics, the map's layout."""
