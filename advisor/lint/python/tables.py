"""What the Python analysis knows about libraries, as data: sources, sinks, constructors.

Every name here is a *qualified* name (``datetime.datetime.now``), the dotted path a call
resolves to through the module's imports (``from datetime import datetime`` then
``datetime.now()``). Client calls are matched on the attribute chain they end with
(``client.chat.completions.create``), since the client object usually comes from elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# --- sources -------------------------------------------------------------------------------------

# Calls that read the clock: qualified name -> "clock" or "date" (changes once a day).
CLOCK_CALLS = {
    "datetime.datetime.now": "clock",
    "datetime.datetime.utcnow": "clock",
    "datetime.datetime.today": "clock",
    "datetime.date.today": "date",
    "time.time": "clock",
    "time.time_ns": "clock",
    "arrow.now": "clock",
    "arrow.utcnow": "clock",
    "pendulum.now": "clock",
    "pendulum.today": "date",
    "pandas.Timestamp.now": "clock",
    "pandas.Timestamp.today": "date",
}
# Calls that read the clock only when given no time of their own (``time.ctime(ts)`` does not).
CLOCK_WITHOUT_ARGUMENTS = frozenset({"time.localtime", "time.gmtime", "time.ctime", "time.asctime"})
# ``time.strftime(fmt)`` formats the current time; ``time.strftime(fmt, t)`` formats ``t``.
STRFTIME = "time.strftime"
# Methods of a clock value that keep only the date.
DATE_METHODS = frozenset({"date", "toordinal", "weekday", "isoweekday"})
DATE_ATTRIBUTES = frozenset({"year", "month", "day"})

# Modules whose every function is random, and single random calls.
RANDOM_MODULES = ("random", "secrets", "numpy.random")
RANDOM_CALLS = frozenset({"os.urandom", "uuid.uuid1", "uuid.uuid4"})
# Functions of those modules that are not random values themselves.
NOT_RANDOM = frozenset({"random.seed", "random.getstate", "random.setstate", "numpy.random.seed"})
RNG_CLASSES = frozenset({"random.Random", "numpy.random.default_rng", "numpy.random.RandomState"})
SYSTEM_RNG = frozenset({"random.SystemRandom"})

# Per-request objects that web frameworks provide as module globals.
REQUEST_GLOBALS = frozenset({"flask.request", "quart.request"})
# Methods of a request object that return its JSON body (a mapping in the client's key order).
JSON_BODY_METHODS = frozenset({"json", "get_json"})

# The SDKs' "not given" sentinels: an argument passed as one of them is left out of the
# request (``tools=TOOLS if agent else NOT_GIVEN`` sends all tools or none).
NOT_GIVEN = frozenset({
    f"{sdk}.{name}" for sdk in ("openai", "anthropic", "openai._types", "anthropic._types")
    for name in ("NOT_GIVEN", "omit")
})
NOT_GIVEN_CLASSES = frozenset({
    f"{sdk}.{name}" for sdk in ("openai", "anthropic", "openai._types", "anthropic._types") for name in ("NotGiven", "Omit")
})

# Field declarations of dataclasses, pydantic, attrs and msgspec: the default, or a factory
# called once per object (``field(default_factory=uuid4)``), by keyword.
FIELD_FUNCTIONS = frozenset({
    "dataclasses.field", "pydantic.Field", "pydantic.fields.Field", "sqlmodel.Field", "attr.ib", "attr.attrib",
    "attr.field", "attrs.field", "msgspec.field",
})
FACTORY_KEYWORDS = ("default_factory", "factory")
# ``attrs.Factory(f)``: a default made by calling ``f`` for each object.
FACTORIES = frozenset({"attr.Factory", "attrs.Factory"})

# --- serialization and order ------------------------------------------------------------------

JSON_DUMPS = frozenset({"json.dumps", "simplejson.dumps", "ujson.dumps"})
JSON_LOADS = frozenset({"json.loads", "simplejson.loads", "ujson.loads", "orjson.loads"})
# Builtins that keep the order of what they are given.
ORDER_KEEPING = frozenset({"builtins.list", "builtins.tuple", "builtins.reversed", "builtins.enumerate", "builtins.iter"})
SET_TYPES = frozenset({"builtins.set", "builtins.frozenset"})
# Annotations that say a parameter is a mapping (its key order is the caller's) or a set.
MAPPING_ANNOTATIONS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"})
SET_ANNOTATIONS = frozenset({"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"})

# String methods that keep the text (approximately: the parts are kept, not transformed).
TEXT_METHODS = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "title", "capitalize", "casefold",
                          "removeprefix", "removesuffix", "expandtabs", "replace", "zfill", "center", "ljust", "rjust"})
TEXT_FUNCTIONS = frozenset({"textwrap.dedent", "textwrap.indent", "inspect.cleandoc", "textwrap.fill", "html.escape"})

# --- prompts -------------------------------------------------------------------------------------

# A name that holds a system prompt: system, SYSTEM_PROMPT, DEFAULT_SYSTEM_PROMPT, sys_msg,
# system_message, agent_instructions, preamble (not file_system, system_info).
SYSTEM_NAME = re.compile(
    r"^(system|sys)$|(^|_)(system|sys)_?(prompt|message|msg|instructions?|text|content|template)s?($|_)"
    r"|(^|_)instructions?$|(^|_)preamble$",
    re.IGNORECASE,
)
# A function whose return value is a prompt string (system prompts: SYSTEM_NAME) or a message list.
PROMPT_FUNCTION = re.compile(r"prompt|instruction|preamble", re.IGNORECASE)
MESSAGES_FUNCTION = re.compile(r"messages|conversation", re.IGNORECASE)
# Roles whose message opens the prompt (the application's instructions).
SYSTEM_ROLES = frozenset({"system", "developer"})

# Parameters that are the application's, not the request's: clients, settings and, as for
# templates, the tool list and the system prompt (stable unless a caller proves otherwise).
# The template defaults (`tools`, `functions`, ... in lint.model.DEFAULT_STATIC_VARIABLES) come
# with the configured `static-variables`, so `dynamic-variables` can take them back.
STEADY_PARAMETERS = frozenset({
    "self", "cls", "client", "async_client", "llm", "engine", "router", "model", "model_name", "model_id",
    "temperature", "max_tokens", "top_p", "settings", "config", "cfg", "conf", "options", "logger", "log",
    "session", "db", "tokenizer", "env", "environment", "jinja_env", "template", "templates", "loader",
    "sampling_params", "provider", "api_key", "base_url", "timeout", "stream", "app",
    "tool_definitions", "tool_specs", "tool_list", "persona",
})

# --- sinks ---------------------------------------------------------------------------------------

MESSAGES, SYSTEM, TOOLS, INPUT, PROMPT, PROMPTS, CONVERSATIONS = (
    "messages", "system", "tools", "input", "prompt", "prompts", "conversations"
)
_CHAT = {"messages": MESSAGES, "tools": TOOLS, "functions": TOOLS}
_RESPONSES = {"instructions": SYSTEM, "input": INPUT, "tools": TOOLS}
_ANTHROPIC = {"system": SYSTEM, "messages": MESSAGES, "tools": TOOLS}


@dataclass(frozen=True)
class Sink:
    """A call that sends a prompt: which arguments are which part of it."""

    api: str  # openai | anthropic | litellm | vllm | sglang
    suffix: tuple[str, ...]  # the attribute chain (qualified) the call ends with
    keywords: dict[str, str] = field(default_factory=dict)  # argument name -> part
    positional: tuple[str, ...] = ()  # parts of the positional arguments ("" = not a prompt part)
    # Client kinds the receiver must be (``llm.generate`` is vLLM's only on an ``LLM``);
    # empty: any receiver. ``names`` are receiver variable names accepted without a type.
    receivers: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()


SINKS = tuple(sorted((
    Sink("openai", ("chat", "completions", "create"), _CHAT),
    Sink("openai", ("chat", "completions", "parse"), _CHAT),
    Sink("openai", ("chat", "completions", "stream"), _CHAT),
    Sink("openai", ("responses", "create"), _RESPONSES),
    Sink("openai", ("responses", "parse"), _RESPONSES),
    Sink("openai", ("responses", "stream"), _RESPONSES),
    Sink("openai", ("completions", "create"), {"prompt": PROMPTS}),
    Sink("anthropic", ("messages", "create"), _ANTHROPIC),
    Sink("anthropic", ("messages", "stream"), _ANTHROPIC),
    Sink("litellm", ("litellm", "completion"), _CHAT, ("", MESSAGES)),
    Sink("litellm", ("litellm", "acompletion"), _CHAT, ("", MESSAGES)),
    Sink("litellm", ("litellm", "text_completion"), {"prompt": PROMPTS}, ("", PROMPTS)),
    Sink("litellm", ("completion",), _CHAT, ("", MESSAGES), frozenset({"litellm"})),
    Sink("litellm", ("acompletion",), _CHAT, ("", MESSAGES), frozenset({"litellm"})),
    Sink("vllm", ("generate",), {"prompts": PROMPTS}, (PROMPTS,), frozenset({"vllm"}), frozenset({"llm"})),
    Sink("vllm", ("chat",), {"messages": CONVERSATIONS, "tools": TOOLS}, (CONVERSATIONS,), frozenset({"vllm"}), frozenset({"llm"})),
    Sink("sglang", ("generate",), {"prompt": PROMPTS}, (PROMPTS,), frozenset({"sglang"})),
    Sink("sglang", ("async_generate",), {"prompt": PROMPTS}, (PROMPTS,), frozenset({"sglang"})),
), key=lambda s: -len(s.suffix)))

# Constructors of client objects: qualified name -> client kind.
CLIENTS = {
    "openai.OpenAI": "openai", "openai.AsyncOpenAI": "openai", "openai.AzureOpenAI": "openai",
    "openai.AsyncAzureOpenAI": "openai",
    "anthropic.Anthropic": "anthropic", "anthropic.AsyncAnthropic": "anthropic",
    "anthropic.AnthropicBedrock": "anthropic", "anthropic.AsyncAnthropicBedrock": "anthropic",
    "anthropic.AnthropicVertex": "anthropic", "anthropic.AsyncAnthropicVertex": "anthropic",
    "litellm.Router": "litellm",
    "vllm.LLM": "vllm", "vllm.entrypoints.llm.LLM": "vllm",
    "sglang.Engine": "sglang", "sglang.Runtime": "sglang",
}

# SGLang's frontend language: ``s += sgl.system(...)`` inside an ``@sgl.function``.
SGL_ROLES = {"sglang.system": "system", "sglang.user": "user", "sglang.assistant": "assistant"}
SGL_FUNCTION = frozenset({"sglang.function", "sglang.lang.api.function"})
SGL_GEN = frozenset({"sglang.gen", "sglang.select", "sglang.lang.api.gen"})

# Jinja: templates built from a string or loaded by name, rendered with values.
JINJA_TEMPLATES = frozenset({"jinja2.Template", "jinja2.environment.Template"})
JINJA_ENVIRONMENTS = frozenset({
    "jinja2.Environment", "jinja2.environment.Environment", "jinja2.sandbox.SandboxedEnvironment",
    "jinja2.sandbox.ImmutableSandboxedEnvironment",
})
STRING_TEMPLATE = "string.Template"

# Sinks by the last name of their chain (the call's method name), longest suffix first.
SINKS_BY_NAME: dict[str, tuple[Sink, ...]] = {}
for _sink in SINKS:
    SINKS_BY_NAME[_sink.suffix[-1]] = SINKS_BY_NAME.get(_sink.suffix[-1], ()) + (_sink,)
