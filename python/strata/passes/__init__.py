"""strata's passes: declared in `passes/*.td`, implemented in `strata.passes.<td stem>`.

The registry is generated from TableGen (`_registry_gen.py`), so a pass's name, anchor, summary
and options are written once, in its `.td` file. An implementation module defines
`run(op, options)`; `options` is a frozen dataclass whose fields are the TableGen options'
command-line names in snake_case. A pass that fails emits its errors at the offending op's
location and raises `PassFailure`.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib

from strata.errors import StrataError
from strata.passes._registry_gen import PASSES


class PassFailure(Exception):
    """Raised by a pass implementation after it has emitted its error diagnostics."""


@dataclasses.dataclass(frozen=True)
class OptionInfo:
    name: str
    type: str
    default: str
    description: str
    is_list: bool

    @property
    def field_name(self) -> str:
        return self.name.replace("-", "_")


@dataclasses.dataclass(frozen=True)
class PassInfo:
    argument: str
    anchor: str | None
    summary: str
    description: str
    module: str
    td_file: str
    options: tuple[OptionInfo, ...]

    def implementation(self):
        return importlib.import_module(f"strata.passes.{self.module}").run

    @functools.cached_property
    def options_class(self) -> type:
        return dataclasses.make_dataclass(
            f"{self.module}_options", [(o.field_name, object) for o in self.options], frozen=True
        )

    def parse_options(self, text: str):
        """Options from `key=value key2=v1,v2` (the inside of `pass{...}`), checked and typed."""
        values = {o.name: _parse_value(self, o, o.default, default=True) for o in self.options}
        by_name = {o.name: o for o in self.options}
        for key, raw in _split_options(self, text):
            if key not in by_name:
                known = ", ".join(by_name) or "none"
                raise StrataError(
                    f"pass '{self.argument}' has no option '{key}' (its options: {known})"
                )
            values[key] = _parse_value(self, by_name[key], raw)
        return self.options_class(**{k.replace("-", "_"): v for k, v in values.items()})


_REGISTRY = {
    entry["argument"]: PassInfo(**{**entry, "options": tuple(OptionInfo(**o) for o in entry["options"])})
    for entry in PASSES
}


def lookup(argument: str) -> PassInfo | None:
    return _REGISTRY.get(argument)


def all_passes() -> list[PassInfo]:
    return list(_REGISTRY.values())


def _split_options(info: PassInfo, text: str):
    """Splits on spaces outside braces and quotes, as MLIR's pass option parser does."""
    items, depth, quote, start = [], 0, None, 0
    text = text.strip()
    for i, ch in enumerate(text + " "):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == " " and depth == 0:
            if text[start:i].strip():
                items.append(text[start:i].strip())
            start = i + 1
    result = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            value = "true"  # `flag` alone means `flag=true`, as in MLIR
        result.append((key.strip(), value.strip().strip("\"'")))
    return result


def _parse_scalar(info: PassInfo, option: OptionInfo, raw: str):
    kind = option.type
    try:
        if kind == "bool":
            if raw.lower() in ("true", "1", ""):
                return True
            if raw.lower() in ("false", "0"):
                return False
            raise ValueError
        if kind in ("int", "unsigned", "int64_t", "uint64_t", "int32_t", "uint32_t", "size_t"):
            value = int(raw, 0)
            if kind.startswith("u") or kind == "size_t":
                if value < 0:
                    raise ValueError
            return value
        if kind in ("float", "double"):
            return float(raw)
    except ValueError:
        raise StrataError(
            f"pass '{info.argument}': option '{option.name}' expects a value of type "
            f"{kind}, got '{raw}'"
        ) from None
    return raw  # std::string and anything string-like


def _parse_value(info: PassInfo, option: OptionInfo, raw: str, default: bool = False):
    if option.is_list:
        parts = [p for p in raw.split(",") if p.strip()] if raw else []
        return tuple(_parse_scalar(info, option, p.strip()) for p in parts)
    if default and raw == "" and option.type not in ("std::string", "string"):
        return None
    return _parse_scalar(info, option, raw.strip('"') if default else raw)
