"""The agent side of the Agent Client Protocol, agentls's own: JSON-RPC 2.0 over stdio
(``connection``), the messages ``acp_agent`` sends and reads (``schema``, built by
``helpers``), the client's methods (``client``) and the agent's (``router``).

It speaks exactly what the official SDK (``agent-client-protocol``) put on the wire for
these messages, without importing it: the SDK builds its 273 schema models at import,
which alone took longer than the rest of ``agentls acp``'s start.
"""
