"""The export of conversations as a Python iterator (hand-written; kept by generate.sh).

`GET /v1/admin/exports/conversations` (administrators) answers JSONL
(`application/x-ndjson`), written by the server a page of sessions at a time: one
conversation per line in OpenAI's chat fine-tuning format (`{"messages": [...],
"tools": [...]}`, the `ExportedConversation` schema of the document). The generated
operation (`parley_client.api.admin.admin_export_conversations`) cannot read it: it takes
the body for one JSON value, as it does a `text/event-stream`. `conversations` reads it
line by line as it arrives and yields each conversation as a dict, so a large export is
never held whole:

    from parley_client import AuthenticatedClient
    from parley_client.export import conversations

    client = AuthenticatedClient(base_url="http://127.0.0.1:8080", token=admin_token)
    with open("rated-down.jsonl", "w") as out:
        for conversation in conversations(client, rating="down"):
            out.write(json.dumps(conversation) + "\\n")

It raises `parley_client.problem.ParleyProblem` when Parley refuses the request (403 for
a non-admin, 400 for a window that ends before it starts), and `httpx` errors when the
connection breaks mid-way (the server cuts the body when a later page fails, so a
partial export is never taken for a whole one).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from .client import AuthenticatedClient
from .problem import ParleyProblem

PATH = "/v1/admin/exports/conversations"


def conversations(
    client: AuthenticatedClient,
    *,
    from_: datetime.datetime | None = None,
    to: datetime.datetime | None = None,
    tool_id: str | UUID | None = None,
    model: str | None = None,
    rating: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Yields the exported conversations (sessions started in [`from_`, `to`), of
    `tool_id`, with an answer on the exported branch by `model` or rated `rating`, `up` or
    `down`), oldest session first, each as it arrives."""
    params: dict[str, str] = {}
    for name, value in (("from", from_), ("to", to)):
        if value is not None:
            params[name] = value.isoformat()
    for name, value in (("tool_id", tool_id), ("model", model), ("rating", rating)):
        if value is not None:
            params[name] = str(value)
    http = client.get_httpx_client()
    request = http.build_request("GET", PATH, params=params, headers={"Accept": "application/x-ndjson"})
    response = http.send(request, stream=True)
    try:
        if response.status_code >= 400:
            response.read()
            raise ParleyProblem.from_response(response)
        for line in response.iter_lines():
            if line.strip():
                yield json.loads(line)
    finally:
        response.close()
