"""The per-paper work over batches (embed, assign, place, count), in this process or on Dask."""
