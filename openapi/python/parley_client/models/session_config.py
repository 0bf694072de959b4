from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.skill_name import SkillName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.history_settings import HistorySettings
    from ..models.sampling_bounds import SamplingBounds
    from ..models.session_assignment import SessionAssignment
    from ..models.tool_constraints import ToolConstraints
    from ..models.tool_module import ToolModule


T = TypeVar("T", bound="SessionConfig")


@_attrs_define
class SessionConfig:
    """A session's configuration: group settings (root first) → the tool's definition → the
    assignment's config, merged field by field when the session opened and frozen on it
    (a tool changed later does not change open sessions). Absent options take the
    deployment's defaults.

        Attributes:
            approval_required (list[str] | Unset): Functions whose calls wait for the owner's approval (besides the
                functions the
                deployment's configuration makes always wait).
            assignment (SessionAssignment | Unset): The assignment of a session, as its configuration carries it (the
                "Assignment
                Context" section of the system prompt, `getAssignmentInfo`).
            behavior (str | Unset): The core behavior (the "Core Behavior" section of the system prompt).
            constraints (ToolConstraints | Unset): Limits on what a tool talks about and how it answers.
            enabled_skills (list[SkillName] | Unset): Which built-in skills may answer (absent: all; constraints still rule
                some out:
                under `no_direct_answers`, a skill that hands out results does not answer).
            functions (list[str] | Unset): Names of the functions the model may call.
            guidance (str | Unset): The "Additional Guidance" section of the system prompt (before what modules add).
            history (HistorySettings | Unset): How a tool's long conversations keep their history
                (`ToolDefinition::history`).
            hold_back (bool | Unset): Hold the answer back until the `chat:after_ai` modules passed it (default false).
            max_iterations (int | Unset): Model calls per turn at most (default 5).
            max_messages (int | Unset): The most messages the session may hold.
            max_session_duration_s (int | Unset): The longest the session may last, in seconds.
            model (str | Unset): The model of turns that name none (when this deployment serves it).
            modules (list[ToolModule] | Unset): Modules (hooks) enabled, with their settings for this tool.
            payload_types (list[str] | Unset): Payload types the model may write into its answers.
            sampling (SamplingBounds | Unset): The bounds a chat tool sets on its turns' sampling
                (`ToolDefinition::sampling`).
            skills (bool | Unset): Let the built-in skills answer (default true).
            suggestions (bool | Unset): Ask the model for suggested values and actions (default false).
    """

    approval_required: list[str] | Unset = UNSET
    assignment: SessionAssignment | Unset = UNSET
    behavior: str | Unset = UNSET
    constraints: ToolConstraints | Unset = UNSET
    enabled_skills: list[SkillName] | Unset = UNSET
    functions: list[str] | Unset = UNSET
    guidance: str | Unset = UNSET
    history: HistorySettings | Unset = UNSET
    hold_back: bool | Unset = UNSET
    max_iterations: int | Unset = UNSET
    max_messages: int | Unset = UNSET
    max_session_duration_s: int | Unset = UNSET
    model: str | Unset = UNSET
    modules: list[ToolModule] | Unset = UNSET
    payload_types: list[str] | Unset = UNSET
    sampling: SamplingBounds | Unset = UNSET
    skills: bool | Unset = UNSET
    suggestions: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        approval_required: list[str] | Unset = UNSET
        if not isinstance(self.approval_required, Unset):
            approval_required = self.approval_required

        assignment: dict[str, Any] | Unset = UNSET
        if not isinstance(self.assignment, Unset):
            assignment = self.assignment.to_dict()

        behavior = self.behavior

        constraints: dict[str, Any] | Unset = UNSET
        if not isinstance(self.constraints, Unset):
            constraints = self.constraints.to_dict()

        enabled_skills: list[str] | Unset = UNSET
        if not isinstance(self.enabled_skills, Unset):
            enabled_skills = []
            for enabled_skills_item_data in self.enabled_skills:
                enabled_skills_item = enabled_skills_item_data.value
                enabled_skills.append(enabled_skills_item)

        functions: list[str] | Unset = UNSET
        if not isinstance(self.functions, Unset):
            functions = self.functions

        guidance = self.guidance

        history: dict[str, Any] | Unset = UNSET
        if not isinstance(self.history, Unset):
            history = self.history.to_dict()

        hold_back = self.hold_back

        max_iterations = self.max_iterations

        max_messages = self.max_messages

        max_session_duration_s = self.max_session_duration_s

        model = self.model

        modules: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.modules, Unset):
            modules = []
            for modules_item_data in self.modules:
                modules_item = modules_item_data.to_dict()
                modules.append(modules_item)

        payload_types: list[str] | Unset = UNSET
        if not isinstance(self.payload_types, Unset):
            payload_types = self.payload_types

        sampling: dict[str, Any] | Unset = UNSET
        if not isinstance(self.sampling, Unset):
            sampling = self.sampling.to_dict()

        skills = self.skills

        suggestions = self.suggestions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if approval_required is not UNSET:
            field_dict["approval_required"] = approval_required
        if assignment is not UNSET:
            field_dict["assignment"] = assignment
        if behavior is not UNSET:
            field_dict["behavior"] = behavior
        if constraints is not UNSET:
            field_dict["constraints"] = constraints
        if enabled_skills is not UNSET:
            field_dict["enabled_skills"] = enabled_skills
        if functions is not UNSET:
            field_dict["functions"] = functions
        if guidance is not UNSET:
            field_dict["guidance"] = guidance
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
        from ..models.session_assignment import SessionAssignment
        from ..models.tool_constraints import ToolConstraints
        from ..models.tool_module import ToolModule

        d = dict(src_dict)
        approval_required = cast(list[str], d.pop("approval_required", UNSET))

        _assignment = d.pop("assignment", UNSET)
        assignment: SessionAssignment | Unset
        if isinstance(_assignment, Unset):
            assignment = UNSET
        else:
            assignment = SessionAssignment.from_dict(_assignment)

        behavior = d.pop("behavior", UNSET)

        _constraints = d.pop("constraints", UNSET)
        constraints: ToolConstraints | Unset
        if isinstance(_constraints, Unset):
            constraints = UNSET
        else:
            constraints = ToolConstraints.from_dict(_constraints)

        _enabled_skills = d.pop("enabled_skills", UNSET)
        enabled_skills: list[SkillName] | Unset = UNSET
        if _enabled_skills is not UNSET:
            enabled_skills = []
            for enabled_skills_item_data in _enabled_skills:
                enabled_skills_item = SkillName(enabled_skills_item_data)

                enabled_skills.append(enabled_skills_item)

        functions = cast(list[str], d.pop("functions", UNSET))

        guidance = d.pop("guidance", UNSET)

        _history = d.pop("history", UNSET)
        history: HistorySettings | Unset
        if isinstance(_history, Unset):
            history = UNSET
        else:
            history = HistorySettings.from_dict(_history)

        hold_back = d.pop("hold_back", UNSET)

        max_iterations = d.pop("max_iterations", UNSET)

        max_messages = d.pop("max_messages", UNSET)

        max_session_duration_s = d.pop("max_session_duration_s", UNSET)

        model = d.pop("model", UNSET)

        _modules = d.pop("modules", UNSET)
        modules: list[ToolModule] | Unset = UNSET
        if _modules is not UNSET:
            modules = []
            for modules_item_data in _modules:
                modules_item = ToolModule.from_dict(modules_item_data)

                modules.append(modules_item)

        payload_types = cast(list[str], d.pop("payload_types", UNSET))

        _sampling = d.pop("sampling", UNSET)
        sampling: SamplingBounds | Unset
        if isinstance(_sampling, Unset):
            sampling = UNSET
        else:
            sampling = SamplingBounds.from_dict(_sampling)

        skills = d.pop("skills", UNSET)

        suggestions = d.pop("suggestions", UNSET)

        session_config = cls(
            approval_required=approval_required,
            assignment=assignment,
            behavior=behavior,
            constraints=constraints,
            enabled_skills=enabled_skills,
            functions=functions,
            guidance=guidance,
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

        session_config.additional_properties = d
        return session_config

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
