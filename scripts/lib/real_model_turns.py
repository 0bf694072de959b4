#!/usr/bin/env python3
"""Whole turns through Parley against a real model (scripts/real-model.sh).

Arguments: API_BASE_URL ADMIN_TOKEN STATE_FILE, then API_BASE_URL ADMIN_TOKEN --takeover
STATE_FILE after the caller killed and restarted `parley serve`.

Creates a group, a chat tool offering `getCurrentTime`, a student with a token, then:
a streamed turn (text deltas, `complete` with the provider's usage), a turn cancelled
while it streams (`cancelled`, the prompt `canceled`, its partial answer kept), and a
turn in which the model calls the function (up to five tries: a small model does not
always choose to); last, it starts a long story and writes the prompt, the student's
token and the text seen so far to STATE_FILE, and the caller kills Parley mid-turn. Run
again with --takeover, it follows that prompt on the restarted server: the turn is taken
over (`retry`) and, the provider continuing partial answers (`continue_partial`), the new
attempt's answer begins with the text the reader had seen. Prints what it saw; exits 1
when a check fails.
"""

import json
import sys
import time
import urllib.error
import urllib.request

BASE, ADMIN = sys.argv[1].rstrip("/"), sys.argv[2]
FAILED = []


def call(method, path, token, body=None, accept="application/json"):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("authorization", f"Bearer {token}")
    request.add_header("accept", accept)
    if data is not None:
        request.add_header("content-type", "application/json")
    return urllib.request.urlopen(request, timeout=600)


def json_call(method, path, token, body=None):
    with call(method, path, token, body) as response:
        text = response.read()
        return json.loads(text) if text else None


def events(response):
    """The SSE events of a response, as (type, data) pairs, pings left out."""
    kind, data = None, []
    for raw in response:
        line = raw.decode().rstrip("\n")
        if line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "":
            if kind and kind != "ping":
                yield kind, json.loads("\n".join(data))
            kind, data = None, []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        FAILED.append(what)


# SmolLM2-135M does not choose to call a function from the functions' descriptions
# alone (about 1 try in 25 with scripts/lib/smollm2-tools.jinja, tool_choice "required"
# or not); one worked example in the chat's behavior, written in the template's own
# form, makes it call at about one try in two at llama.cpp's default temperature.
CLOCK_BEHAVIOR = """You answer questions about the time by calling getCurrentTime.

<|im_start|>user
What time is it?<|im_end|>
<|im_start|>assistant
<tool_call>
{"name": "getCurrentTime", "arguments": {"time_zone": "UTC"}}
</tool_call><|im_end|>"""


def fixtures():
    """A plain chat tool, a chat tool offering getCurrentTime, and a student's token."""
    group = json_call("POST", "/v1/admin/groups", ADMIN, {"name": "Real model", "parent_id": None, "settings": {}})

    def tool(name, definition):
        body = {"group_id": group["id"], "name": name, "type": "chat", "definition": definition}
        return json_call("POST", "/v1/admin/tools", ADMIN, body)["id"]

    chat = tool("Real model", {"behavior": "You are a helpful assistant. Answer briefly."})
    clock = tool("Clock", {"behavior": CLOCK_BEHAVIOR, "functions": ["getCurrentTime"]})
    user = json_call("POST", "/v1/admin/users", ADMIN, {"email": "real@model.example", "name": "Real", "role": "student"})
    json_call("PUT", f"/v1/admin/groups/{group['id']}/members/{user['id']}", ADMIN, {"role": "member"})
    token = json_call("POST", f"/v1/admin/users/{user['id']}/tokens", ADMIN, {"name": "real-model"})["secret"]
    return chat, clock, token


def session(tool_id, token):
    return json_call("POST", "/v1/sessions", token, {"tool_id": tool_id})["id"]


def streamed_turn(tool_id, token):
    print("a streamed turn")
    sid = session(tool_id, token)
    sent = time.monotonic()
    first, deltas, end = None, 0, None
    with call("POST", f"/v1/sessions/{sid}/messages", token,
              {"content": "What is the capital of France? Answer in one sentence."},
              accept="text/event-stream") as response:
        for kind, data in events(response):
            if kind == "text_delta":
                deltas += 1
                first = first or time.monotonic() - sent
            if kind in ("complete", "error", "cancelled"):
                end = (kind, data)
                break
    took = time.monotonic() - sent
    check(end is not None and end[0] == "complete", f"ends with complete ({end and end[0]})")
    if not end or end[0] != "complete":
        print("   ", json.dumps(end and end[1])[:300])
        return
    usage = end[1]["usage"]
    print(f"    answer: {end[1]['payload']['message'][:200]!r}")
    print(f"    first text after {first:.2f} s, {deltas} text_delta events, {took:.2f} s in all; usage {usage}")
    check(deltas >= 2, "the text streamed in several events")
    check(usage["input_tokens"] > 0 and usage["output_tokens"] > 0, "usage from the provider")


def cancelled_turn(tool_id, token):
    print("a turn cancelled while it streams")
    sid = session(tool_id, token)
    accepted = json_call("POST", f"/v1/sessions/{sid}/messages?background=true", token,
                         {"content": "Write a long story about a dragon who learns to read, at least 600 words."})
    prompt_id = accepted["prompt_id"]
    end, deltas = None, 0
    with call("GET", f"/v1/prompts/{prompt_id}/events", token, accept="text/event-stream") as response:
        for kind, _ in events(response):
            if kind == "text_delta":
                deltas += 1
                if deltas == 3:
                    json_call("POST", f"/v1/prompts/{prompt_id}/cancel", token)
            if kind in ("complete", "error", "cancelled"):
                end = kind
                break
    check(end == "cancelled", f"the feed ends with cancelled ({end}) after {deltas} text deltas")
    prompt = json_call("GET", f"/v1/prompts/{prompt_id}", token)
    check(prompt["state"] == "canceled", f"the prompt is canceled ({prompt['state']})")
    messages = json_call("GET", f"/v1/sessions/{sid}/messages", token)
    items = messages["items"] if isinstance(messages, dict) else messages
    partial = [m for m in items if m["role"] == "assistant"]
    check(bool(partial) and not partial[0]["is_complete"], "the partial answer is kept, marked incomplete")


def function_turn(tool_id, token):
    print("a turn that calls a function")
    for attempt in range(1, 6):
        sid = session(tool_id, token)
        with call("POST", f"/v1/sessions/{sid}/messages", token,
                  {"content": "What time is it right now?"},
                  accept="text/event-stream") as response:
            calls, end = [], None
            for kind, data in events(response):
                if kind == "tool_complete":
                    calls.append(data)
                if kind in ("complete", "error", "cancelled"):
                    end = (kind, data)
                    break
        if not calls:
            print(f"    try {attempt}: answered without a function call ({end and end[0]})")
            continue
        print(f"    try {attempt}: called {[c.get('tool') for c in calls]}")
        check(end is not None and end[0] == "complete", f"the turn completes ({end and end[0]})")
        if not end or end[0] != "complete":
            print("   ", json.dumps(end and end[1])[:300])
            return
        history = end[1]["payload"].get("tool_history") or []
        print(f"    call: {json.dumps(history[:1])[:300]}")
        print(f"    answer: {end[1]['payload']['message'][:200]!r}; usage {end[1]['usage']}")
        check(bool(history) and history[0]["tool_name"] == "getCurrentTime", "tool_history shows getCurrentTime")
        check(bool(history) and history[0]["status"] == "success" and history[0]["output"],
              "the function ran and its result went back to the model")
        check(bool(end[1]["payload"]["message"].strip()), "the model answered after the result")
        return
    check(False, "the model called a function within five tries")


def story_left_streaming(tool_id, token, state_file):
    print("a turn whose server dies while it streams")
    sid = session(tool_id, token)
    accepted = json_call("POST", f"/v1/sessions/{sid}/messages?background=true", token,
                         {"content": "Write a long story about a lighthouse keeper, at least 800 words."})
    prompt_id, seen, deltas = accepted["prompt_id"], "", 0
    with call("GET", f"/v1/prompts/{prompt_id}/events", token, accept="text/event-stream") as response:
        for kind, data in events(response):
            if kind == "text_delta":
                seen += data["text"]
                deltas += 1
            if kind in ("complete", "error", "cancelled") or len(seen.split()) >= 25:
                break
    check(len(seen.split()) >= 25, f"the story streams ({deltas} text deltas, {len(seen.split())} words seen)")
    # Half a second more: the worker checkpoints the partial answer every 100 ms.
    time.sleep(0.5)
    with open(state_file, "w") as f:
        json.dump({"prompt_id": prompt_id, "token": token, "seen": seen}, f)


def taken_over(state_file):
    with open(state_file) as f:
        state = json.load(f)
    prompt_id, token, seen = state["prompt_id"], state["token"], state["seen"]
    print(f"the restarted server takes the turn over ({len(seen.split())} words were seen before the kill)")
    attempt, text, end = 1, "", None
    with call("GET", f"/v1/prompts/{prompt_id}/events", token, accept="text/event-stream") as response:
        for kind, data in events(response):
            if kind == "retry":
                attempt, text = data["attempt"], ""
            elif kind == "text_delta":
                text += data["text"]
            elif kind in ("complete", "error", "cancelled"):
                end = kind
                break
    check(attempt == 2 and end == "complete", f"attempt {attempt} ends with {end}")
    print(f"    attempt 2 answer ({len(text.split())} words): {text[:160]!r}…")
    check(text.startswith(seen), "it begins with the text seen before the kill: the model continued it")
    check(len(text) > len(seen), "and goes on")


def main():
    if sys.argv[3] == "--takeover":
        taken_over(sys.argv[4])
    else:
        chat, clock, token = fixtures()
        streamed_turn(chat, token)
        cancelled_turn(chat, token)
        function_turn(clock, token)
        story_left_streaming(chat, token, sys.argv[3])
    if FAILED:
        print(f"{len(FAILED)} check(s) failed")
        sys.exit(1)
    print("every check passed")


if __name__ == "__main__":
    try:
        main()
    except urllib.error.HTTPError as error:
        print(f"HTTP {error.code} on {error.url}: {error.read()[:500]!r}")
        sys.exit(1)
