"""Papers to vectors: MiniLM over windows, TF-IDF + SVD, and the embedding cache."""
