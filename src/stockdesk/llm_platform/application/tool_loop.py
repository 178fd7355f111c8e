"""The bounded agent -> tools -> agent loop, for any caller and any provider.

The model is offered the tools; each call it asks for is checked (known tool, arguments valid for
the tool's pydantic model) and run, and its JSON result goes back as a `tool` turn. Bounds: at most
`max_calls` calls per turn and `max_tokens` over the turn's model calls; once either is reached the
model is asked for its final answer with no tools offered, so the loop always ends with the
caller's structured answer (through LLMService's one structured-output path). A repeated call is
answered from the turn's cache; a bad call or a failing tool is answered with an error the model
can read, never raised.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from stockdesk.llm_platform.domain.dtos import ChatMessage, LLMResult, ToolCall, ToolCallRecord, ToolSpec

if TYPE_CHECKING:  # the service runs the loop through its handle: a type only, no import cycle
    from stockdesk.llm_platform.application.llm_service import LLMService

logger = logging.getLogger(__name__)
FINAL_NUDGE = "No more tool calls are available in this turn: answer now with the final JSON only."


@dataclass(frozen=True)
class Tool:
    """A function a model may call: `run` gets the validated `arguments` model, returns JSON data."""

    name: str
    description: str
    arguments: type[BaseModel]
    run: Callable[[Any], Any]

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=parameters(self.arguments))


def parameters(model: type[BaseModel]) -> dict[str, Any]:
    """The arguments' JSON schema without pydantic's titles: shorter for a small model to read."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "title" or not isinstance(v, str)}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(model.model_json_schema())


@dataclass(frozen=True)
class ToolLimits:
    max_calls: int = 4
    max_tokens: int | None = 16_000
    max_result_chars: int = 4_000


class ToolOutcome(BaseModel):
    """One call the model asked for, and what it got back (`result` only when it ran)."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    status: str = Field(description="ok, cached (a repeat, answered from the turn), error, refused")
    result: Any = Field(default=None, exclude=True)
    result_chars: int = 0
    seconds: float = 0.0
    error: str | None = None


class ToolLoopResult(BaseModel):
    model_config = {"arbitrary_types_allowed": True}

    final: LLMResult
    calls: list[ToolOutcome] = Field(default_factory=list)
    tokens: int = 0
    steps: int = 0


def run_tool_loop(
    llm: LLMService,
    messages: Sequence[ChatMessage],
    tools: Sequence[Tool],
    *,
    response_model: type[BaseModel],
    limits: ToolLimits = ToolLimits(),
    caller: str | None = None,
    answer_hint: str | None = None,
    **chat_options: Any,
) -> ToolLoopResult:
    """Run the turn to its final structured answer (see the module docstring for the bounds).

    `answer_hint` (how to answer, e.g. the JSON format) follows every batch of tool results: a
    small model asked for its answer format up front tends to skip the tools and answer at once.
    """
    by_name = {t.name: t for t in tools}
    specs = [t.spec() for t in tools]
    transcript = list(messages)
    outcomes: list[ToolOutcome] = []
    seen: dict[str, ToolOutcome] = {}
    tokens = steps = 0

    def may_call() -> bool:
        return len(outcomes) < limits.max_calls and (limits.max_tokens is None or tokens < limits.max_tokens)

    while True:
        offer = specs if may_call() else []
        result = llm.chat(
            transcript, tools=offer, response_model=response_model, caller=caller, **chat_options
        )
        steps += 1
        tokens += result.usage.total_tokens
        if not result.tool_calls:
            return ToolLoopResult(final=result, calls=outcomes, tokens=tokens, steps=steps)
        transcript.append(ChatMessage(role="assistant", content=result.text, tool_calls=result.tool_calls))
        answered = []
        for call in result.tool_calls:
            if len(outcomes) >= limits.max_calls:
                outcome = _refused(call, limits.max_calls)
            else:
                outcome = _answer(call, by_name, seen)
            outcomes.append(outcome)
            answered.append(outcome)
            transcript.append(
                ChatMessage(
                    role="tool",
                    tool_call_id=call.id,
                    name=call.name or None,
                    content=_content(outcome, limits.max_result_chars),
                )
            )
        if result.call_id:
            llm.record_tool_calls([_record(result.call_id, o) for o in answered])
        after = [answer_hint] if answer_hint else []
        if not may_call():
            after.insert(0, FINAL_NUDGE)
        if after:
            transcript.append(ChatMessage(role="user", content="\n\n".join(after)))


def _answer(call: ToolCall, tools: dict[str, Tool], seen: dict[str, ToolOutcome]) -> ToolOutcome:
    base = {"id": call.id, "name": call.name, "arguments": call.arguments}
    if call.error:
        return ToolOutcome(**base, status="error", error=call.error)
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools))
        return ToolOutcome(
            **base, status="error", error=f"unknown tool {call.name!r}; the tools are: {known}"
        )
    try:
        arguments = tool.arguments.model_validate(call.arguments)
    except ValidationError as exc:
        return ToolOutcome(**base, status="error", error=f"bad arguments for {call.name}: {_errors(exc)}")
    key = json.dumps([call.name, arguments.model_dump(mode="json")], sort_keys=True, ensure_ascii=False)
    if key in seen:
        earlier = seen[key]
        return earlier.model_copy(update={"id": call.id, "status": "cached", "seconds": 0.0})
    started = time.perf_counter()
    try:
        data = tool.run(arguments)
    except Exception as exc:  # a failing tool is the model's information, not the turn's crash
        logger.warning("tool %s failed on %s: %s", call.name, call.arguments, exc)
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        return ToolOutcome(**base, status="error", error=f"{call.name} failed: {message}")
    text = json.dumps(data, ensure_ascii=False, default=str)
    outcome = ToolOutcome(
        **base,
        status="ok",
        result=data,
        result_chars=len(text),
        seconds=round(time.perf_counter() - started, 3),
    )
    seen[key] = outcome
    return outcome


def _refused(call: ToolCall, limit: int) -> ToolOutcome:
    return ToolOutcome(
        id=call.id,
        name=call.name,
        arguments=call.arguments,
        status="refused",
        error=f"the limit of {limit} tool calls per turn is reached; this call was not run",
    )


def _errors(exc: ValidationError) -> str:
    parts = [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()]
    return "; ".join(parts)[:500]


def _content(outcome: ToolOutcome, max_chars: int) -> str:
    if outcome.error:
        return json.dumps({"error": outcome.error}, ensure_ascii=False)
    text = json.dumps(outcome.result, ensure_ascii=False, default=str)
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"…(truncated: {len(text) - max_chars} more characters)"


def _record(call_id: str, outcome: ToolOutcome) -> ToolCallRecord:
    return ToolCallRecord(
        call_id=call_id,
        tool_call_id=outcome.id,
        name=outcome.name or "?",
        arguments=outcome.arguments,
        status=outcome.status,  # type: ignore[arg-type]
        result_chars=outcome.result_chars,
        seconds=outcome.seconds,
        error=outcome.error,
    )
