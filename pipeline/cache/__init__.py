"""The result cache: a build's deterministic results kept on disk by the digest of everything each is made from.

`store` holds the cache itself (keys, entries, reading and writing their parts). Each result's key is built
beside its code: `embed.cache.remembered_embedder`, `fit.remembered` (neighbours, clusters), `fit.stored` (the fit),
`map.layout.remembered_map`, `describe.hierarchy.remembered_hierarchy` and `evaluate.quality.remembered_assess`.
"""
