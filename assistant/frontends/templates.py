"""Saved prompts (templates): a system prompt, model options and a model kept under a name, as ``llm --save`` and
aichat's roles keep them. One plain TOML file per template in the config folder's ``templates/``, which a person
may write or edit by hand:

    # assistant template
    system = "Answer in one short paragraph, in plain words."
    model = "qwen2.5:3b"
    max_retries = 1

    [options]
    temperature = 0.2

Flags given with ``-t NAME`` win over the template's values."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from assistant.control import one_line
from assistant.envnames import MODEL_NAME, NOT_A_MODEL_NAME, OPTIONS, SETTING_FLAGS
from assistant.errors import ConfigError
from tools.lazy_re import lazy_compile

NAME = lazy_compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class Template(BaseModel):
    """What a template holds; every field is optional (a template may only set the model). Beside the system
    prompt, the model and the options, it holds a value for each setting a flag sets (``envnames.SETTING_FLAGS``:
    ``max_retries``, ``answer_schema``, …), by the setting's name, checked by the setting's own rules: a flag added
    as a row is saved, shown and applied with nothing here changed."""

    model_config = ConfigDict(extra="allow")

    model: str | None = Field(None, description="the model for every role")
    options: dict[str, str | int | float] = Field(default_factory=dict, description="model options, as -o KEY VALUE")

    @model_validator(mode="after")
    def _flag_settings(self) -> "Template":
        from assistant.config import Settings

        extra = dict(self.model_extra or {})
        unknown = [k for k in extra if k not in SETTING_FLAGS]
        if unknown:
            raise ValueError(f"'{unknown[0]}' is not something a template holds (model, options, "
                             f"{', '.join(SETTING_FLAGS)})")
        if extra:
            checked = Settings(**{k: v for k, v in extra.items() if v is not None})
            for key in extra:  # each as the settings read it (their own rules and types)
                (self.__pydantic_extra__ or {})[key] = getattr(checked, key)
        return self

    def setting(self, name: str) -> Any:
        """The value this template holds for the flag-set setting ``name`` (None: it does not set it)."""
        return (self.model_extra or {}).get(name)

    @property
    def max_retries(self) -> int | None:
        return self.setting("max_retries")

    @property
    def system(self) -> str | None:
        """The system prompt: your own instructions for every answer."""
        return self.setting("system")

    @field_validator("model")
    @classmethod
    def _model(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(MODEL_NAME, value):
            raise ValueError(NOT_A_MODEL_NAME)
        return value

    @field_validator("options")
    @classmethod
    def _options(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = [k for k in value if k not in OPTIONS]
        if unknown:
            raise ValueError(f"'{unknown[0]}' is not a model option (options: {', '.join(OPTIONS)})")
        return value

    def summary(self) -> str:
        """One line: what it sets."""
        parts = [f"model {self.model}"] if self.model else []
        parts += [f"{k} {v}" for k, v in self.options.items()]
        parts += [f"{k} {one_line(str(v), 61)}" for k, v in (self.model_extra or {}).items()
                  if v is not None and k != "system"]
        if self.system:
            parts.append(f"system: {one_line(self.system, 61)}")
        return one_line(" · ".join(parts), 400) or "(sets nothing)"

    def to_toml(self) -> str:
        from assistant.config_file import toml_value

        lines = ["# assistant template: flags given with -t NAME win over these values"]
        for key in ("model", *SETTING_FLAGS):
            value = self.model if key == "model" else self.setting(key)
            if value is not None:
                lines.append(f"{key} = {toml_value(value)}")
        if self.options:
            lines += ["", "[options]", *(f"{k} = {toml_value(v)}" for k, v in self.options.items())]
        return "\n".join(lines) + "\n"


def folder(config_dir: Path) -> Path:
    return config_dir / "templates"


def path_of(config_dir: Path, name: str) -> Path:
    if not NAME.fullmatch(name):
        raise ConfigError(f"'{name}' is not a template name.", "Use letters, digits, '.', '_' and '-' (up to 64).")
    return folder(config_dir) / f"{name}.toml"


MAX_TEMPLATE = 1 << 20  # bytes: a template is a few lines; a larger file is not one


def names(config_dir: Path) -> list[str]:
    """The templates' names: the regular files of the folder whose names are template names (a FIFO or a file
    named with control characters is none)."""
    where = folder(config_dir)
    return sorted(p.stem for p in where.glob("*.toml") if NAME.fullmatch(p.stem) and p.is_file()) \
        if where.is_dir() else []


def text_of(path: Path) -> str:
    """A template file's text: a regular file, up to :data:`MAX_TEMPLATE` (an ``OSError`` or ``ValueError`` says
    why not)."""
    from assistant.limits import read_capped

    data = read_capped(path, MAX_TEMPLATE)
    if len(data) > MAX_TEMPLATE:
        raise ValueError(f"it is larger than {MAX_TEMPLATE >> 20} MB")
    return data.decode("utf-8")


def load(config_dir: Path, name: str) -> Template:
    """The template ``name``; a missing or broken one is one line naming the file and the fix."""
    import difflib

    path = path_of(config_dir, name)
    try:
        data = tomllib.loads(text_of(path))
    except FileNotFoundError:
        near = difflib.get_close_matches(name, names(config_dir), n=1)
        raise ConfigError(f"no template named '{name}'" + (f" (did you mean '{near[0]}'?)." if near else "."),
                          "`assistant templates list` lists them; --save NAME saves one.") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}.", f"Fix it: assistant templates edit {name}") from None
    except (OSError, ValueError) as e:  # UnicodeDecodeError is a ValueError
        raise ConfigError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}.",
                          f"Mend or remove it: assistant templates rm {name}") from None
    try:
        return Template.model_validate(data)
    except ValidationError as e:
        from assistant.config import plain_rule

        first = e.errors()[0]
        where = ".".join(map(str, first["loc"])) or "template"
        raise ConfigError(f"{path}: {where}: {plain_rule(first)}.", f"Fix it: assistant templates edit {name}") from None


def save(config_dir: Path, name: str, template: Template) -> Path:
    path = path_of(config_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(template.to_toml(), encoding="utf-8")
    tmp.replace(path)
    return path
