"""Field paths: read a model's texts by path, write the cleaned texts back, say which are required.

Paths: "reasoning_summary" (prose or a list of bullets), "dimension_analyses.*.assessment" (one
field per list element), "positive_catalysts[].event" (a list of objects read as bullets: a
dropped bullet drops its object). The same paths serve research, the debate and the judge.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from stockdesk.shared.claims.repair import CleanedTexts

ITEMS = "[]."


def _dump(data: Mapping[str, Any] | BaseModel) -> dict[str, Any]:
    return data.model_dump() if isinstance(data, BaseModel) else dict(data)


def _get(data: Any, path: str) -> Any:
    for part in path.split(".") if path else []:
        data = data[int(part)] if part.isdigit() else data[part]
    return data


def _expand(data: Any, path: str) -> list[str]:
    """ "a.*.b" -> ["a.0.b", "a.1.b", ...] for the elements there are."""
    if ".*." not in path:
        return [path]
    head, tail = path.split(".*.", 1)
    items = _get(data, head)
    return [p for i in range(len(items or [])) for p in _expand(data, f"{head}.{i}.{tail}")]


def collect_texts(data: Mapping[str, Any] | BaseModel, paths: Iterable[str]) -> dict[str, str | list[str]]:
    """{path: text or bullets} for every path (wildcards expanded); missing fields are skipped."""
    dumped = _dump(data)
    texts: dict[str, str | list[str]] = {}
    for pattern in paths:
        for path in _expand(dumped, pattern):
            try:
                if ITEMS in path:
                    parent, attr = path.split(ITEMS)
                    texts[path] = [str(item.get(attr) or "") for item in _get(dumped, parent) or []]
                else:
                    value = _get(dumped, path)
                    texts[path] = value if isinstance(value, str) else [str(v) for v in value or []]
            except (KeyError, IndexError, TypeError):
                continue
    return texts


def apply_texts(data: Mapping[str, Any] | BaseModel, cleaned: CleanedTexts) -> dict[str, Any]:
    """A copy of the dumped `data` with the cleaned texts written back and dropped objects gone."""
    out = copy.deepcopy(_dump(data))
    lists: dict[str, list[str]] = {}
    for path, value in cleaned.texts.items():
        if ITEMS in path:
            lists.setdefault(path.split(ITEMS)[0], []).append(path)
            continue
        *parents, leaf = path.split(".")
        _get(out, ".".join(parents))[int(leaf) if leaf.isdigit() else leaf] = value
    for parent in sorted(lists, key=lambda p: -p.count(".")):
        original = _get(out, parent)
        keep = set(range(len(original)))
        by_index: dict[int, dict[str, str]] = {}
        for path in lists[parent]:
            attr = path.split(ITEMS)[1]
            indices = cleaned.kept.get(path, list(range(len(original))))
            keep &= set(indices)
            for index, text in zip(indices, cleaned.texts[path], strict=False):
                by_index.setdefault(index, {})[attr] = text
        *parents, leaf = parent.split(".")
        holder = _get(out, ".".join(parents))
        holder[int(leaf) if leaf.isdigit() else leaf] = [
            {**original[i], **by_index.get(i, {})} for i in sorted(keep)
        ]
    return out


def _requires_content(model: BaseModel, path: str) -> bool:
    *parents, leaf = path.split(".")
    owner: Any = model
    for part in parents:
        owner = owner[int(part)] if part.isdigit() else getattr(owner, part)
    if not isinstance(owner, BaseModel) or leaf not in type(owner).model_fields:
        return False
    metadata = type(owner).model_fields[leaf].metadata
    return any((getattr(m, "min_length", 0) or 0) >= 1 for m in metadata)


def required_fields(model: BaseModel, paths: Iterable[str]) -> set[str]:
    """The paths whose field must not be empty (min_length >= 1 on the model), so that dropping
    leaves a placeholder there and the cleaned answer still validates."""
    required = set()
    for path in paths:
        try:
            if _requires_content(model, path.split(ITEMS)[0]):
                required.add(path)
        except (AttributeError, IndexError, TypeError, ValueError):
            continue
    return required
