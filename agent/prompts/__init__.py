"""What a prompt brings besides its words: the ``AGENTS.md`` instructions
(``instructions``), the ``/name args`` slash commands and the runs they stand for
(``slash_commands``, ``slash_command_runs``), the front matter they share
(``front_matter``), and what the user attaches (``attachments``, ``git_changes``).
"""
