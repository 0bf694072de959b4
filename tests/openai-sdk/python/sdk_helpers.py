"""What the SDK tests share: the mock's directives, id patterns and small checks."""

from __future__ import annotations

import re
import time

CHATCMPL_ID = re.compile(r"chatcmpl-[0-9a-f]{32}")
RESP_ID = re.compile(r"resp_[0-9a-f]{32}")
PROMPT_LOCATION = re.compile(r"/v1/prompts/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# The mock calls getCurrentTime (a function the "Demo tutor" tool offers), Parley runs it and
# sends the result back; the mock then answers "Tool result: <the result's JSON words>".
TIME_CALL = """[[mock tool_call='getCurrentTime:{"time_zone":"Europe/Paris"}']] what time is it?"""

# A slow answer: N tokens "t1 t2 … tN", one every `delay` ms.
def slow(tokens: int, delay_ms: int) -> str:
    return f"[[mock tokens={tokens} token_delay_ms={delay_ms}]] tell me a long story"


def tokens_text(n: int) -> str:
    return " ".join(f"t{i}" for i in range(1, n + 1))


def words(text: str) -> int:
    """What the mock counts as prompt tokens: whitespace-separated words."""
    return len(text.split())


def assert_consecutive(numbers: list[int], first: int) -> None:
    assert numbers == list(range(first, first + len(numbers))), f"sequence numbers {numbers}"


def wait_for_status(client, response_id: str, done, timeout_s: float = 15.0):
    """Polls responses.retrieve until `done(response)`; returns it."""
    deadline = time.monotonic() + timeout_s
    while True:
        response = client.responses.retrieve(response_id)
        if done(response) or time.monotonic() > deadline:
            return response
        time.sleep(0.1)
