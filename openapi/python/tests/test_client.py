"""The Python client against a live `parley serve` (the mock LLM as its model): the
generated operations (a session, a JSON turn, edit and regenerate, feedback on an answer,
a run action, problems), and the hand-written helpers (a streamed turn, a tool turn,
cancel, resuming a feed whose connection dropped, the user feed, the export of
conversations, problems as `ParleyProblem`); function calls that wait for approval
(approved with edited input, denied, refused input, told on the user feed) with both.
Mirrors openapi/client/test/client.test.mjs.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from proxy import DroppingProxy

from parley_client import AuthenticatedClient
from parley_client.api.admin import admin_feedback_metrics, admin_list_feedback
from parley_client.api.sessions import (
    cancel_prompt,
    create_feed_token,
    delete_message_feedback,
    get_prompt,
    get_session,
    list_session_messages,
    list_sessions,
    put_message_feedback,
    regenerate_message,
    send_message,
    switch_branch,
)
from parley_client.export import conversations
from parley_client.feed import follow_prompt, stream_turn
from parley_client.models import (
    AcceptedTurn,
    CreateMessage,
    GiveFeedback,
    PromptState,
    Rating,
    RegenerateMessage,
    SwitchBranch,
)
from parley_client.problem import ParleyProblem, expect
from parley_client.types import UNSET

# What a document that generators cannot read whole loses (`FinishedTurn`, `RunAction`,
# the `run_action` operation) is imported by the tests that use it, so that the others
# still run and the loss shows as those tests' failures.

LONG = "[[mock tokens=200 token_delay_ms=10]] tell me a long story"
NOBODY = uuid.UUID("01900000-0000-7000-8000-000000000000")


def text(events: list[dict[str, Any]]) -> str:
    return "".join(e["text"] for e in events if e["type"] == "text_delta")


def assert_gap_free(events: list[dict[str, Any]]) -> None:
    """Seqs 1, 2, 3, … with none missing and none twice."""
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), seqs


def test_a_session_is_opened_read_and_listed(client: AuthenticatedClient, new_session, tool_id) -> None:
    session_id = new_session()
    session = expect(get_session.sync_detailed(session_id, client=client))
    assert session.id == session_id
    assert session.tool_id == tool_id
    page = expect(list_sessions.sync_detailed(client=client, limit=100))
    assert any(s.id == session_id for s in page.items)


def test_another_sessions_id_is_a_not_found_problem(client: AuthenticatedClient) -> None:
    with pytest.raises(ParleyProblem) as raised:
        expect(get_session.sync_detailed(NOBODY, client=client))
    assert raised.value.status == 404
    assert raised.value.code == "not_found"
    assert raised.value.detail


def test_a_session_is_titled_renamed_pinned_archived_searched_and_deleted(
    json_client: AuthenticatedClient, new_session
) -> None:
    from parley_client.api.sessions import delete_session, search_sessions, update_session
    from parley_client.models import TitleSource, UpdateSession

    session_id = new_session()
    words = "Photosynthesis questions for my biology homework tonight please"
    response = send_message.sync_detailed(session_id, client=json_client, body=CreateMessage(content=words))
    assert response.status_code == 201, response.content
    titled = expect(get_session.sync_detailed(session_id, client=json_client))
    assert titled.title == "Photosynthesis questions for my biology homework"
    assert titled.title_source == TitleSource.WORDS

    changed = expect(
        update_session.sync_detailed(
            session_id, client=json_client, body=UpdateSession(title="Biology", pinned=True, archived=True)
        )
    )
    assert (changed.title, changed.title_source, changed.pinned, changed.archived) == (
        "Biology",
        TitleSource.USER,
        True,
        True,
    )
    archived = expect(list_sessions.sync_detailed(client=json_client, archived=True))
    assert [s.id for s in archived.items] == [session_id]
    with pytest.raises(ParleyProblem) as raised:
        expect(update_session.sync_detailed(session_id, client=json_client, body=UpdateSession(title="  ")))
    assert (raised.value.status, raised.value.code) == (422, "invalid_title")

    found = expect(search_sessions.sync_detailed(client=json_client, q="PHOTOSYNTHESIS biology"))
    hit = next(h for h in found.items if h.session_id == session_id)
    assert hit.title == "Biology"
    assert "Photosynthesis" in hit.snippet
    with pytest.raises(ParleyProblem) as raised:
        expect(search_sessions.sync_detailed(client=json_client, q="***"))
    assert (raised.value.status, raised.value.code) == (422, "empty_query")

    assert delete_session.sync_detailed(session_id, client=json_client).status_code == 204
    with pytest.raises(ParleyProblem) as raised:
        expect(get_session.sync_detailed(session_id, client=json_client))
    assert raised.value.status == 404


def test_an_empty_message_is_a_validation_problem(json_client: AuthenticatedClient, new_session) -> None:
    response = send_message.sync_detailed(new_session(), client=json_client, body=CreateMessage(content=""))
    with pytest.raises(ParleyProblem) as raised:
        expect(response)
    assert raised.value.status == 422
    assert raised.value.code == "validation_failed"
    assert raised.value.param == "content", raised.value.detail


def test_a_json_turn_answers_201_with_the_finished_turn(json_client: AuthenticatedClient, new_session) -> None:
    from parley_client.models import FinishedTurn

    response = send_message.sync_detailed(new_session(), client=json_client, body=CreateMessage(content="Hello there"))
    assert response.status_code == 201, response.content
    turn = expect(response)
    assert isinstance(turn, FinishedTurn)
    assert turn.payload.message == "Echo: Hello there"
    assert turn.model == "mock-model"
    prompt = expect(get_prompt.sync_detailed(turn.prompt_id, client=json_client))
    assert prompt.state == PromptState.COMPLETED


TRIP = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 2}},
    "required": ["city", "days"],
}


def test_a_turn_with_a_response_format_answers_json_of_its_schema(
    client: AuthenticatedClient, json_client: AuthenticatedClient, new_session
) -> None:
    from parley_client.models import FinishedTurn, OutputFormat, OutputFormatSchemaType0, OutputFormatType

    trip = OutputFormat(
        type_=OutputFormatType.JSON_SCHEMA, name="trip", schema=OutputFormatSchemaType0.from_dict(TRIP)
    )
    session = new_session()
    # The generated model, answered as JSON: a misfit is asked again, the value comes back.
    answer = send_message.sync_detailed(
        session,
        client=json_client,
        body=CreateMessage(content="[[mock reply='{\"city\": 3}']] plan a trip", response_format=trip),
    )
    turn = expect(answer)
    assert isinstance(turn, FinishedTurn)
    assert json.loads(turn.payload.message) == {"city": "mock", "days": 2}
    # Streamed: what a reader assembles is the value and the stored message.
    events = list(stream_turn(client, session, "plan again", body={"response_format": trip.to_dict()}))
    assert events[-1]["type"] == "complete", events[-1]
    assert json.loads(text(events)) == {"city": "mock", "days": 2}
    assert events[-1]["payload"]["message"] == text(events)
    # A schema that is none: a 422 problem, nothing recorded.
    refused = send_message.sync_detailed(
        session,
        client=json_client,
        body=CreateMessage(
            content="plan",
            response_format=OutputFormat(
                type_=OutputFormatType.JSON_SCHEMA,
                name="bad",
                schema=OutputFormatSchemaType0.from_dict({"type": "no-such-type"}),
            ),
        ),
    )
    with pytest.raises(ParleyProblem) as raised:
        expect(refused)
    assert (raised.value.status, raised.value.code) == (422, "invalid_response_format")


def test_feedback_on_an_answer_is_given_shown_listed_exported_and_withdrawn(
    json_client: AuthenticatedClient, client: AuthenticatedClient, new_session
) -> None:
    session_id = new_session()
    turn = expect(send_message.sync_detailed(session_id, client=json_client, body=CreateMessage(content="Rate me")))
    given = expect(
        put_message_feedback.sync_detailed(
            session_id,
            turn.message_id,
            client=client,
            body=GiveFeedback(rating=Rating.DOWN, comment=" too short ", tags=["short", " short "]),
        )
    )
    assert (given.rating, given.comment, given.tags) == (Rating.DOWN, "too short", ["short"])
    with pytest.raises(ParleyProblem) as raised:
        expect(
            put_message_feedback.sync_detailed(
                session_id, turn.parent_id, client=client, body=GiveFeedback(rating=Rating.UP)
            )
        )
    assert (raised.value.status, raised.value.code) == (422, "not_an_answer")

    shown = expect(list_session_messages.sync_detailed(session_id, client=client)).items
    rated = next(m for m in shown if m.id == turn.message_id)
    assert rated.feedback.rating == Rating.DOWN

    listed = expect(admin_list_feedback.sync_detailed(client=client, rating=Rating.DOWN)).items
    assert [f.message_id for f in listed if f.session_id == session_id] == [turn.message_id]
    figures = expect(admin_feedback_metrics.sync_detailed(client=client))
    assert next(r.count for r in figures.by_rating if r.rating == Rating.DOWN) >= 1

    exported = list(conversations(client, rating="down"))
    assert len(exported) == 1
    assert [m["role"] for m in exported[0]["messages"]][-2:] == ["user", "assistant"]
    assert exported[0]["messages"][-2]["content"] == "Rate me"
    with pytest.raises(ParleyProblem) as raised:
        list(conversations(client, rating="sideways"))
    assert (raised.value.status, raised.value.code) == (400, "invalid_parameter")

    response = delete_message_feedback.sync_detailed(session_id, turn.message_id, client=client)
    assert response.status_code == 204
    again = delete_message_feedback.sync_detailed(session_id, turn.message_id, client=client)
    with pytest.raises(ParleyProblem) as raised:
        expect(again)
    assert raised.value.code == "not_found"


def test_a_budget_is_set_shown_and_refuses_a_turn_with_budget_exceeded(
    json_client: AuthenticatedClient, client: AuthenticatedClient, tool_id, new_session
) -> None:
    from parley_client.api.admin import (
        admin_create_budget,
        admin_create_group,
        admin_create_tool,
        admin_delete_budget,
        admin_list_budgets,
        admin_update_budget,
    )
    from parley_client.api.catalog import list_tools
    from parley_client.models import (
        BudgetPeriod,
        BudgetSubject,
        CreateBudget,
        CreateGroup,
        CreateTool,
        ToolDefinition,
        UpdateBudget,
    )

    demo = next(t for t in expect(list_tools.sync_detailed(client=client, limit=100)).items if t.id == tool_id)
    group = expect(
        admin_create_group.sync_detailed(client=client, body=CreateGroup(name="Budgeted group", parent_id=demo.group_id))
    )
    tool = expect(
        admin_create_tool.sync_detailed(
            client=client,
            body=CreateTool(group_id=group.id, name="Budgeted", definition=ToolDefinition(behavior="Help.")),
        )
    )
    budget = expect(
        admin_create_budget.sync_detailed(
            client=client,
            body=CreateBudget(subject=BudgetSubject.GROUP, subject_id=group.id, period=BudgetPeriod.DAY, limit=0),
        )
    )
    assert (budget.subject_name, budget.currency, budget.limit_micros, budget.spent_micros) == (
        "Budgeted group",
        "USD",
        0,
        0,
    )
    session_id = new_session(tool.id)
    with pytest.raises(ParleyProblem) as raised:
        expect(send_message.sync_detailed(session_id, client=json_client, body=CreateMessage(content="Over?")))
    assert (raised.value.status, raised.value.code) == (429, "budget_exceeded")

    listed = expect(admin_list_budgets.sync_detailed(client=client, group_id=group.id)).items
    assert [b.id for b in listed] == [budget.id]
    changed = expect(admin_update_budget.sync_detailed(budget.id, client=client, body=UpdateBudget(limit=2.5)))
    assert changed.limit_micros == 2_500_000
    expect(send_message.sync_detailed(session_id, client=json_client, body=CreateMessage(content="Now?")))
    assert admin_delete_budget.sync_detailed(budget.id, client=client).status_code == 204


def test_edit_and_regenerate_make_siblings_and_a_switch_moves_the_branch(
    json_client: AuthenticatedClient, new_session
) -> None:
    session_id = new_session()

    def send(content: str, parent=UNSET):
        return expect(
            send_message.sync_detailed(
                session_id, client=json_client, body=CreateMessage(content=content, parent_message_id=parent)
            )
        )

    def shown(branch=UNSET):
        page = expect(list_session_messages.sync_detailed(session_id, client=json_client, branch=branch, limit=100))
        return page.items

    first = send("alpha")
    second = send("beta")
    edited = send("gamma", parent=first.message_id)
    messages = shown()
    assert [m.content for m in messages[::2]] == ["alpha", "gamma"]
    assert messages[2].parent_id == first.message_id
    assert messages[2].siblings == [second.parent_id, edited.parent_id]

    again = expect(
        regenerate_message.sync_detailed(
            session_id, edited.message_id, client=json_client, body=RegenerateMessage()
        )
    )
    assert again.parent_id == edited.parent_id
    assert shown()[3].siblings == [edited.message_id, again.message_id]

    session = expect(
        switch_branch.sync_detailed(session_id, client=json_client, body=SwitchBranch(message_id=second.parent_id))
    )
    assert session.active_leaf_id == second.message_id
    assert [m.content for m in shown()[::2]] == ["alpha", "beta"]
    assert [m.id for m in shown(branch=edited.parent_id)][-1] == again.message_id


def test_a_send_without_an_accept_header_is_read_by_the_generated_client(
    client: AuthenticatedClient, new_session
) -> None:
    """The generated client sends no `Accept` of its own: whatever Parley answers then
    (the stream, or the finished turn), the generated code must read it without failing."""
    from parley_client.models import FinishedTurn

    response = send_message.sync_detailed(new_session(), client=client, body=CreateMessage(content="Hello"))
    assert response.status_code in (200, 201), response.content
    if response.status_code == 201:
        assert isinstance(response.parsed, FinishedTurn)
    else:
        assert b"event: complete" in response.content


def test_a_streamed_turn_yields_its_events_in_order_and_ends_with_complete(
    client: AuthenticatedClient, new_session
) -> None:
    events = list(stream_turn(client, new_session(), "Hello!"))
    assert_gap_free(events)
    last = events[-1]
    assert last["type"] == "complete"
    assert text(events) == "Echo: Hello!"
    assert last["payload"]["message"] == text(events)
    assert last["model"] == "mock-model"
    prompt = expect(get_prompt.sync_detailed(uuid.UUID(last["prompt_id"]), client=client))
    assert prompt.state == PromptState.COMPLETED


def test_a_tool_turn_shows_the_function_call_and_its_result(client: AuthenticatedClient, new_session) -> None:
    events = list(stream_turn(client, new_session(), "[[mock tool_call='getCurrentTime:{}']] what time is it?"))
    assert_gap_free(events)
    start = next(e for e in events if e["type"] == "tool_start")
    done = next(e for e in events if e["type"] == "tool_complete")
    assert start["tool"] == "getCurrentTime"
    assert done["state"] == "success"
    assert done["tool_use_id"] == start["tool_use_id"]
    last = events[-1]
    assert last["type"] == "complete"
    assert [h["tool_name"] for h in last["payload"]["tool_history"]] == ["getCurrentTime"]
    assert text(events).startswith("[[tool:0]]"), text(events)


def test_cancel_stops_the_stream_with_cancelled(client: AuthenticatedClient, new_session) -> None:
    events = []
    cancelled = False
    for event in stream_turn(client, new_session(), LONG):
        events.append(event)
        if event["type"] == "text_delta" and not cancelled:
            cancelled = True
            response = cancel_prompt.sync_detailed(uuid.UUID(event["prompt_id"]), client=client)
            assert response.status_code == 202, response.content
    assert_gap_free(events)
    assert events[-1]["type"] == "cancelled"
    assert len(text(events).split(" ")) < 200, "the stream stopped early"
    prompt = expect(get_prompt.sync_detailed(uuid.UUID(events[0]["prompt_id"]), client=client))
    assert prompt.state == PromptState.CANCELED


def test_a_dropped_feed_resumes_with_last_event_id_and_a_fresh_feed_token(
    parley, client: AuthenticatedClient, json_client: AuthenticatedClient, new_session
) -> None:
    accepted = expect(
        send_message.sync_detailed(new_session(), client=json_client, body=CreateMessage(content=LONG), background=True)
    )
    assert isinstance(accepted, AcceptedTurn)
    proxy = DroppingProxy(parley.base_url, cut_after=1500, drops=2)
    tokens = []

    def feed_token() -> Any:
        token = expect(create_feed_token.sync_detailed(accepted.prompt_id, client=client))
        tokens.append(token)
        return token

    try:
        with AuthenticatedClient(base_url=proxy.base_url, token="not-this-one") as through_proxy:
            events = list(follow_prompt(through_proxy, accepted.prompt_id, feed_token=feed_token, retry_delay=0.05))
    finally:
        proxy.close()
    assert_gap_free(events)
    assert events[-1]["type"] == "complete"
    assert text(events) == " ".join(f"t{i}" for i in range(1, 201))
    assert proxy.dropped == 2, "both drops happened mid-stream"
    feeds = [r for r in proxy.requests if "/events" in r.split("\r\n", 1)[0]]
    assert len(feeds) == 3, feeds
    assert "last-event-id" not in feeds[0].lower()
    resumed = [int(_header(r, "last-event-id")) for r in feeds[1:]]
    assert 0 < resumed[0] < resumed[1] < events[-1]["seq"], resumed
    assert all("access_token=" in r.split("\r\n", 1)[0] for r in feeds), "each connection used a feed token"
    assert all(_header(r, "authorization") is None for r in feeds), "and no bearer token"
    assert len(tokens) == 3, "a fresh feed token for each connection"

    # A reader that holds the last event gets 204: nothing more to follow.
    assert list(follow_prompt(client, accepted.prompt_id, after=events[-1]["seq"])) == []


def test_a_turn_whose_stream_drops_continues_through_the_prompts_feed(parley, new_session) -> None:
    proxy = DroppingProxy(parley.base_url, cut_after=1200, drops=1)
    try:
        with AuthenticatedClient(base_url=proxy.base_url, token=parley.admin_token) as through_proxy:
            events = list(stream_turn(through_proxy, new_session(), LONG, retry_delay=0.05))
    finally:
        proxy.close()
    assert proxy.dropped == 1
    assert_gap_free(events)
    assert events[-1]["type"] == "complete"
    assert text(events) == " ".join(f"t{i}" for i in range(1, 201))
    feeds = [r for r in proxy.requests if r.startswith("GET ") and "/events" in r.split("\r\n", 1)[0]]
    assert len(feeds) == 1, proxy.requests
    assert int(_header(feeds[0], "last-event-id")) > 0


def test_feeds_and_sends_that_fail_raise_parley_problem(client: AuthenticatedClient) -> None:
    with pytest.raises(ParleyProblem) as raised:
        list(follow_prompt(client, NOBODY))
    assert (raised.value.status, raised.value.code) == (404, "not_found")
    with pytest.raises(ParleyProblem) as raised:
        list(stream_turn(client, NOBODY, "Hello?"))
    assert (raised.value.status, raised.value.code) == (404, "not_found")


def test_an_action_the_last_answer_did_not_offer_is_a_conflict(client: AuthenticatedClient, new_session) -> None:
    from parley_client.api.sessions import run_action
    from parley_client.models import RunAction, ServerActionName

    response = run_action.sync_detailed(
        new_session(), client=client, body=RunAction(action=ServerActionName.SEND_MESSAGE)
    )
    with pytest.raises(ParleyProblem) as raised:
        expect(response)
    assert (raised.value.status, raised.value.code) == (409, "action_not_offered")


def _header(head: str, name: str) -> str | None:
    for line in head.split("\r\n")[1:]:
        key, _, value = line.partition(":")
        if key.strip().lower() == name:
            return value.strip()
    return None


def _until(events, wanted):  # type: ignore[no-untyped-def]
    for event in events:
        if wanted(event):
            return event
    raise AssertionError("the user feed ended")


def test_the_user_feed_tells_a_session_and_its_turn_and_resumes(client: AuthenticatedClient, new_session) -> None:
    from parley_client.feed import follow_user_feed

    feed = follow_user_feed(client, feed_token=True)
    session_id = str(new_session())
    created = _until(feed, lambda e: e["type"] == "session_created" and e["session_id"] == session_id)
    events = list(stream_turn(client, session_id, "Hello!"))
    assert events[-1]["type"] == "complete"
    started = _until(feed, lambda e: e["type"] == "turn_started" and e["session_id"] == session_id)
    finished = _until(feed, lambda e: e["type"] == "turn_finished" and e["prompt_id"] == started["prompt_id"])
    assert finished["state"] == "completed"
    assert created["seq"] < started["seq"] < finished["seq"]
    feed.close()

    # Another tab resumes after the session's creation: the turn comes next.
    again = follow_user_feed(client, after=created["seq"])
    assert (lambda e: (e["type"], e["seq"]))(next(again)) == ("turn_started", started["seq"])
    again.close()

    # A prompt's feed token does not open the user feed.
    from parley_client.api.sessions import create_feed_token

    token = expect(create_feed_token.sync_detailed(uuid.UUID(started["prompt_id"]), client=client)).token
    with pytest.raises(ParleyProblem) as raised:
        next(follow_user_feed(client, feed_token=token))
    assert raised.value.status == 401


# Function calls that wait for approval: the approving tool's `createTodo`, asked for by
# the mock. The caller's todos (`list_todos`) show whether a call ran.

ASKS = """[[mock tool_call='createTodo:{"title": "buy milk"}']] remind me"""


def _todo_titles(client: AuthenticatedClient) -> list[str]:
    from parley_client.api.data import list_todos

    return [t.title for t in expect(list_todos.sync_detailed(client=client, limit=100)).items]


def _waiting_calls(client: AuthenticatedClient, prompt_id: uuid.UUID) -> list[Any]:
    from parley_client.api.sessions import list_approvals

    return [c for c in expect(list_approvals.sync_detailed(client=client)).items if c.prompt_id == prompt_id]


def _approve(client: AuthenticatedClient, prompt_id: uuid.UUID, call_id: uuid.UUID, input_: Any = UNSET) -> Any:
    """`approve_call`, with edited input (a dict) or as the model asked (none)."""
    from parley_client.api.sessions import approve_call
    from parley_client.models import ApproveCall, ApproveCallInputType0

    body = ApproveCall() if input_ is UNSET else ApproveCall(input_=ApproveCallInputType0.from_dict(input_))
    return approve_call.sync_detailed(prompt_id, call_id, client=client, body=body)


class _Waiting:
    """A turn suspended for an approval: its prompt, its feed (still open), what the feed
    gave so far, and the `approval_requested` event."""

    def __init__(self, session_id: uuid.UUID, prompt_id: uuid.UUID, feed: Any, seen: list[dict[str, Any]]) -> None:
        self.session_id = session_id
        self.prompt_id = prompt_id
        self.feed = feed
        self.seen = seen
        self.request = seen[-1]
        self.call_id = uuid.UUID(self.request["call_id"])


def _until_approval(client: AuthenticatedClient, json_client: AuthenticatedClient, session_id: uuid.UUID) -> _Waiting:
    """Sends ASKS in the background and follows the prompt's feed to `approval_requested`."""
    from parley_client.feed import TERMINAL

    accepted = expect(
        send_message.sync_detailed(session_id, client=json_client, body=CreateMessage(content=ASKS), background=True)
    )
    assert isinstance(accepted, AcceptedTurn)
    feed = follow_prompt(client, accepted.prompt_id)
    seen: list[dict[str, Any]] = []
    for event in feed:
        assert event["type"] not in TERMINAL, seen + [event]
        seen.append(event)
        if event["type"] == "approval_requested":
            return _Waiting(session_id, accepted.prompt_id, feed, seen)
    raise AssertionError(f"the feed ended before the request: {seen}")


def test_an_approved_call_runs_once_with_the_edited_input_and_the_turn_completes(
    client: AuthenticatedClient, json_client: AuthenticatedClient, new_session, approving_tool_id
) -> None:
    from parley_client.models import ToolCallState

    before = _todo_titles(client)
    waiting = _until_approval(client, json_client, new_session(approving_tool_id))
    request = waiting.request
    assert (request["tool"], request["input"]) == ("createTodo", {"title": "buy milk"})
    assert request["expires_at"]
    assert [e["state"] for e in waiting.seen if e["type"] == "prompt_state"] == ["in_progress", "waiting_for_tools"]
    assert not [e for e in waiting.seen if e["type"] == "tool_complete"]

    # Suspended: nothing ran, the prompt waits, the call is listed.
    assert _todo_titles(client) == before
    assert expect(get_prompt.sync_detailed(waiting.prompt_id, client=client)).state == PromptState.WAITING_FOR_TOOLS
    listed = _waiting_calls(client, waiting.prompt_id)
    assert [(c.id, c.session_id, c.function, c.state) for c in listed] == [
        (waiting.call_id, waiting.session_id, "createTodo", ToolCallState.AWAITING_APPROVAL)
    ]
    assert listed[0].input_ == {"title": "buy milk"}
    assert listed[0].approval_expires_at

    approved = expect(_approve(client, waiting.prompt_id, waiting.call_id, {"title": "buy oat milk"}))
    assert approved.state == ToolCallState.APPROVED
    assert approved.input_ == {"title": "buy oat milk"}
    assert approved.requested_input == {"title": "buy milk"}
    assert approved.decided_at and approved.decided_by
    with pytest.raises(ParleyProblem) as raised:
        expect(_approve(client, waiting.prompt_id, waiting.call_id))
    assert (raised.value.status, raised.value.code) == (409, "not_awaiting_approval")

    rest = list(waiting.feed)
    assert_gap_free(waiting.seen + rest)
    retry = max(i for i, e in enumerate(rest) if e["type"] == "retry")
    resumed = rest[retry + 1 :]
    assert [e["state"] for e in resumed if e["type"] == "tool_complete"] == ["success"], resumed
    assert rest[-1]["type"] == "complete"
    assert rest[-1]["payload"]["tool_history"][0]["input"] == {"title": "buy oat milk"}
    assert text(resumed).startswith("[[tool:0]]"), text(resumed)

    after = _todo_titles(client)
    assert [t for t in after if t not in before] == ["buy oat milk"], "the call ran once, as approved"
    assert len(after) == len(before) + 1
    assert _waiting_calls(client, waiting.prompt_id) == []
    assert expect(get_prompt.sync_detailed(waiting.prompt_id, client=client)).state == PromptState.COMPLETED


def test_a_denied_call_never_runs_and_the_user_feed_tells_it(
    client: AuthenticatedClient, new_session, approving_tool_id
) -> None:
    from parley_client.api.sessions import deny_call
    from parley_client.feed import follow_user_feed
    from parley_client.models import DenyCall, ToolCallState

    before = _todo_titles(client)
    user_feed = follow_user_feed(client)
    session_id = new_session(approving_tool_id)
    _until(user_feed, lambda e: e["type"] == "session_created" and e["session_id"] == str(session_id))
    events = []
    denied = None
    # The turn streams through the POST; the call is denied while it waits.
    for event in stream_turn(client, session_id, ASKS):
        events.append(event)
        if event["type"] == "approval_requested":
            requested = _until(
                user_feed, lambda e: e["type"] == "approval_requested" and e["call_id"] == event["call_id"]
            )
            assert (requested["session_id"], requested["prompt_id"], requested["function"]) == (
                str(session_id),
                event["prompt_id"],
                "createTodo",
            )
            denied = expect(
                deny_call.sync_detailed(
                    uuid.UUID(event["prompt_id"]),
                    uuid.UUID(event["call_id"]),
                    client=client,
                    body=DenyCall(reason="I already have milk"),
                )
            )
    assert denied is not None, "the call waited for approval"
    assert denied.state == ToolCallState.DENIED
    assert denied.decision_reason == "I already have milk"
    assert denied.decided_at and denied.decided_by
    resolved = _until(user_feed, lambda e: e["type"] == "approval_resolved" and e["call_id"] == str(denied.id))
    user_feed.close()
    assert resolved["approved"] is False
    assert not resolved.get("expired")

    assert_gap_free(events)
    assert any(e["type"] == "retry" for e in events)
    assert [e["state"] for e in events if e["type"] == "tool_complete"] == ["denied"], events
    assert events[-1]["type"] == "complete"
    assert _todo_titles(client) == before, "a denied call never runs"
    with pytest.raises(ParleyProblem) as raised:
        expect(_approve(client, denied.prompt_id, denied.id))
    assert (raised.value.status, raised.value.code) == (409, "not_awaiting_approval")


def test_edited_input_that_does_not_fit_is_a_problem_and_the_call_still_waits(
    parley, client: AuthenticatedClient, json_client: AuthenticatedClient, new_session, approving_tool_id
) -> None:
    import time

    from parley_client.api.admin import admin_create_token, admin_create_user
    from parley_client.api.sessions import approve_call, list_approvals
    from parley_client.models import ApproveCall, CreateToken, CreateUser, ToolCallState, UserRole

    before = _todo_titles(client)
    waiting = _until_approval(client, json_client, new_session(approving_tool_id))
    wrong = _approve(client, waiting.prompt_id, waiting.call_id, {"title": 5})
    assert wrong.headers["content-type"].startswith("application/problem+json")
    with pytest.raises(ParleyProblem) as raised:
        expect(wrong)
    assert (raised.value.status, raised.value.code) == (422, "invalid_approval_input")
    assert raised.value.detail
    assert [c.state for c in _waiting_calls(client, waiting.prompt_id)] == [ToolCallState.AWAITING_APPROVAL]
    assert _todo_titles(client) == before

    # Someone else's prompt: 404, and their list of approvals is empty.
    user = expect(
        admin_create_user.sync_detailed(
            client=client,
            body=CreateUser(email=f"other-{time.time_ns()}@example.com", name="Other", role=UserRole.STUDENT),
        )
    )
    minted = expect(admin_create_token.sync_detailed(user.id, client=client, body=CreateToken(name="client test")))
    with AuthenticatedClient(base_url=parley.base_url, token=minted.secret) as other:
        with pytest.raises(ParleyProblem) as raised:
            expect(approve_call.sync_detailed(waiting.prompt_id, waiting.call_id, client=other, body=ApproveCall()))
        assert (raised.value.status, raised.value.code) == (404, "not_found")
        assert expect(list_approvals.sync_detailed(client=other)).items == []

    # Approved as asked (no input): it runs with the model's arguments.
    approved = expect(_approve(client, waiting.prompt_id, waiting.call_id))
    assert approved.input_ == {"title": "buy milk"}
    assert approved.requested_input is UNSET
    rest = list(waiting.feed)
    assert [e["state"] for e in rest if e["type"] == "tool_complete"] == ["success"], rest
    assert rest[-1]["type"] == "complete"
    assert len(_todo_titles(client)) == len(before) + 1


def test_the_user_feed_tells_an_approval_requested_and_resolved(
    client: AuthenticatedClient, json_client: AuthenticatedClient, new_session, approving_tool_id
) -> None:
    from parley_client.feed import follow_user_feed

    user_feed = follow_user_feed(client, feed_token=True)
    session_id = new_session(approving_tool_id)
    created = _until(user_feed, lambda e: e["type"] == "session_created" and e["session_id"] == str(session_id))
    accepted = expect(
        send_message.sync_detailed(session_id, client=json_client, body=CreateMessage(content=ASKS), background=True)
    )
    assert isinstance(accepted, AcceptedTurn)

    # Another device, which only follows the user feed, decides the call.
    requested = _until(user_feed, lambda e: e["type"] == "approval_requested" and e["session_id"] == str(session_id))
    assert requested["prompt_id"] == str(accepted.prompt_id)
    assert (requested["function"], requested["input"]) == ("createTodo", {"title": "buy milk"})
    assert requested["expires_at"]
    assert requested["seq"] > created["seq"]
    call_id = uuid.UUID(requested["call_id"])
    expect(_approve(client, accepted.prompt_id, call_id, {"title": "buy bread"}))
    resolved = _until(user_feed, lambda e: e["type"] == "approval_resolved" and e["call_id"] == str(call_id))
    assert (resolved["session_id"], resolved["prompt_id"], resolved["approved"], resolved.get("expired", False)) == (
        str(session_id),
        str(accepted.prompt_id),
        True,
        False,
    )
    assert resolved["seq"] > requested["seq"]
    finished = _until(user_feed, lambda e: e["type"] == "turn_finished" and e["prompt_id"] == str(accepted.prompt_id))
    assert finished["state"] == "completed"
    user_feed.close()

    # The prompt's feed, read from the start, tells the same story.
    events = list(follow_prompt(client, accepted.prompt_id))
    assert_gap_free(events)
    asked = next(e for e in events if e["type"] == "approval_requested")
    assert (asked["call_id"], asked["index"]) == (str(call_id), 0)
    assert asked["tool_use_id"]
    assert events[-1]["type"] == "complete"
    assert "buy bread" in _todo_titles(client)


def test_a_teacher_reads_their_class_and_another_class_is_a_not_found_problem(
    parley, client: AuthenticatedClient, tool_id
) -> None:
    import time

    from parley_client.api.admin import (
        admin_create_class,
        admin_create_token,
        admin_create_user,
        admin_put_enrollment,
    )
    from parley_client.api.catalog import list_tools
    from parley_client.api.teaching import get_taught_class, list_class_sessions, list_taught_classes
    from parley_client.models import CreateClass, CreateToken, CreateUser, EnrollmentRole, PutEnrollment, UserRole

    group_id = next(t.group_id for t in expect(list_tools.sync_detailed(client=client)).items if t.id == tool_id)
    teacher = expect(
        admin_create_user.sync_detailed(
            client=client,
            body=CreateUser(email=f"teacher-{time.time_ns()}@example.com", name="Tess", role=UserRole.TEACHER),
        )
    )
    minted = expect(admin_create_token.sync_detailed(teacher.id, client=client, body=CreateToken(name="client test")))
    mine = expect(admin_create_class.sync_detailed(client=client, body=CreateClass(group_id=group_id, name="Py Maths")))
    other = expect(admin_create_class.sync_detailed(client=client, body=CreateClass(group_id=group_id, name="Py Art")))
    expect(
        admin_put_enrollment.sync_detailed(
            mine.id, teacher.id, client=client, body=PutEnrollment(role=EnrollmentRole.TEACHER)
        )
    )
    with AuthenticatedClient(base_url=parley.base_url, token=minted.secret) as as_teacher:
        classes = expect(list_taught_classes.sync_detailed(client=as_teacher))
        assert [(c.id, c.name, c.students) for c in classes.items] == [(mine.id, "Py Maths", 0)]
        detail = expect(get_taught_class.sync_detailed(mine.id, client=as_teacher))
        assert [t.name for t in detail.teachers] == ["Tess"]
        assert expect(list_class_sessions.sync_detailed(mine.id, client=as_teacher)).items == []
        with pytest.raises(ParleyProblem) as raised:
            expect(get_taught_class.sync_detailed(other.id, client=as_teacher))
        assert (raised.value.status, raised.value.code) == (404, "not_found")
