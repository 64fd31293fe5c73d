"""The server's converter: the LSP types a run exchanges are prepared ahead of the run."""

from __future__ import annotations

from lsprotocol import types

from agentls.server.converter import agentls_converter, prime


def test_prime_builds_the_run_messages_hooks() -> None:
    converter = agentls_converter()
    # cattrs memoises the hook of each type it has dispatched on (a private attribute:
    # the only way to see that prime did the work ahead rather than on first use).
    built = converter._unstructure_func.dispatch.cache_info
    before = built().currsize
    prime(converter)
    assert built().currsize > before + 5
    edit = types.ApplyWorkspaceEditParams(
        edit=types.WorkspaceEdit(
            document_changes=[types.CreateFile(uri="file:///w/a.py")],
        ),
        label="agent: create a.py",
    )
    out = converter.unstructure(edit)
    assert out["label"] == "agent: create a.py"
    assert converter.unstructure(converter.structure(out, types.ApplyWorkspaceEditParams)) == out
