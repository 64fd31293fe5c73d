"""The settings and where they come from: the models of ``.agentls.yaml`` and the
user config (``models``), the layers and what each may set (``loader``), what an
untrusted folder may still set (``untrusted``, ``cost_keys``, ``agent_bounds``),
the folders the user trusts and the programs approved (``trust``), the agents
(``agents``), the user's directories and saved rules (``userdirs``,
``user_rules``), where agentls writes inside a workspace (``state_paths``), and the
generated schema and README table (``docs``).
"""
