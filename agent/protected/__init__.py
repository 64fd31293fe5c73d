"""The files of a workspace that nobody changes without asking: the fixed names that
configure agentls, the editor, git or an agent (``paths``), which of them a tool
call would change (``edits``), what a command planted there and is undone
(``planted_files``), and the workspace files an approved program runs or reads,
fingerprinted into its approval (``approved_files``).
"""
