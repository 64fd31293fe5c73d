"""``agent/models`` over stdio: the real server, litellm's part answered by its model
worker, the scripted model server listing models as Ollama does (one without tools)."""

from __future__ import annotations

import socket

from agentls_e2e import LspFactory, plain

from agentls.agent.llm.scripted_server import ListedModel, ScriptedModelServer


async def test_models_lists_the_local_servers_models(
    lsp: LspFactory, scripted: ScriptedModelServer
) -> None:
    scripted.list_models(
        ListedModel(name="llama3.1", context_length=131072),
        ListedModel(name="gemma2", tools=False),
    )
    options = {"llm": {"model": "ollama/llama3.1", "api_base": scripted.base_url}}
    client = await lsp(init_options=options)
    catalog = plain(await client.request("agent/models", {}))
    assert catalog["current"] == "ollama/llama3.1"
    assert catalog["problems"] == []
    models = {m["id"]: m for m in catalog["models"]}
    assert list(models) == ["ollama/llama3.1", "ollama/gemma2"]
    assert models["ollama/llama3.1"]["source"] == "configured"
    assert models["ollama/llama3.1"]["contextWindow"] == 131072
    # litellm's price for it (free) came from the model worker.
    assert models["ollama/llama3.1"]["inputCostPerToken"] == 0.0
    gemma = models["ollama/gemma2"]
    assert (gemma["tools"], gemma["note"]) == (False, "no tool calling")
    assert scripted.requests == []  # listing calls no model


async def test_a_local_server_that_is_down_is_one_problem(lsp: LspFactory) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"
    client = await lsp(init_options={"llm": {"model": "openai/qwen", "api_base": base}})
    catalog = plain(await client.request("agent/models", {}))
    assert catalog["problems"] == [f"the model server at {base} did not answer: Connection refused"]
    assert [m["id"] for m in catalog["models"]] == ["openai/qwen"]
