"""A prompt's turns, read off its chat markup: the tokenizer's special tokens and the roles a
render probe of the chat template shows after them.

A prompt logged as text or as token ids (decoded) carries its conversation only as markup.
Markers are the tokenizer's own special tokens where it has them (Mistral's ``[INST]`` and
``[TOOL_RESULTS]``, Llama 3's headers), plus the shapes ``blocks.CHAT_MARKER`` knows for a
prompt read without its tokenizer. A marker's role comes, in this order, from the probe
(a short conversation of sentinel texts rendered once through the chat template: the role of
the last sentinel between the marker and the next one, where every occurrence agrees), from
a role word in the marker itself (``<|start_header_id|>user<|end_header_id|>``), or from the
first line after it (ChatML's ``<|im_start|>user``). No layout is named here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from advisor.diagnose.blocks import CHAT_MARKER

# What a special token of any tokenizer looks like in text: a known chat marker, a
# bracketed control word (``[INST]``, ``[/TOOL_RESULTS]``) or an angle-bracketed one (``</s>``,
# ``<start_of_turn>``); only those the tokenizer holds as special are markers.
_CANDIDATE = re.compile(CHAT_MARKER.pattern + r"|\[/?[A-Za-z][A-Za-z0-9_]{0,40}\]|</?[A-Za-z][A-Za-z0-9_]{0,40}>")
# A role a chat layout names: in its markup (Llama 3's header, Command R's "<|USER_TOKEN|>"),
# as the text between two markers (harmony's "<|start|>user<|message|>"), or as the first line
# of a turn (ChatML's "<|im_start|>user\n", Gemma's "<start_of_turn>model\n").
_ROLE_WORD = r"(system|developer|user|assistant|model|chatbot|tool|ipython)"
_ROLE_IN_MARK = re.compile(rf"(?i)(?<![a-z]){_ROLE_WORD}(?![a-z])")
_ROLE_LINE = re.compile(rf"{_ROLE_WORD}(\n|$)")
# A raw prompt's turns in plain text: a line that is a role's name and nothing else, as a
# markdown heading, in bold or with a colon ("### User", "**Assistant**", "Human:"), where the
# tokenizer knows no chat markup.
_ROLE_HEADING = re.compile(r"(?im)^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*)?(system|user|assistant|human|ai|model)(?:\*\*)?"
                           r"[ \t]*:?[ \t]*(?:\*\*)?[ \t]*$\n?")
# The layouts' names for the assistant and for a tool's result.
_ROLES = {"model": "assistant", "chatbot": "assistant", "ipython": "tool", "human": "user", "ai": "assistant"}
# Roles that hold a prompt's instructions: what the placement variants move out of.
SYSTEM_ROLES = ("system", "developer")
# The role of a turn holding the tool definitions, where a layout prints them in one of their own.
TOOLS_ROLE = "tools"
# A prompt's turns are memoized per text (and markup): as many as the canonical form keeps.
MEMO_TEXTS = 1 << 16


@dataclass(frozen=True, eq=False)
class Markup:
    """The markers of one tokenizer and chat template (compared by identity: one per run)."""

    specials: frozenset[str] = frozenset()
    roles: dict[str, str] = field(default_factory=dict)  # a marker's role, from the probe
    # Whether the template prints the system prompt after the first user turn's text, or
    # not at all (Mistral's joins it into the last user turn): ``opening`` then has a fix.
    system_late: bool = False
    # Whether the template renders the ``date_string`` kwarg, and the request's clock
    # (``strftime_now``): values no rewrite of the messages moves (``pins``).
    reads_date: bool = False
    reads_clock: bool = False
    # Whether the template prints an assistant turn's reasoning while the turn is part of the
    # newest exchange (an agent's loop) and drops it once a later user turn arrives (Qwen 3,
    # DeepSeek R1): the turn then renders otherwise than it was first sent.
    drops_reasoning: bool = False

    def marks(self, prompt: str) -> list[re.Match[str]]:
        return [m for m in _CANDIDATE.finditer(prompt) if m.group(0) in self.specials or CHAT_MARKER.fullmatch(m.group(0))]


PLAIN = Markup()

# The probe's sentinels: words no template prints, one per role.
_SENTINELS = {"zqsystemprobe": "system", "zquserprobe": "user", "zqassistantprobe": "assistant",
              "zqlaterprobe": "user", "zqtoolsprobe": TOOLS_ROLE, "zqcallprobe": "assistant", "zqresultprobe": "tool"}
_CALL_ID = "zq0call01"  # (nine characters: some templates check a call id's length)


def _probes() -> list[tuple[list[dict[str, Any]], list[Any] | None]]:
    chat: list[dict[str, Any]] = [{"role": "system", "content": "zqsystemprobe"}, {"role": "user", "content": "zquserprobe"},
            {"role": "assistant", "content": "zqassistantprobe"}, {"role": "user", "content": "zqlaterprobe"}]
    tool = {"type": "function", "function": {"name": "zq_lookup", "description": "zqtoolsprobe",
                                             "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}
    call = {"id": _CALL_ID, "type": "function", "function": {"name": "zq_lookup", "arguments": '{"q": "zqcallprobe"}'}}
    tools: list[dict[str, Any]] = [{"role": "user", "content": "zquserprobe"}, {"role": "assistant", "content": None, "tool_calls": [call]},
             {"role": "tool", "tool_call_id": _CALL_ID, "content": "zqresultprobe"},
             {"role": "assistant", "content": "zqassistantprobe"}, {"role": "user", "content": "zqlaterprobe"}]
    return [(chat, None), (tools, [tool])]


def probe_roles(text: str, markup: Markup) -> dict[str, str]:
    """Each marker's role in a rendered probe: the role of the last sentinel between it and
    the next marker, kept only where every occurrence of the marker with a sentinel agrees
    and no role line stands between (a line naming the role is read from the prompt itself)."""
    seen: dict[str, set[str]] = {}
    marks = markup.marks(text)
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        segment = text[mark.end():end]
        found = [(segment.find(word), role) for word, role in _SENTINELS.items() if word in segment]
        if not found or _ROLE_LINE.match(segment.lstrip()):
            continue
        seen.setdefault(mark.group(0), set()).add(max(found)[1])
    return {mark: roles.pop() for mark, roles in seen.items() if len(roles) == 1}


def markup_of(renderer: Any) -> Markup:
    """The markup of ``renderer``'s tokenizer and chat template (``ingest.pipeline.Renderer``)."""
    specials = frozenset(getattr(renderer.tokenizer, "special_tokens", None) or ())
    bare = Markup(specials)
    roles: dict[str, str] = {}
    late = False
    for messages, tools in _probes():
        try:
            text = renderer.chat.render(messages, tools)
        except Exception:  # noqa: BLE001 (a template may refuse a probe: its roles stay unknown)
            continue
        if messages[0]["role"] == "system":
            at = text.find("zqsystemprobe")
            late = at < 0 or at > text.find("zquserprobe")
        for mark, role in probe_roles(text, bare).items():
            if roles.setdefault(mark, role) != role:
                roles[mark] = ""  # (two probes disagree: no role of its own)
    return Markup(specials, {mark: role for mark, role in roles.items() if role}, late, *_reads(renderer),
                  drops_reasoning=_drops_reasoning(renderer))


# A reasoning text no template prints by itself, and where the probe carries it.
_THOUGHT = "zqthoughtprobe"
REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")  # (advisor.ingest.chat_template's)


def _drops_reasoning(renderer: Any) -> bool:
    """Whether a tool call's reasoning is printed in its loop and dropped once a later user
    turn follows: the tool probe rendered up to the call's result, then whole."""
    messages = [dict(m, reasoning_content=_THOUGHT) if m.get("tool_calls") else m for m in _probes()[1][0]]
    tools = _probes()[1][1]
    try:
        loop = str(renderer.chat.render(messages[:3], tools))
        later = str(renderer.chat.render(messages, tools))
    except Exception:  # noqa: BLE001 (a template that refuses the probe: nothing known to drop)
        return False
    return _THOUGHT in loop and _THOUGHT not in later


def _reads(renderer: Any) -> tuple[bool, bool]:
    """Whether the chat template renders the ``date_string`` kwarg, and the clock: two renders
    of the chat probe that differ only in the one differ."""
    messages = _probes()[0][0]

    def render(timestamp: float | None, options: dict[str, Any] | None) -> str | None:
        try:
            return str(renderer.chat.render(messages, None, timestamp, options))
        except Exception:  # noqa: BLE001 (a template that refuses the probe reads neither)
            return None

    dated = render(None, {"chat_template_kwargs": {"date_string": "zqdateprobe"}})
    early, late = render(0.0, None), render(2e9, None)
    return dated is not None and "zqdateprobe" in dated, early is not None and late is not None and early != late


@functools.lru_cache(maxsize=MEMO_TEXTS)
def prompt_turns(prompt: str, markup: Markup = PLAIN) -> tuple[tuple[int, int, str], ...] | None:
    """The turns of a prompt rendered in a chat layout, read off its markup: (start, end,
    role) of each turn's body. None for a prompt without such markup (one text). A turn
    starts where a marker's role (``Markup.roles``), the marker or the text names one, and its
    body is the last text between two markers before the next turn (harmony names a channel
    first), the markup and the role line around it left out."""
    marks = markup.marks(prompt)
    if len(marks) < 2:
        return _heading_turns(prompt)
    out: list[tuple[int, int, str]] = []
    role: str | None = None
    body: tuple[int, int] | None = None

    def close() -> None:
        if role is not None and body is not None:
            out.append((body[0], body[1], _ROLES.get(role.lower(), role.lower())))

    for k, mark in enumerate(marks):
        start, end = mark.end(), marks[k + 1].start() if k + 1 < len(marks) else len(prompt)
        segment = prompt[start:end]
        probed = markup.roles.get(mark.group(0))
        named = _ROLE_IN_MARK.search(mark.group(0)) if probed is None else None
        hit = named if named is not None or probed is not None else _ROLE_LINE.match(segment)
        if probed is not None or hit is not None:
            close()
            role, body = probed if probed is not None else hit.group(1), None  # type: ignore[union-attr]
            if probed is None and named is None:
                start += hit.end()  # type: ignore[union-attr] # (the role line is markup)
        if not prompt[start:end].strip():
            continue  # markup between turns ("\n" after ChatML's end of turn)
        if role is None:
            role = "system"  # text ahead of every role the layout names: its preamble (DeepSeek's)
        # (The layout's own break before the body, Llama 3's blank line, stays markup.)
        body = (start + len(prompt[start:end]) - len(prompt[start:end].lstrip("\n")), end)
    close()
    return tuple(out) or None


def _heading_turns(prompt: str) -> tuple[tuple[int, int, str], ...] | None:
    """The turns of a prompt that names its roles on lines of their own (``_ROLE_HEADING``),
    two roles at least: each body the text after its heading, up to the next one (the blank
    lines between them are layout); text ahead of the first heading is a preamble's."""
    heads = list(_ROLE_HEADING.finditer(prompt))
    if len(heads) < 2 or len({h.group(1).lower() for h in heads}) < 2:
        return None
    out: list[tuple[int, int, str]] = []
    spans = [(0, heads[0].start(), "system")] + [(h.end(), heads[k + 1].start() if k + 1 < len(heads) else len(prompt),
                                                  h.group(1).lower()) for k, h in enumerate(heads)]
    for start, end, role in spans:
        body = prompt[start:end]
        if not body.strip():
            continue
        lead = len(body) - len(body.lstrip("\n"))
        out.append((start + lead, start + len(body.rstrip()), _ROLES.get(role, role)))
    return tuple(out) or None


def prompt_messages(prompt: str, markup: Markup = PLAIN) -> list[dict[str, Any]] | None:
    """A prompt's turns as messages (each body a message's content); None without markup."""
    turns = prompt_turns(prompt, markup)
    return None if turns is None else [{"role": role, "content": prompt[a:b]} for a, b, role in turns]
