from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.assignment_scope import AssignmentScope
    from ..models.class_scope import ClassScope
    from ..models.group_scope import GroupScope


T = TypeVar("T", bound="ScopeContext")


@_attrs_define
class ScopeContext:
    """Where the session happens: the tool's group, and the class and assignment when the
    session was opened for one.

        Attributes:
            assignment (AssignmentScope | Unset):
            class_ (ClassScope | Unset):
            group (GroupScope | Unset):
    """

    assignment: AssignmentScope | Unset = UNSET
    class_: ClassScope | Unset = UNSET
    group: GroupScope | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assignment: dict[str, Any] | Unset = UNSET
        if not isinstance(self.assignment, Unset):
            assignment = self.assignment.to_dict()

        class_: dict[str, Any] | Unset = UNSET
        if not isinstance(self.class_, Unset):
            class_ = self.class_.to_dict()

        group: dict[str, Any] | Unset = UNSET
        if not isinstance(self.group, Unset):
            group = self.group.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if assignment is not UNSET:
            field_dict["assignment"] = assignment
        if class_ is not UNSET:
            field_dict["class"] = class_
        if group is not UNSET:
            field_dict["group"] = group

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.assignment_scope import AssignmentScope
        from ..models.class_scope import ClassScope
        from ..models.group_scope import GroupScope

        d = dict(src_dict)
        _assignment = d.pop("assignment", UNSET)
        assignment: AssignmentScope | Unset
        if isinstance(_assignment, Unset):
            assignment = UNSET
        else:
            assignment = AssignmentScope.from_dict(_assignment)

        _class_ = d.pop("class", UNSET)
        class_: ClassScope | Unset
        if isinstance(_class_, Unset):
            class_ = UNSET
        else:
            class_ = ClassScope.from_dict(_class_)

        _group = d.pop("group", UNSET)
        group: GroupScope | Unset
        if isinstance(_group, Unset):
            group = UNSET
        else:
            group = GroupScope.from_dict(_group)

        scope_context = cls(
            assignment=assignment,
            class_=class_,
            group=group,
        )

        scope_context.additional_properties = d
        return scope_context

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
