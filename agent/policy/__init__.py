"""Whether a tool call may run, and the one place a human is asked: ``decide`` and the
Approver (``approval``), the approval of a program the workspace declares
(``program_approval``), the command rules and what a shell command really runs
(``command_rules``, ``shell_policy``, ``command_wrappers``, ``code_execution``,
``script_scan``), and the edit that would write the secrets mask over a secret
(``masked_edits``). It runs nothing itself: ``exec`` runs what it allowed.
"""
