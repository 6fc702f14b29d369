"""Named pipelines as data: `pipelines/<name>.toml` read into frozen, validated descriptions.

A pipeline is an ordered list of named stages, each a textual pass pipeline in which strata's
Python passes and upstream passes mix (`strata.pass_pipeline`). Stage text may name the
pipeline's options, e.g. `{chip}`; options are declared with a default and the values they may
take, and a stage can be restricted to some option values with `when = { route = "tosa" }`.
A stage may name a `transform_library` in `pipelines/transforms/`: transform-dialect sequences
that its `transform-interpreter` passes call by name. Keeping the
stages in files rather than Python makes every pipeline inspectable and runnable on its own.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from strata.errors import StrataError
from strata.resources import PIPELINES_DIR

TRANSFORMS_DIR = PIPELINES_DIR / "transforms"
_PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9-]*)\}")


@dataclass(frozen=True)
class Option:
    name: str
    default: str
    choices: tuple[str, ...]
    summary: str = ""


@dataclass(frozen=True)
class Stage:
    name: str
    pipeline: str  # the text as written, placeholders unresolved
    summary: str = ""
    when: tuple[tuple[str, str], ...] = ()
    transform_library: Path | None = None

    def applies(self, options: dict[str, str]) -> bool:
        return all(options[key] == value for key, value in self.when)

    def resolved(self, options: dict[str, str]) -> str:
        """The stage's pass pipeline with option placeholders filled in."""
        return " ".join(_PLACEHOLDER.sub(lambda m: options[m.group(1)], self.pipeline).split())


@dataclass(frozen=True)
class Pipeline:
    name: str
    summary: str
    input: str  # what the pipeline takes, named like a stage: "torch", "linalg"
    stages: tuple[Stage, ...]
    options: tuple[Option, ...] = field(default=())
    path: Path | None = None

    def resolve_options(self, given: dict[str, str] | None) -> dict[str, str]:
        """Defaults overridden by `given`, every value checked against the declared choices."""
        declared = {o.name: o for o in self.options}
        given = {k.replace("_", "-"): str(v) for k, v in (given or {}).items()}
        unknown = sorted(set(given) - set(declared))
        if unknown:
            known = ", ".join(sorted(declared)) or "none"
            raise StrataError(f"pipeline '{self.name}' has no option '{unknown[0]}' (options: {known})")
        values = {name: given.get(name, o.default) for name, o in declared.items()}
        for name, value in values.items():
            if value not in declared[name].choices:
                choices = ", ".join(declared[name].choices)
                raise StrataError(f"pipeline '{self.name}': option {name}={value} is not one of {choices}")
        return values

    def active_stages(self, options: dict[str, str]) -> tuple[Stage, ...]:
        return tuple(s for s in self.stages if s.applies(options))


def names() -> list[str]:
    return sorted(p.stem for p in PIPELINES_DIR.glob("*.toml"))


def load(name_or_path) -> Pipeline:
    """The pipeline called `name` in `pipelines/`, or the one in a `.toml` file at that path."""
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = PIPELINES_DIR / f"{name_or_path}.toml"
        if not path.is_file():
            raise StrataError(f"unknown pipeline '{name_or_path}' (known: {', '.join(names())})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StrataError(f"cannot read pipeline file '{path}': no such file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise StrataError(f"{path}: not a valid pipeline file: {e}") from None
    return _from_toml(path, data)


def _from_toml(path: Path, data: dict) -> Pipeline:
    def fail(message: str):
        raise StrataError(f"{path}: {message}")

    options = []
    for name, spec in data.get("options", {}).items():
        if not isinstance(spec, dict) or "default" not in spec or "choices" not in spec:
            fail(f"option '{name}' needs a 'default' and a list of 'choices'")
        choices = tuple(str(c) for c in spec["choices"])
        if str(spec["default"]) not in choices:
            fail(f"option '{name}': default '{spec['default']}' is not one of its choices")
        options.append(Option(name, str(spec["default"]), choices, spec.get("summary", "")))
    option_names = {o.name for o in options}

    stages = []
    for index, raw in enumerate(data.get("stage", [])):
        if "name" not in raw or "pipeline" not in raw:
            fail(f"stage {index + 1} needs a 'name' and a 'pipeline'")
        when = tuple((str(k), str(v)) for k, v in raw.get("when", {}).items())
        for key, value in when:
            if key not in option_names:
                fail(f"stage '{raw['name']}': 'when' names unknown option '{key}'")
            if value not in next(o.choices for o in options if o.name == key):
                fail(f"stage '{raw['name']}': 'when' value {key}={value} is not one of its choices")
        for placeholder in _PLACEHOLDER.findall(raw["pipeline"]):
            if placeholder not in option_names:
                fail(f"stage '{raw['name']}': unknown placeholder '{{{placeholder}}}'")
        library = None
        if "transform_library" in raw:
            library = TRANSFORMS_DIR / raw["transform_library"]
            if not library.is_file():
                fail(f"stage '{raw['name']}': no transform library '{library}'")
        stages.append(Stage(raw["name"], raw["pipeline"], raw.get("summary", ""), when, library))
    if not stages:
        fail("a pipeline needs at least one [[stage]]")
    if "input" not in data:
        fail("missing 'input' (the name of the IR the pipeline takes, e.g. \"linalg\")")
    return Pipeline(path.stem, data.get("summary", ""), data["input"], tuple(stages), tuple(options), path)
