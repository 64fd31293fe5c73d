"""The terminal front end: the ``agentls`` subcommands, each in a module of its own that
adds its sub-parser (``main.py`` builds the parser from them and dispatches), the
terminal's approver, asker and observer (``terminal.py``), and the demo. It drives the
engine (``agentls.agent``) like the language server and ACP do, and imports neither of
them."""
