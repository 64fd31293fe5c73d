"""Running a command for a tool or a hook: the child process with its process group,
timeout and bounded output (``process``), the bubblewrap sandbox around it and
what the user is told when there is none (``sandbox``, ``sandbox_status``), and
its output as events for a front end that mirrors it (``command_mirror``). Whether
a command may run is decided above, in ``policy``.
"""
