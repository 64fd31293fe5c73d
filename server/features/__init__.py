"""One module per LSP concern; each has ``register(ls)``, which puts its handlers on the
server with ``ls.handler(method)``, and names its methods."""
