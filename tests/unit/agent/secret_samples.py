"""One sample of each well-known secret shape, as a command or a file would print it.

Each sample is (shape, text printed, the secret part that must never leave). The values
are made up and built from pieces here, so no scanner mistakes this file for a leak.
"""

from __future__ import annotations

from typing import NamedTuple


class Sample(NamedTuple):
    shape: str
    text: str
    secret: str


def _rep(piece: str, n: int) -> str:
    return (piece * n)[:n]


_B64 = "eC1hY2Nlc3MtdG9rZW46Z2hzX" + _rep("Q1w2E3r4", 24) + "=="
_PEM_BODY = _rep("MIIEowIBAAKCAQEAq7v", 64)
_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)

SAMPLES: tuple[Sample, ...] = (
    Sample(
        "URL password",
        "DATABASE_URL=postgres://app:Pw0rd-" + "s3cret9@db.internal:5432/app",
        "Pw0rd-s3cret9",
    ),
    Sample(
        "git remote with a token",
        "remote: https://x-access-token:" + "tok3nAbc-987654zz@github.com/o/r.git",
        "tok3nAbc-987654zz",
    ),
    Sample(
        "Sentry DSN",
        "SENTRY_DSN=https://" + "0123456789abcdef" * 2 + "@o1.ingest.sentry.io/1",
        "0123456789abcdef" * 2,
    ),
    *(
        Sample(f"GitHub {prefix} token", f"token {prefix}_{_rep('Ab3De6Gh9Jk', 36)}", "")
        for prefix in ("ghp", "gho", "ghu", "ghs", "ghr")
    ),
    Sample("GitHub fine-grained token", "github_pat_11" + _rep("AbCdE_0123456789", 80), ""),
    Sample("AWS access key id", "aws_access_key_id = AKIA" + "QWERTY234567ZXCV", ""),
    Sample("AWS session key id", "id ASIA" + "QWERTY234567ZXCV", ""),
    Sample(
        "AWS secret access key",
        "aws_secret_access_key = " + _rep("wJalrXUtnFEMI/K7MDENG/bPxRfiCY", 40),
        _rep("wJalrXUtnFEMI/K7MDENG/bPxRfiCY", 40),
    ),
    Sample("Slack bot token", "SLACK=xoxb-" + "123456789012-abcdefABCDEF123", ""),
    Sample("Slack user token", "xoxp-" + "123456789012-abcdefABCDEF123", ""),
    Sample("Slack app token", "xapp-1-" + "A0123456789-abcdefABCDEF", ""),
    Sample(
        "Slack webhook",
        "https://hooks.slack.com/services/" + "T0123ABCD/B0123ABCD/abcdefABCDEF123456",
        "T0123ABCD/B0123ABCD/abcdefABCDEF123456",
    ),
    Sample("Google API key", "key=AIza" + _rep("SyD-9tSrke72I6e_aBcDeFgHiJk", 35), ""),
    Sample("OpenAI key", "OPENAI=sk-proj-" + _rep("Ab12Cd34Ef56", 40), ""),
    Sample("Anthropic key", "sk-ant-api03-" + _rep("Zy98Xw76Vu54", 60), ""),
    Sample("Stripe key", "sk_live_" + _rep("51HabcDEF0123", 30), ""),
    Sample("npm token", "//registry.npmjs.org/:_authToken=npm_" + _rep("aB1cD2eF3", 36), ""),
    Sample("GitLab token", "glpat-" + _rep("xYz1-AbC2_dEf3", 20), ""),
    Sample("Hugging Face token", "hf_" + _rep("AbCdEfGh12345", 34), ""),
    Sample(
        "private key block",
        "-----BEGIN RSA PRIVATE KEY-----\n"
        + _PEM_BODY
        + "\n"
        + _PEM_BODY[::-1]
        + "\n-----END RSA PRIVATE KEY-----",
        _PEM_BODY,
    ),
    Sample("JWT", "cookie=" + _JWT, _JWT),
    Sample(
        "checkout's extraheader",
        "http.https://github.com/.extraheader=AUTHORIZATION: basic " + _B64,
        _B64,
    ),
    Sample(
        "Bearer header",
        "Authorization: Bearer " + "abc.DEF-123_456.ghiJKL789",
        "abc.DEF-123_456.ghiJKL789",
    ),
    Sample("secret assignment", 'client_secret = "' + "Zx9Qw8Er7Ty6" + '"', "Zx9Qw8Er7Ty6"),
    Sample(
        "Docker registry auth",
        '{"auths": {"ghcr.io": {"auth": "' + "dXNlcjpnaHBfc2VjcmV0MTIz" + '"}}}',
        "dXNlcjpnaHBfc2VjcmV0MTIz",
    ),
    Sample(
        "netrc password",
        "machine api.example.com login me password " + "n3trc-Secret",
        "n3trc-Secret",
    ),
)


def secret_of(sample: Sample) -> str:
    """The part of ``sample`` that must never leave (the token itself when unnamed)."""
    if sample.secret:
        return sample.secret
    return sample.text.split("=", 1)[-1].split()[-1].split("=", 1)[-1]


def all_samples_text() -> str:
    """Every sample, one a line, as a file that a command prints."""
    return "".join(sample.text + "\n" for sample in SAMPLES)


def leaked(text: str) -> list[str]:
    """The shapes whose secret appears in ``text``."""
    return [sample.shape for sample in SAMPLES if secret_of(sample) in text]
