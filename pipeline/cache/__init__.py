"""The stage cache: a build's deterministic stages kept on disk by the digest of everything each one takes.

`store` holds the cache itself (keys, entries, reading and writing their parts). Each stage builds its own key
beside its code: `embed.cache.remembered_embedder`, `fit.remembered` (neighbours, clusters, the fit),
`map.layout.remembered_map`, `describe.hierarchy.remembered_hierarchy` and `evaluate.quality.remembered_assess`.
"""
