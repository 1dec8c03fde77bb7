"""How good the topics are: coherence, diversity, outliers, agreement with labels."""
