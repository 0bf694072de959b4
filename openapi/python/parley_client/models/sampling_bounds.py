from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.out_of_bounds import OutOfBounds
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bound import Bound


T = TypeVar("T", bound="SamplingBounds")


@_attrs_define
class SamplingBounds:
    """The bounds a chat tool sets on its turns' sampling (`ToolDefinition::sampling`).

    Attributes:
        frequency_penalty (Bound | None | Unset):
        max_output_tokens (int | None | Unset): The most tokens an answer may have (below the model's own limit); a
            request
            asking more is clamped or refused.
        out_of_bounds (None | OutOfBounds | Unset): What happens to a request's value outside these bounds (default
            `clamp`).
        presence_penalty (Bound | None | Unset):
        temperature (Bound | None | Unset):
        top_p (Bound | None | Unset):
    """

    frequency_penalty: Bound | None | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    out_of_bounds: None | OutOfBounds | Unset = UNSET
    presence_penalty: Bound | None | Unset = UNSET
    temperature: Bound | None | Unset = UNSET
    top_p: Bound | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.bound import Bound

        frequency_penalty: dict[str, Any] | None | Unset
        if isinstance(self.frequency_penalty, Unset):
            frequency_penalty = UNSET
        elif isinstance(self.frequency_penalty, Bound):
            frequency_penalty = self.frequency_penalty.to_dict()
        else:
            frequency_penalty = self.frequency_penalty

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        out_of_bounds: None | str | Unset
        if isinstance(self.out_of_bounds, Unset):
            out_of_bounds = UNSET
        elif isinstance(self.out_of_bounds, OutOfBounds):
            out_of_bounds = self.out_of_bounds.value
        else:
            out_of_bounds = self.out_of_bounds

        presence_penalty: dict[str, Any] | None | Unset
        if isinstance(self.presence_penalty, Unset):
            presence_penalty = UNSET
        elif isinstance(self.presence_penalty, Bound):
            presence_penalty = self.presence_penalty.to_dict()
        else:
            presence_penalty = self.presence_penalty

        temperature: dict[str, Any] | None | Unset
        if isinstance(self.temperature, Unset):
            temperature = UNSET
        elif isinstance(self.temperature, Bound):
            temperature = self.temperature.to_dict()
        else:
            temperature = self.temperature

        top_p: dict[str, Any] | None | Unset
        if isinstance(self.top_p, Unset):
            top_p = UNSET
        elif isinstance(self.top_p, Bound):
            top_p = self.top_p.to_dict()
        else:
            top_p = self.top_p

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if frequency_penalty is not UNSET:
            field_dict["frequency_penalty"] = frequency_penalty
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if out_of_bounds is not UNSET:
            field_dict["out_of_bounds"] = out_of_bounds
        if presence_penalty is not UNSET:
            field_dict["presence_penalty"] = presence_penalty
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bound import Bound

        d = dict(src_dict)

        def _parse_frequency_penalty(data: object) -> Bound | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                frequency_penalty_type_1 = Bound.from_dict(data)

                return frequency_penalty_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Bound | None | Unset, data)

        frequency_penalty = _parse_frequency_penalty(d.pop("frequency_penalty", UNSET))

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        def _parse_out_of_bounds(data: object) -> None | OutOfBounds | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                out_of_bounds_type_1 = OutOfBounds(data)

                return out_of_bounds_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OutOfBounds | Unset, data)

        out_of_bounds = _parse_out_of_bounds(d.pop("out_of_bounds", UNSET))

        def _parse_presence_penalty(data: object) -> Bound | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                presence_penalty_type_1 = Bound.from_dict(data)

                return presence_penalty_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Bound | None | Unset, data)

        presence_penalty = _parse_presence_penalty(d.pop("presence_penalty", UNSET))

        def _parse_temperature(data: object) -> Bound | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                temperature_type_1 = Bound.from_dict(data)

                return temperature_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Bound | None | Unset, data)

        temperature = _parse_temperature(d.pop("temperature", UNSET))

        def _parse_top_p(data: object) -> Bound | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                top_p_type_1 = Bound.from_dict(data)

                return top_p_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Bound | None | Unset, data)

        top_p = _parse_top_p(d.pop("top_p", UNSET))

        sampling_bounds = cls(
            frequency_penalty=frequency_penalty,
            max_output_tokens=max_output_tokens,
            out_of_bounds=out_of_bounds,
            presence_penalty=presence_penalty,
            temperature=temperature,
            top_p=top_p,
        )

        return sampling_bounds
