"""The outward pass masks every well-known secret shape, and leaves ordinary code alone
(files the model reads go through it too)."""

from __future__ import annotations

import pytest
from secret_samples import SAMPLES, Sample, all_samples_text, leaked, secret_of

from agentls.agent.secrets import MASK, HeldText, mask_outward, release_point


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.shape for s in SAMPLES])
def test_each_shape_is_masked(sample: Sample) -> None:
    masked = mask_outward(f"before {sample.text} after")
    assert secret_of(sample) not in masked
    assert MASK in masked
    assert masked.startswith("before ") and masked.endswith(" after")


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.shape for s in SAMPLES])
def test_each_shape_is_masked_inside_json_text(sample: Sample) -> None:
    import json

    assert secret_of(sample) not in mask_outward(json.dumps({"output": sample.text}))


@pytest.mark.parametrize(
    "line",
    [
        'password = request.form["password"]',
        "def login(user, password=password):",
        "token = get_token()",
        "api_key = os.environ['API_KEY']",
        "git clone ssh://git@github.com/owner/repo.git",
        "A basic introduction to the bearer of the news.",
        "pip install scikit-learn sk-learn",
        "url = 'https://example.com:8080/path?x=1'",
        "secret: ${{ secrets.OPENAI_API_KEY }}",
        "-----BEGIN PUBLIC KEY-----",
    ],
)
def test_ordinary_code_and_prose_are_left_alone(line: str) -> None:
    assert mask_outward(line) == line


def test_variables_that_hold_a_path_or_a_desktop_name_are_not_masked_by_value() -> None:
    from agentls.agent.secrets import env_secrets

    env = {
        "DESKTOP_SESSION": "ubuntu",
        "SSH_AUTH_SOCK": "/run/user/1000/keyring/ssh",
        "GOOGLE_APPLICATION_CREDENTIALS_FILE": "/home/me/creds.json",
        "DEPLOY_TOKEN": "deploy-0123456789",
    }
    assert env_secrets(env) == ["deploy-0123456789"]


def test_the_mask_is_stable_when_applied_twice() -> None:
    once = mask_outward("\n".join(s.text for s in SAMPLES))
    assert mask_outward(once) == once


def test_a_stream_holds_a_header_word_and_a_key_block_until_whole() -> None:
    assert release_point("x Authorization: Bearer ") == 0
    assert release_point("line one\nAuthorization: basic ") == len("line one\n")
    assert release_point("plain words here") == len("plain words ")
    held = "out\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n"
    assert release_point(held, whole_lines=True) == len("out\n")
    done = held + "-----END RSA PRIVATE KEY-----\n"
    assert release_point(done, whole_lines=True) == len(done)


#: Every sample after an answer's first words, as a model repeating them would stream it.
STREAMED = "I found these:\n" + all_samples_text()


@pytest.mark.parametrize("whole_lines", [False, True])
@pytest.mark.parametrize("sample", SAMPLES, ids=[s.shape for s in SAMPLES])
def test_a_stream_cut_at_any_point_never_shows_a_secret(sample: Sample, whole_lines: bool) -> None:
    """A piece may end anywhere: between ``aws_secret_access_key`` and its ``= ...``,
    after ``password`` and before the netrc value, inside a value."""
    streamed = f"I found this:\n{sample.text}\nand more.\n"
    for end in range(len(streamed)):
        held = streamed[:end]
        cut = release_point(held, whole_lines=whole_lines)
        shown = mask_outward(held[:cut]) + mask_outward(held[cut:] + streamed[end:])
        assert secret_of(sample) not in shown, repr(streamed[max(0, end - 40) : end])


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 21, 34])
def test_a_stream_in_pieces_of_any_size_never_shows_a_secret(size: int) -> None:
    held = HeldText()
    shown = [held.add(STREAMED[start : start + size]) for start in range(0, len(STREAMED), size)]
    shown.append(held.rest())
    assert leaked("".join(shown)) == []
    assert "".join(shown).startswith("I found these:\n")
