"""The terminal front end: ``agentls run`` and the other subcommands (``main.py``), the
terminal's approver, asker and observer (``terminal.py``), trust and checkpoints on the
terminal, and the demo. It drives the engine (``agentls.agent``) like the language server
and ACP do, and imports neither of them."""
