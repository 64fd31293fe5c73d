"""What the engine keeps per workspace folder, for every front end alike.

``media``: the one table of what differs by medium (editor, terminal, ACP).
``worktree_runs``: a run in a worktree of its own, from prepare to the summary.
``runs``: ``RunBook``, the runs in flight (ids, cancel tokens, what the user sends them).
``settings``: ``FolderSettings``, the folder's settings layers and its trust.
``folder``: ``FolderEngine``, the per-folder object a front end composes its runs on.
"""
