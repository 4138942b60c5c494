from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.info_defaults import InfoDefaults
    from ..models.info_limits import InfoLimits


T = TypeVar("T", bound="Info")


@_attrs_define
class Info:
    """
    Attributes:
        name (str):
        version (str):
        limits (InfoLimits): The limits in force, from the settings.
        defaults (InfoDefaults): The default of every option, per endpoint.
        tokenizers (list[str]): The tokenizers this process counts with.
        viewer (str): The path of the plan viewer page.
        compiled_reader (bool): Whether plan requests are read by the compiled reader (built and not turned off by
            CWP_COMPILED_READER); false: every request is read in Python.
    """

    name: str
    version: str
    limits: InfoLimits
    defaults: InfoDefaults
    tokenizers: list[str]
    viewer: str
    compiled_reader: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.info_defaults import InfoDefaults  # noqa: PLC0415
        from ..models.info_limits import InfoLimits  # noqa: PLC0415

        name = self.name

        version = self.version

        limits = self.limits.to_dict()

        defaults = self.defaults.to_dict()

        tokenizers = self.tokenizers

        viewer = self.viewer

        compiled_reader = self.compiled_reader

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "version": version,
                "limits": limits,
                "defaults": defaults,
                "tokenizers": tokenizers,
                "viewer": viewer,
                "compiled_reader": compiled_reader,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.info_defaults import InfoDefaults  # noqa: PLC0415
        from ..models.info_limits import InfoLimits  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        version = d.pop("version")

        limits = InfoLimits.from_dict(d.pop("limits"))

        defaults = InfoDefaults.from_dict(d.pop("defaults"))

        tokenizers = cast(list[str], d.pop("tokenizers"))

        viewer = d.pop("viewer")

        compiled_reader = d.pop("compiled_reader")

        info = cls(
            name=name,
            version=version,
            limits=limits,
            defaults=defaults,
            tokenizers=tokenizers,
            viewer=viewer,
            compiled_reader=compiled_reader,
        )

        info.additional_properties = d
        return info

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
