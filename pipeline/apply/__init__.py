"""The per-paper stages over batches (embed, assign, place, count), in this process or on Dask."""
