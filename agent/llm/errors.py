"""Errors that leave the LLM adapter.

Every failure of a model call surfaces as one of these, whatever litellm or the
provider raised, so the loop needs to know only our hierarchy. Messages name the
provider, the HTTP status and the start of the provider's own message; they never
contain the API key.
"""

from __future__ import annotations

from agentls.agent.errors import AgentError


class LLMError(AgentError):
    """A call to the model failed."""

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status_code: int | None = None,
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status_code = status_code
        self.attempts = attempts


class LLMTransientError(LLMError):
    """Rate limit, timeout, connection failure or 5xx that outlived our retries."""


class LLMAuthError(LLMError):
    """The provider or proxy refused the API key (or the key is missing)."""


class LLMBadRequestError(LLMError):
    """The provider rejected the request itself (400, 404, 422): retrying will not help."""


class LLMStreamInterrupted(LLMTransientError):
    """The stream was cut before its end (no finish reason) and retrying did not help.

    ``partial_text`` is what the model had written before the last cut.
    """

    def __init__(
        self,
        message: str,
        *,
        partial_text: str = "",
        provider: str | None = None,
        status_code: int | None = None,
    ) -> None:
        super().__init__(message, provider=provider, status_code=status_code)
        self.partial_text = partial_text


class LLMSetupError(LLMError):
    """The model cannot be called as configured: no key is set, litellm cannot tell the
    model's provider, the model cannot call tools, or the local server is down. Found
    before any call, so it is never retried."""
