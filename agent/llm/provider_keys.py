"""The providers whose models ``agentls models`` lists when their key is set, and the
variables litellm reads their keys from.

Only providers reached with one key and no other setting are listed (Azure, Bedrock and
Vertex need deployments, regions or projects besides). The variable names are the ones
litellm's ``validate_environment`` asks for; a unit test keeps them equal. Knowing them
here, without litellm, lets the engine decide which providers to list from the
environment it was given, and ask litellm's process only for their models.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Provider:
    """A provider as litellm names it (the model id's prefix) and as people do."""

    name: str
    label: str
    #: Any one of them holds the key.
    variables: tuple[str, ...]


PROVIDERS: tuple[Provider, ...] = (
    Provider("openai", "OpenAI", ("OPENAI_API_KEY",)),
    Provider("anthropic", "Anthropic", ("ANTHROPIC_API_KEY",)),
    Provider("gemini", "Google Gemini", ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
    Provider("mistral", "Mistral", ("MISTRAL_API_KEY",)),
    Provider("deepseek", "DeepSeek", ("DEEPSEEK_API_KEY",)),
    Provider("xai", "xAI", ("XAI_API_KEY",)),
    Provider("groq", "Groq", ("GROQ_API_KEY",)),
    Provider("cerebras", "Cerebras", ("CEREBRAS_API_KEY",)),
    Provider("together_ai", "Together AI", ("TOGETHERAI_API_KEY",)),
    Provider("fireworks_ai", "Fireworks AI", ("FIREWORKS_AI_API_KEY",)),
)

BY_NAME: dict[str, Provider] = {provider.name: provider for provider in PROVIDERS}

#: Providers litellm reaches on this machine by default, with no key.
LOCAL_PROVIDERS: frozenset[str] = frozenset(
    {"ollama", "ollama_chat", "lm_studio", "llamafile", "hosted_vllm"}
)


def provider_of(model: str) -> str | None:
    """The provider prefix of ``model`` (``openai/gpt-4o`` → ``openai``), if it has one."""
    head, sep, _ = model.partition("/")
    return head if sep else None


def label_of(provider: str) -> str:
    known = BY_NAME.get(provider)
    return known.label if known is not None else provider


def providers_with_keys(environ: Mapping[str, str]) -> list[Provider]:
    """The providers one of whose key variables is set (not empty) in ``environ``."""
    return [p for p in PROVIDERS if any(environ.get(v) for v in p.variables)]
