"""One place masks secrets: known values (an API key, our secret variables) and key shapes."""

from __future__ import annotations

import pytest

from agentls.agent.secrets import env_secrets, looks_secret, mask_patterns, mask_values
from agentls.agent.secrets import redact_secrets as redact


def test_known_values_are_masked_longest_first() -> None:
    assert mask_values("key=abcdef123 and abcdef", ["abcdef", "abcdef123"]) == "key=*** and ***"
    assert mask_values("nothing here", [""]) == "nothing here"


def test_env_secrets_are_the_values_of_secret_names() -> None:
    env = {"OPENAI_API_KEY": "sk-1234567890", "HOME": "/home/me", "GH_TOKEN": "short"}
    assert env_secrets(env) == ["sk-1234567890"]  # "short" is too short to mask safely
    assert looks_secret("DB_PASSWORD") and not looks_secret("PATH")


def test_key_shapes_are_masked() -> None:
    text = "auth: Bearer abcdefgh123 key sk-abcdefghijkl api_key=hunter22"
    assert mask_patterns(text) == "auth: Bearer *** key *** api_key=***"


def test_the_server_log_masks_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_SECRET", "plain-looking-value")
    assert redact("sent plain-looking-value with sk-abcdefghijkl") == "sent *** with ***"
