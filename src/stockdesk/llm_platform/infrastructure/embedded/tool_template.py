"""Function calling for the embedded Qwen2.5 model, in its own chat template's format.

The local server applies the plain ChatML template, so the tool parts of Qwen2.5's template are
written here: the tool signatures go into the system turn inside `<tools></tools>`, earlier calls
into assistant turns as `<tool_call>{"name": ..., "arguments": ...}</tool_call>`, and results into
a user turn as `<tool_response>...</tool_response>` (consecutive results share one turn). The
answer is read back the same way. A call that cannot be read still comes back as a call, with
`error` set, so that the model is told what was wrong instead of the turn failing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest, ToolCall, ToolSpec

DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
TOOLS_HEADER = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
TOOLS_FOOTER = (
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, '
    '"arguments": <args-json-object>}\n</tool_call>'
)
_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


def uses_tools(request: CompletionRequest) -> bool:
    return bool(request.tools) or any(m.role == "tool" or m.tool_calls for m in request.messages)


def tools_block(tools: Sequence[ToolSpec]) -> str:
    lines = [json.dumps({"type": "function", "function": t.model_dump()}, ensure_ascii=False) for t in tools]
    return TOOLS_HEADER + "".join("\n" + line for line in lines) + TOOLS_FOOTER


def call_text(call: ToolCall) -> str:
    arguments = json.dumps(call.arguments, ensure_ascii=False)
    return f'<tool_call>\n{{"name": "{call.name}", "arguments": {arguments}}}\n</tool_call>'


def render_request(request: CompletionRequest) -> CompletionRequest:
    """The same request in plain system/user/assistant turns, tools written as the template does."""
    messages: list[ChatMessage] = []
    for message in request.messages:
        if message.role == "tool":
            block = f"<tool_response>\n{message.content}\n</tool_response>"
            previous = messages[-1] if messages else None
            if previous is not None and previous.role == "user" and previous.name == "tool":
                messages[-1] = previous.model_copy(update={"content": f"{previous.content}\n{block}"})
            else:  # `name` marks a turn of results so that the next result joins it
                messages.append(ChatMessage(role="user", content=block, name="tool"))
        elif message.tool_calls:
            parts = [message.content] if message.content else []
            parts += [call_text(c) for c in message.tool_calls]
            messages.append(ChatMessage(role="assistant", content="\n".join(parts)))
        else:
            messages.append(ChatMessage(role=message.role, content=message.content))
    if request.tools:
        if messages and messages[0].role == "system":
            system = messages[0].content + tools_block(request.tools)
            messages[0] = ChatMessage(role="system", content=system)
        else:
            messages.insert(
                0, ChatMessage(role="system", content=DEFAULT_SYSTEM + tools_block(request.tools))
            )
    plain = [ChatMessage(role=m.role, content=m.content) for m in messages]
    return request.model_copy(update={"messages": plain, "tools": []})


def _call_id(text: str, index: int) -> str:
    """Stable ids (the same answer gives the same ids), so that cached conversations replay."""
    return f"call_{hashlib.sha1(text.encode('utf-8')).hexdigest()[:10]}_{index}"


def _read_call(body: str, call_id: str) -> ToolCall:
    body = _FENCE.sub("", body.strip())
    try:
        data: Any = json.loads(body)
    except ValueError as exc:
        return ToolCall(id=call_id, name="", error=f"the tool call is not valid JSON ({exc}): {body[:200]}")
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
        return ToolCall(id=call_id, name="", error=f'a tool call needs {{"name", "arguments"}}: {body[:200]}')
    arguments = data.get("arguments", {})
    if isinstance(arguments, str):  # some answers quote the arguments object
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments) if arguments.strip() else {}
    if not isinstance(arguments, dict):
        return ToolCall(id=call_id, name=data["name"], error=f"arguments must be a JSON object: {body[:200]}")
    return ToolCall(id=call_id, name=data["name"], arguments=arguments)


def parse_answer(text: str, offered: Sequence[str]) -> tuple[str, list[ToolCall]]:
    """(text outside the calls, calls) of a model answer to a request that offered `offered`.

    Besides the tagged form, a bare `{"name": <offered tool>, "arguments": {...}}` answer is a
    call: small models often drop the tags. Anything else is the final answer, left as text.
    """
    bodies = _CALL.findall(text)
    if bodies:
        calls = [_read_call(body, _call_id(text, i)) for i, body in enumerate(bodies)]
        return _CALL.sub("", text).strip(), calls
    bare = _FENCE.sub("", text.strip())
    try:
        data = json.loads(bare)
    except ValueError:
        return text, []
    if isinstance(data, dict) and set(data) == {"name", "arguments"} and data["name"] in offered:
        return "", [_read_call(bare, _call_id(text, 0))]
    return text, []
