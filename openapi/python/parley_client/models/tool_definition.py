from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.skill_name import SkillName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.history_settings import HistorySettings
    from ..models.sampling_bounds import SamplingBounds
    from ..models.tool_constraints import ToolConstraints
    from ..models.tool_module import ToolModule


T = TypeVar("T", bound="ToolDefinition")


@_attrs_define
class ToolDefinition:
    """What a chat tool is: its behavior, model, constraints, modules and functions.

    Absent options are not stored, so the organisation's settings stay in force for them
    when a session's configuration is resolved (org → tool → assignment).

        Attributes:
            behavior (str): The core behavior: the "Core Behavior" section of the system prompt.
            approval_required (list[str] | None | Unset): Functions whose calls wait for the session's owner to approve them
                (each must be
                one of `functions`), besides those that always need approval (`GET
                /v1/functions`: `requires_approval`). A waiting call suspends the turn until it is
                approved (it runs), denied or expires (the model is told it was denied).
            constraints (None | ToolConstraints | Unset): What the tool must stay within.
            enabled_skills (list[SkillName] | None | Unset): Which built-in skills may answer, by name; absent: all of them
                (`timer`,
                `math`). Whatever is listed, a skill whose answer would break the tool's
                constraints does not answer — with `constraints.no_direct_answers`, `math` (which
                hands out the result) never does: the model answers, told the constraint.
            functions (list[str] | None | Unset): Names of the functions the model may call.
            history (HistorySettings | None | Unset): What a long conversation keeps of what falls out of the model's
                window: the
                window moves in steps (the same history prefix turn after turn, so providers'
                prompt caches hit), and with `compaction: summarize` what a step drops is
                summarized by a model call and kept at the head of the history.
            hold_back (bool | None | Unset): Hold the answer back until the tool's `chat:after_ai` modules passed it:
                readers
                get its events only then (or the replacement, if a module replaced it); default
                false.
            max_iterations (int | None | Unset): Model calls per turn at most, function calls in between (default 5).
            max_messages (int | None | Unset): The most messages a session may hold.
            max_session_duration_s (int | None | Unset): The longest a session may last, in seconds (at most a year).
            model (None | str | Unset): The model to use; absent means the deployment's default model.
            modules (list[ToolModule] | None | Unset): Modules (hooks) enabled for this tool, with their settings.
            payload_types (list[str] | None | Unset): Payload types the model may write into its answers (source `llm`, see
                `GET
                /v1/payload-types`); their instructions join the system prompt.
            sampling (None | SamplingBounds | Unset): Bounds on the sampling a request may ask for (`temperature`, `top_p`,
                the
                penalties: fixed or a range; `max_output_tokens`: a cap), and whether a value
                outside them is clamped (the default) or refused 400.
            skills (bool | None | Unset): Let the built-in skills (timers, math) answer messages that are clearly theirs
                instead of the model; default true.
            suggestions (bool | None | Unset): Ask the model for suggested values and actions (parsed out of its answer into
                `complete.payload`); default false.
    """

    behavior: str
    approval_required: list[str] | None | Unset = UNSET
    constraints: None | ToolConstraints | Unset = UNSET
    enabled_skills: list[SkillName] | None | Unset = UNSET
    functions: list[str] | None | Unset = UNSET
    history: HistorySettings | None | Unset = UNSET
    hold_back: bool | None | Unset = UNSET
    max_iterations: int | None | Unset = UNSET
    max_messages: int | None | Unset = UNSET
    max_session_duration_s: int | None | Unset = UNSET
    model: None | str | Unset = UNSET
    modules: list[ToolModule] | None | Unset = UNSET
    payload_types: list[str] | None | Unset = UNSET
    sampling: None | SamplingBounds | Unset = UNSET
    skills: bool | None | Unset = UNSET
    suggestions: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.history_settings import HistorySettings
        from ..models.sampling_bounds import SamplingBounds
        from ..models.tool_constraints import ToolConstraints

        behavior = self.behavior

        approval_required: list[str] | None | Unset
        if isinstance(self.approval_required, Unset):
            approval_required = UNSET
        elif isinstance(self.approval_required, list):
            approval_required = self.approval_required

        else:
            approval_required = self.approval_required

        constraints: dict[str, Any] | None | Unset
        if isinstance(self.constraints, Unset):
            constraints = UNSET
        elif isinstance(self.constraints, ToolConstraints):
            constraints = self.constraints.to_dict()
        else:
            constraints = self.constraints

        enabled_skills: list[str] | None | Unset
        if isinstance(self.enabled_skills, Unset):
            enabled_skills = UNSET
        elif isinstance(self.enabled_skills, list):
            enabled_skills = []
            for enabled_skills_type_0_item_data in self.enabled_skills:
                enabled_skills_type_0_item = enabled_skills_type_0_item_data.value
                enabled_skills.append(enabled_skills_type_0_item)

        else:
            enabled_skills = self.enabled_skills

        functions: list[str] | None | Unset
        if isinstance(self.functions, Unset):
            functions = UNSET
        elif isinstance(self.functions, list):
            functions = self.functions

        else:
            functions = self.functions

        history: dict[str, Any] | None | Unset
        if isinstance(self.history, Unset):
            history = UNSET
        elif isinstance(self.history, HistorySettings):
            history = self.history.to_dict()
        else:
            history = self.history

        hold_back: bool | None | Unset
        if isinstance(self.hold_back, Unset):
            hold_back = UNSET
        else:
            hold_back = self.hold_back

        max_iterations: int | None | Unset
        if isinstance(self.max_iterations, Unset):
            max_iterations = UNSET
        else:
            max_iterations = self.max_iterations

        max_messages: int | None | Unset
        if isinstance(self.max_messages, Unset):
            max_messages = UNSET
        else:
            max_messages = self.max_messages

        max_session_duration_s: int | None | Unset
        if isinstance(self.max_session_duration_s, Unset):
            max_session_duration_s = UNSET
        else:
            max_session_duration_s = self.max_session_duration_s

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        modules: list[dict[str, Any]] | None | Unset
        if isinstance(self.modules, Unset):
            modules = UNSET
        elif isinstance(self.modules, list):
            modules = []
            for modules_type_0_item_data in self.modules:
                modules_type_0_item = modules_type_0_item_data.to_dict()
                modules.append(modules_type_0_item)

        else:
            modules = self.modules

        payload_types: list[str] | None | Unset
        if isinstance(self.payload_types, Unset):
            payload_types = UNSET
        elif isinstance(self.payload_types, list):
            payload_types = self.payload_types

        else:
            payload_types = self.payload_types

        sampling: dict[str, Any] | None | Unset
        if isinstance(self.sampling, Unset):
            sampling = UNSET
        elif isinstance(self.sampling, SamplingBounds):
            sampling = self.sampling.to_dict()
        else:
            sampling = self.sampling

        skills: bool | None | Unset
        if isinstance(self.skills, Unset):
            skills = UNSET
        else:
            skills = self.skills

        suggestions: bool | None | Unset
        if isinstance(self.suggestions, Unset):
            suggestions = UNSET
        else:
            suggestions = self.suggestions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "behavior": behavior,
            }
        )
        if approval_required is not UNSET:
            field_dict["approval_required"] = approval_required
        if constraints is not UNSET:
            field_dict["constraints"] = constraints
        if enabled_skills is not UNSET:
            field_dict["enabled_skills"] = enabled_skills
        if functions is not UNSET:
            field_dict["functions"] = functions
        if history is not UNSET:
            field_dict["history"] = history
        if hold_back is not UNSET:
            field_dict["hold_back"] = hold_back
        if max_iterations is not UNSET:
            field_dict["max_iterations"] = max_iterations
        if max_messages is not UNSET:
            field_dict["max_messages"] = max_messages
        if max_session_duration_s is not UNSET:
            field_dict["max_session_duration_s"] = max_session_duration_s
        if model is not UNSET:
            field_dict["model"] = model
        if modules is not UNSET:
            field_dict["modules"] = modules
        if payload_types is not UNSET:
            field_dict["payload_types"] = payload_types
        if sampling is not UNSET:
            field_dict["sampling"] = sampling
        if skills is not UNSET:
            field_dict["skills"] = skills
        if suggestions is not UNSET:
            field_dict["suggestions"] = suggestions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.history_settings import HistorySettings
        from ..models.sampling_bounds import SamplingBounds
        from ..models.tool_constraints import ToolConstraints
        from ..models.tool_module import ToolModule

        d = dict(src_dict)
        behavior = d.pop("behavior")

        def _parse_approval_required(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                approval_required_type_0 = cast(list[str], data)

                return approval_required_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        approval_required = _parse_approval_required(d.pop("approval_required", UNSET))

        def _parse_constraints(data: object) -> None | ToolConstraints | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                constraints_type_1 = ToolConstraints.from_dict(data)

                return constraints_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolConstraints | Unset, data)

        constraints = _parse_constraints(d.pop("constraints", UNSET))

        def _parse_enabled_skills(data: object) -> list[SkillName] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                enabled_skills_type_0 = []
                _enabled_skills_type_0 = data
                for enabled_skills_type_0_item_data in _enabled_skills_type_0:
                    enabled_skills_type_0_item = SkillName(
                        enabled_skills_type_0_item_data
                    )

                    enabled_skills_type_0.append(enabled_skills_type_0_item)

                return enabled_skills_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[SkillName] | None | Unset, data)

        enabled_skills = _parse_enabled_skills(d.pop("enabled_skills", UNSET))

        def _parse_functions(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                functions_type_0 = cast(list[str], data)

                return functions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        functions = _parse_functions(d.pop("functions", UNSET))

        def _parse_history(data: object) -> HistorySettings | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                history_type_1 = HistorySettings.from_dict(data)

                return history_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HistorySettings | None | Unset, data)

        history = _parse_history(d.pop("history", UNSET))

        def _parse_hold_back(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        hold_back = _parse_hold_back(d.pop("hold_back", UNSET))

        def _parse_max_iterations(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_iterations = _parse_max_iterations(d.pop("max_iterations", UNSET))

        def _parse_max_messages(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_messages = _parse_max_messages(d.pop("max_messages", UNSET))

        def _parse_max_session_duration_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_session_duration_s = _parse_max_session_duration_s(
            d.pop("max_session_duration_s", UNSET)
        )

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_modules(data: object) -> list[ToolModule] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                modules_type_0 = []
                _modules_type_0 = data
                for modules_type_0_item_data in _modules_type_0:
                    modules_type_0_item = ToolModule.from_dict(modules_type_0_item_data)

                    modules_type_0.append(modules_type_0_item)

                return modules_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ToolModule] | None | Unset, data)

        modules = _parse_modules(d.pop("modules", UNSET))

        def _parse_payload_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                payload_types_type_0 = cast(list[str], data)

                return payload_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        payload_types = _parse_payload_types(d.pop("payload_types", UNSET))

        def _parse_sampling(data: object) -> None | SamplingBounds | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                sampling_type_1 = SamplingBounds.from_dict(data)

                return sampling_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SamplingBounds | Unset, data)

        sampling = _parse_sampling(d.pop("sampling", UNSET))

        def _parse_skills(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        skills = _parse_skills(d.pop("skills", UNSET))

        def _parse_suggestions(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        suggestions = _parse_suggestions(d.pop("suggestions", UNSET))

        tool_definition = cls(
            behavior=behavior,
            approval_required=approval_required,
            constraints=constraints,
            enabled_skills=enabled_skills,
            functions=functions,
            history=history,
            hold_back=hold_back,
            max_iterations=max_iterations,
            max_messages=max_messages,
            max_session_duration_s=max_session_duration_s,
            model=model,
            modules=modules,
            payload_types=payload_types,
            sampling=sampling,
            skills=skills,
            suggestions=suggestions,
        )

        return tool_definition
