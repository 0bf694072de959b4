"""GET /openai/v1/models through client.models.list(), and one model through retrieve()."""

import openai
import pytest


def test_models_list_offers_the_tool_and_the_model(client, demo_tool_id):
    models = list(client.models.list())
    ids = [m.id for m in models]
    tool_id = f"tool:{demo_tool_id}"
    assert tool_id in ids, ids
    assert "mock-model" in ids, ids
    assert ids.index(tool_id) < ids.index("mock-model"), "the tools come first, then the models"

    tool = models[ids.index(tool_id)]
    assert tool.object == "model"
    assert tool.owned_by == "parley"
    assert isinstance(tool.created, int) and tool.created > 0
    assert getattr(tool, "name", None) == "Demo tutor"

    model = models[ids.index("mock-model")]
    assert model.object == "model"
    assert model.owned_by == "parley"
    assert isinstance(model.created, int)


def test_models_retrieve_reads_one_entry_and_refuses_an_unknown_id(client, demo_tool_id):
    tool = client.models.retrieve(f"tool:{demo_tool_id}")
    assert (tool.id, tool.object, tool.owned_by) == (f"tool:{demo_tool_id}", "model", "parley")
    assert getattr(tool, "name", None) == "Demo tutor"
    assert client.models.retrieve("mock-model").id == "mock-model"
    with pytest.raises(openai.NotFoundError) as caught:
        client.models.retrieve("no-such-model")
    assert caught.value.code == "model_not_found"
