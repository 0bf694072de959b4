from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.client_function_parameters_type_0 import ClientFunctionParametersType0
    from ..models.client_function_returns_type_0 import ClientFunctionReturnsType0


T = TypeVar("T", bound="ClientFunction")


@_attrs_define
class ClientFunction:
    """A function the caller runs itself. The model may call it like one of the tool's
    functions; the call is then streamed as `client_call_requested` (its arguments checked
    against `parameters` first: arguments that do not fit are told to the model, not to
    the caller), the turn waits (`waiting_for_tools`, no worker held) and resumes once the
    caller posts the call's result (`POST /v1/prompts/{id}/calls/{call_id}/result`), or
    when the wait expires (the model is told no result came).

        Attributes:
            name (str): Letters, digits, `_` and `-`; not one of the session tool's own functions (422
                `invalid_client_function`).
            description (None | str | Unset): What it does, for the model.
            parameters (ClientFunctionParametersType0 | None | Unset): The JSON schema of its arguments; absent: any object.
            returns (ClientFunctionReturnsType0 | None | Unset): The JSON schema of its result, when it answers JSON: a
                posted result that is
                `text`, or `output` that does not fit, is refused 422 `invalid_call_result` and
                the call keeps waiting.
    """

    name: str
    description: None | str | Unset = UNSET
    parameters: ClientFunctionParametersType0 | None | Unset = UNSET
    returns: ClientFunctionReturnsType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.client_function_parameters_type_0 import (
            ClientFunctionParametersType0,
        )
        from ..models.client_function_returns_type_0 import ClientFunctionReturnsType0

        name = self.name

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        parameters: dict[str, Any] | None | Unset
        if isinstance(self.parameters, Unset):
            parameters = UNSET
        elif isinstance(self.parameters, ClientFunctionParametersType0):
            parameters = self.parameters.to_dict()
        else:
            parameters = self.parameters

        returns: dict[str, Any] | None | Unset
        if isinstance(self.returns, Unset):
            returns = UNSET
        elif isinstance(self.returns, ClientFunctionReturnsType0):
            returns = self.returns.to_dict()
        else:
            returns = self.returns

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if returns is not UNSET:
            field_dict["returns"] = returns

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.client_function_parameters_type_0 import (
            ClientFunctionParametersType0,
        )
        from ..models.client_function_returns_type_0 import ClientFunctionReturnsType0

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_parameters(
            data: object,
        ) -> ClientFunctionParametersType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parameters_type_0 = ClientFunctionParametersType0.from_dict(data)

                return parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ClientFunctionParametersType0 | None | Unset, data)

        parameters = _parse_parameters(d.pop("parameters", UNSET))

        def _parse_returns(data: object) -> ClientFunctionReturnsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                returns_type_0 = ClientFunctionReturnsType0.from_dict(data)

                return returns_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ClientFunctionReturnsType0 | None | Unset, data)

        returns = _parse_returns(d.pop("returns", UNSET))

        client_function = cls(
            name=name,
            description=description,
            parameters=parameters,
            returns=returns,
        )

        return client_function
