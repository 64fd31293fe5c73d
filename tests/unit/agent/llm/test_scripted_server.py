"""The scripted model server: its HTTP routes, script loading and the subprocess mode."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from agentls.agent.llm.scripted_server import (
    CutPoint,
    ScriptedModelServer,
    call,
    cut,
    key_fingerprint,
    load_turns,
    text,
    tool_calls,
)
from agentls.agent.llm.scripted_server_process import spawn_scripted_server


def post(url: str, payload: Any, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode(),
        method="POST",
        headers={"content-type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def sse_events(body: str) -> list[Any]:
    events = [line[len("data: ") :] for line in body.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]


def test_streams_tool_calls_like_a_provider(scripted: ScriptedModelServer) -> None:
    scripted.add("m", tool_calls(call("write_file", {"path": "a.py", "content": "x" * 50})))
    status, body = post(
        f"{scripted.base_url}/chat/completions",
        {"model": "m", "stream": True, "stream_options": {"include_usage": True}},
    )
    assert status == 200
    events = sse_events(body)
    deltas = [e["choices"][0]["delta"] for e in events if e["choices"]]
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert calls[0]["id"] and calls[0]["function"]["name"] == "write_file"
    pieces = [c["function"]["arguments"] for c in calls[1:]]
    assert 2 <= len(pieces) <= 4
    assert json.loads("".join(pieces)) == {"path": "a.py", "content": "x" * 50}
    assert events[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert events[-1]["choices"] == [] and events[-1]["usage"]["total_tokens"] > 0


def test_models_fall_back_to_the_default_queue_and_fail_loudly_when_empty(
    scripted: ScriptedModelServer,
) -> None:
    scripted.add(None, text("default"))
    status, body = post(f"{scripted.api_base}/chat/completions", {"model": "openai/zed"})
    assert status == 200 and json.loads(body)["choices"][0]["message"]["content"] == "default"
    status, body = post(f"{scripted.api_base}/chat/completions", {"model": "zed"})
    assert status == 500
    assert json.loads(body)["error"]["message"] == "scripted model: no turn left for model zed"


def test_http_control_routes_and_the_record(scripted: ScriptedModelServer) -> None:
    base = scripted.base_url
    assert get(f"{base}/health") == {"status": "ok"}
    status, _ = post(f"{base}/_script", {"model": "bob", "turns": [{"text": "hi bob"}]})
    assert status == 200 and scripted.remaining("bob") == 1
    assert [m["id"] for m in get(f"{base}/v1/models")["data"]] == ["bob"]
    status, body = post(
        f"{base}/v1/chat/completions",
        {"model": "bob", "messages": [{"role": "user", "content": "yo"}]},
        headers={"Authorization": "Bearer sk-bob"},
    )
    assert json.loads(body)["choices"][0]["message"]["content"] == "hi bob"
    (record,) = get(f"{base}/_requests")
    assert record["auth_present"] and record["auth_sha256"] == key_fingerprint("sk-bob")
    assert "sk-bob" not in json.dumps(record)
    assert record["body"]["messages"] == [{"role": "user", "content": "yo"}]
    status, body = post(f"{base}/_script", {"turns": [{"txt": "typo"}]})
    assert status == 400 and "txt" in body
    post(f"{base}/_reset", {})
    assert get(f"{base}/_requests") == [] and scripted.queue_names() == []


def test_script_files_load_in_three_shapes() -> None:
    assert list(load_turns([{"text": "a"}])) == [""]
    assert list(load_turns({"model": "openai/alice", "turns": [{"text": "a"}]})) == ["alice"]
    by_model = load_turns({"models": {"a": [{"text": "1"}], "b": [{"status": 429}]}})
    assert by_model["b"][0].status == 429


def test_subprocess_mode(tmp_path: Path) -> None:
    script = tmp_path / "turns.json"
    script.write_text(json.dumps({"model": "carol", "turns": [{"text": "from file"}]}))
    with spawn_scripted_server(script) as remote:
        assert remote.healthy()
        remote.add("carol", text("added later"))
        answers = [
            json.loads(post(f"{remote.api_base}/chat/completions", {"model": "carol"})[1])
            for _ in range(2)
        ]
        assert [a["choices"][0]["message"]["content"] for a in answers] == [
            "from file",
            "added later",
        ]
        assert len(remote.requests()) == 2
        remote.reset()
        assert remote.requests() == []


@pytest.mark.parametrize("path", ["/nope", "/v1/nope"])
def test_unknown_routes_are_404(scripted: ScriptedModelServer, path: str) -> None:
    status, _ = post(scripted.base_url + path, {})
    assert status == 404


@pytest.mark.parametrize("at", ["text", "arguments", "between_calls", "before_finish"])
def test_a_cut_stream_stops_where_asked_without_a_finish_reason(
    scripted: ScriptedModelServer, at: CutPoint
) -> None:
    turn = tool_calls(
        call("read_file", {"path": "a.py"}), call("read_file", {"path": "b.py"}), text="x" * 30
    )
    scripted.add("m", cut(turn, at, "close"))
    status, body = post(f"{scripted.base_url}/chat/completions", {"model": "m", "stream": True})
    assert status == 200 and "[DONE]" not in body
    events = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]
    deltas = [e["choices"][0]["delta"] for e in events]
    assert all(e["choices"][0]["finish_reason"] is None for e in events)
    texts = "".join(d.get("content") or "" for d in deltas)
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    heads = [c for c in calls if "id" in c]
    arguments = "".join(c["function"]["arguments"] for c in calls if c["index"] == 0)
    expected = {
        "text": (0 < len(texts) < 30, 0),
        "arguments": (texts == "x" * 30, 1),
        "between_calls": (texts == "x" * 30, 1),
        "before_finish": (texts == "x" * 30, 2),
    }[at]
    assert expected == (True, len(heads))
    if at == "arguments":
        assert arguments and arguments != '{"path": "a.py"}'
    if at == "between_calls":
        assert arguments == '{"path": "a.py"}'


def test_a_dropped_stream_breaks_the_http_body(scripted: ScriptedModelServer) -> None:
    scripted.add("m", cut(text("y" * 40), "text", "drop"))
    with pytest.raises(http.client.IncompleteRead):
        post(f"{scripted.base_url}/chat/completions", {"model": "m", "stream": True})
