"""Prompt resources: `prompts/system.md` and `prompts/user.md` beside the code that uses them.

Templates use `str.format()` placeholders; a missing value is a programming error and says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class PromptTemplates:
    system: str
    user: str

    def render_user(self, **values: Any) -> str:
        try:
            return self.user.format(**values)
        except KeyError as exc:
            raise KeyError(f"prompt placeholder {exc} has no value") from exc


def load_prompts(package: str, folder: str = "prompts") -> PromptTemplates:
    """Read `<package>/<folder>/system.md` and `user.md` as package resources."""
    base = resources.files(package).joinpath(folder)
    return PromptTemplates(
        system=base.joinpath("system.md").read_text(encoding="utf-8").strip(),
        user=base.joinpath("user.md").read_text(encoding="utf-8").strip(),
    )
