"""One module per LSP concern; each has ``register(ls)`` and names its methods."""
