"""The 2-D map: the fit sample's layout (`layout`), new papers placed among it (`place`), and which papers a map
draws (`sample`), for the dashboard's map and the HTML map page alike."""
