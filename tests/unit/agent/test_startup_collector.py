"""The garbage collector paused while a command-line process starts. Each case runs in
its own interpreter: the collector is the process's, and pytest's must stay as it is."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from agentls.agent.llm.scripted_server import ScriptedModelServer, text


def _run(code: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_pause_ends_with_the_start_frozen_and_the_collector_on() -> None:
    seen = _run(
        """
        import gc, json
        from agentls.agent.startup_collector import pause_collection, resume_collection
        pause_collection()
        during = gc.isenabled()
        kept = [[i] for i in range(1000)]
        resume_collection()
        after, frozen = gc.isenabled(), gc.get_freeze_count()
        resume_collection()  # again: nothing more happens
        print(json.dumps({"during": during, "after": after, "frozen": frozen,
                          "again": gc.isenabled(), "frozen_again": gc.get_freeze_count()}))
        """
    )
    assert seen["during"] is False
    assert seen["after"] is True
    assert isinstance(seen["frozen"], int) and seen["frozen"] >= 1000
    assert seen["again"] is True and seen["frozen_again"] == seen["frozen"]


def test_a_process_that_never_calls_a_model_gets_its_collector_back() -> None:
    seen = _run(
        """
        import gc, json, threading
        from agentls.agent.startup_collector import pause_collection
        pause_collection(at_most=0.01)
        paused = not gc.isenabled()
        for thread in threading.enumerate():
            if thread.name == "agentls-resume-collector":
                thread.join()
        print(json.dumps({"paused": paused, "after": gc.isenabled()}))
        """
    )
    assert seen == {"paused": True, "after": True}


def test_a_collector_switched_off_by_an_embedder_stays_off() -> None:
    seen = _run(
        """
        import gc, json
        from agentls.agent.startup_collector import pause_collection, resume_collection
        gc.disable()
        pause_collection()
        resume_collection()
        print(json.dumps({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
        """
    )
    assert seen == {"enabled": False, "frozen": 0}


def test_the_first_model_call_resumes_the_collector() -> None:
    with ScriptedModelServer() as server:
        server.add("m", text("Hello!"))
        seen = _run(
            f"""
            import asyncio, gc, json
            from agentls.agent.startup_collector import pause_collection
            from agentls.agent.config.models import LLMConfig
            from agentls.agent.llm.adapter import adapter_for
            pause_collection(at_most=600)
            llm = adapter_for(LLMConfig(model="openai/m", api_base={server.api_base!r}))
            async def call():
                async for _ in llm.completion_stream([{{"role": "user", "content": "hi"}}]):
                    pass
            paused = not gc.isenabled()
            asyncio.run(call())
            print(json.dumps({{"paused": paused, "after": gc.isenabled()}}))
            """
        )
    assert seen == {"paused": True, "after": True}


def test_agentls_run_and_acp_start_with_the_collector_paused() -> None:
    """What the console script pauses, by command: the language server keeps its
    collector (it lives all day, and its start has its own bench)."""
    seen = _run(
        """
        import gc, json, sys
        import agentls.__main__ as entry
        from agentls.agent import startup_collector
        paused = {}
        def record(name):
            def front_end(argv):
                paused[name] = not gc.isenabled()
                startup_collector.resume_collection()
                return 0
            return front_end
        import agentls.acp_agent.main, agentls.cli.main
        sys.modules["agentls.acp_agent.main"].main = record("acp")
        sys.modules["agentls.cli.main"].main = record("run")
        entry.exit_now = lambda code: code
        for argv in (["acp"], ["run", "Say hello."]):
            sys.argv = ["agentls", *argv]
            entry.main()
        sys.modules["agentls.cli.main"].main = record("called with argv")
        entry.main(["run", "x"])
        print(json.dumps(paused))
        """
    )
    assert seen == {"acp": True, "run": True, "called with argv": False}
