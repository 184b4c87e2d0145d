"""Read and validate a workload spec: one-line errors naming the file, line and key path.

``load_spec`` and ``load_example`` are the one validation `advisor spec check`, `spec
generate` and `plan` share: the file is read field by field (each field's type and declared
bounds, ``advisor.spec.model``), the command line's ``--requests``/``--seed`` are read as
fields too, and then the whole spec is checked (``validate``) for what no single field
shows but generation or the plan would fail on: the longest request against the largest
context window, all requests' tokens against what the machine holds, arrival times that
stay dates, every clock line within its section's tokens, the tokenizer, model, GPU and TP,
and the first requests generated (in the described order and the recipe's) and checked as
``generate`` checks them. What `spec check` accepts, the other two accept and finish on;
what they refuse, it refuses. `plan`'s ``--rate`` and ``--output-len`` stand in for fields
after this (``advisor.spec.plan.with_serving``), and `spec check` takes them too.
"""

from __future__ import annotations

import importlib.resources
import math
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yaml.nodes import MappingNode, Node, SequenceNode

from advisor.errors import AdvisorError
from advisor.ingest import safe_open, safe_yaml
from advisor.spec.model import (
    MAX_CONTEXT_TOKENS,
    MAX_NAME_BYTES,
    MAX_PAGE_SIZE,
    MAX_REQUESTS,
    MAX_SPAN_SECONDS,
    MAX_TENANTS,
    MAX_TOTAL_TOKENS,
    MAX_TP,
    MAX_VALUES,
    MIN_CLOCK_RESOLUTION,
    MIN_RATE,
    MIN_TOKENS,
    NORMAL_TRUNCATION_SD,
    Conversation,
    Engine,
    Length,
    Message,
    Section,
    Spec,
    Tenants,
    Vary,
)

if TYPE_CHECKING:
    from advisor.ingest.tokenizers import Tokenizer

EXAMPLES = ("rag", "agent", "support-chat", "multi-tenant", "single-shot", "scrambled")
# Roles whose content the built-in chat layout renders as text (a tool result is rendered
# as a JSON string, which would change its tokens).
ROLES = ("system", "developer", "user", "assistant")
SHARE_TOLERANCE = 1e-6
# The command-line options that stand in for a field of the spec file.
OVERRIDES = {"requests": "--requests", "seed": "--seed"}


class SpecError(AdvisorError):
    pass


def example_path(name: str) -> Path:
    if name not in EXAMPLES:
        raise AdvisorError(f"unknown example '{name}': use {', '.join(EXAMPLES)}")
    return Path(str(importlib.resources.files("advisor.spec").joinpath(f"examples/{name}.yaml")))


def load_example(name: str, requests: int | None = None, seed: int | None = None) -> Spec:
    return load_spec(example_path(name), label=f"example {name}", requests=requests, seed=seed)


def load_spec(path: Path, label: str | None = None, requests: int | None = None, seed: int | None = None) -> Spec:
    """The spec in ``path`` with the command line's ``requests``/``seed``, validated whole."""
    where = label or str(path)
    if not os.path.lexists(path):
        raise AdvisorError(f"{path}: spec file not found")
    raw = safe_open.read_bytes(path, max_bytes=safe_open.MAX_CONFIG_BYTES, what="spec")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AdvisorError(f"{path}: cannot read the spec ({exc})") from None
    reader, spec = _read(text, where, {"requests": requests, "seed": seed})
    validate(spec, reader)
    return spec


def parse_spec(text: str, where: str) -> Spec:
    """The spec's fields, each checked (type, declared bounds). The whole spec is checked by
    ``load_spec``, as the commands read it; this reader serves specs built in code and tests."""
    return _read(text, where, {})[1]


def _read(text: str, where: str, overrides: dict[str, int | None]) -> tuple[_Reader, Spec]:
    try:
        # One parse for the data and the lines; a key given twice is an error, not a silent winner.
        data, node = safe_yaml.load_with_nodes(text, unique_keys=True)
    except safe_yaml.YAMLError as exc:
        raise SpecError(f"{where}:{safe_yaml.error_line(exc)}: {safe_yaml.error_reason(exc)}") from None
    lines: dict[str, int] = {}
    if node is not None:
        _lines(node, "", lines)
    given = {key: value for key, value in overrides.items() if value is not None}
    if given and isinstance(data, dict):
        data = {**data, **given}  # read and bounded as the file's own fields are
    reader = _Reader(where, lines, {key: f"{OVERRIDES[key]} {value}" for key, value in given.items()})
    return reader, reader.spec(data)


def _lines(node: Node, path: str, out: dict[str, int]) -> None:
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, MappingNode):
        for key, value in node.value:
            sub = f"{path}.{key.value}" if path else str(key.value)
            out[sub] = key.start_mark.line + 1
            _lines(value, sub, out)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            _lines(item, f"{path}[{i}]", out)


class _Reader:
    def __init__(self, where: str, lines: dict[str, int], given: dict[str, str] | None = None) -> None:
        self.where = where
        self.lines = lines
        self.given = given or {}  # key path -> the option that gave it ("--requests 500")
        self.section_paths: dict[str, str] = {}  # section name -> its key path

    def fail(self, path: str, reason: str) -> SpecError:
        probe = path
        while probe and probe not in self.lines:
            probe = probe.rsplit(".", 1)[0] if "." in probe else probe.rsplit("[", 1)[0] if "[" in probe else ""
        line = self.lines.get(probe, 1)
        shown = f"{path} ({self.given[path]})" if path in self.given else path or "spec"
        return SpecError(f"{self.where}:{line}: {shown}: {reason}")

    def mapping(self, value: Any, path: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be a mapping with keys {', '.join(allowed)}")
        for key in value:
            if key not in allowed:
                raise self.fail(f"{path}.{key}" if path else str(key),
                                f"unknown key (allowed: {', '.join(allowed)})")
        for key in required:
            if key not in value:
                raise self.fail(path, f"missing required key '{key}'")
        return value

    def integer(self, value: Any, path: str, minimum: int = 1, maximum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be a whole number (got {_shown(value)})")
        if value < minimum:
            what = "negative" if value < 0 else "too small"
            raise self.fail(path, f"must be at least {minimum} (got {_shown(value)}: {what})")
        if maximum is not None and value > maximum:
            raise self.fail(path, f"must be at most {maximum:,} (got {_shown(value)})")
        return value

    def number(self, value: Any, path: str, positive: bool = True, minimum: float | None = None,
               maximum: float | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(path, f"must be a number (got {_shown(value)})")
        if value < 0 or (positive and value == 0):
            raise self.fail(path, f"must be {'positive' if positive else 'zero or more'} (got {_shown(value)})")
        if minimum is not None and value < minimum:
            raise self.fail(path, f"must be at least {minimum:g} (got {_shown(value)})")
        if maximum is not None and value > maximum:
            raise self.fail(path, f"must be at most {maximum:,.0f} (got {_shown(value)})")
        return float(value)

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, f"must be a non-empty string (got {_shown(value)})")
        return value

    def name(self, value: Any) -> str:
        """The spec's name: it names the plan's temporary files, so one plain file name."""
        name = self.string(value, "name")
        try:
            safe_open.check_name(name, "the spec's name")
        except AdvisorError as exc:
            raise self.fail("name", str(exc)) from None
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise self.fail("name", f"at most {MAX_NAME_BYTES} bytes of UTF-8 (got {len(name.encode('utf-8')):,})")
        return name

    def shares(self, value: Any, path: str, count: int | None) -> tuple[float, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(path, "must be a list of fractions that sum to one")
        out = tuple(self.number(v, f"{path}[{i}]", positive=False) for i, v in enumerate(value))
        if count is not None and len(out) != count:
            raise self.fail(path, f"has {len(out)} entries for {count}")
        total = sum(out)
        if abs(total - 1.0) > SHARE_TOLERANCE:
            raise self.fail(path, f"must sum to 1 (they sum to {total:g})")
        return out

    def length(self, value: Any, path: str, minimum: int = MIN_TOKENS) -> Length:
        """A token length or count; whatever its form, no draw is over ``MAX_CONTEXT_TOKENS``."""
        top = MAX_CONTEXT_TOKENS
        if isinstance(value, dict):
            if "mean" in value or "sd" in value:
                self.mapping(value, path, ("mean", "sd"), ("mean", "sd"))
                length = Length(mean=self.number(value["mean"], f"{path}.mean", maximum=top),
                                sd=self.number(value["sd"], f"{path}.sd", positive=False, maximum=top), minimum=minimum)
                if length.largest > top:
                    raise self.fail(path, f"draws up to {length.largest:,} (mean + {NORMAL_TRUNCATION_SD:g} sd), "
                                          f"more than {top:,}: the largest context window of the catalogued models")
                return length
            self.mapping(value, path, ("min", "max"), ("min", "max"))
            low = self.integer(value["min"], f"{path}.min", minimum, top)
            high = self.integer(value["max"], f"{path}.max", minimum, top)
            if high < low:
                raise self.fail(f"{path}.max", f"must not be below min ({high} < {low})")
            return Length(low=low, high=high, minimum=minimum)
        return Length(fixed=self.integer(value, path, minimum, top), minimum=minimum)

    def vary(self, value: Any, path: str, spec: dict) -> Vary:
        if isinstance(value, str):
            if value not in ("static", "tenant", "session", "request"):
                raise self.fail(path, f"unknown variability '{value}' (use static, tenant, session, request, "
                                      "or a mapping: variants, clock, retrieved)")
            if value == "tenant" and not spec.get("tenants"):
                raise self.fail(path, "'tenant' needs a tenants block")
            return Vary(kind=value)
        body = self.mapping(value, path, ("variants", "clock", "retrieved"))
        if len(body) != 1:
            raise self.fail(path, "give exactly one of variants, clock, retrieved")
        kind, inner = next(iter(body.items()))
        sub = f"{path}.{kind}"
        if kind == "variants":
            self.mapping(inner, sub, ("count", "weights"), ("count",))
            count = self.integer(inner["count"], f"{sub}.count", maximum=MAX_VALUES)
            weights = self.shares(inner["weights"], f"{sub}.weights", count) if "weights" in inner else None
            return Vary(kind="variants", count=count, weights=weights)
        if kind == "clock":
            self.mapping(inner, sub, ("resolution_seconds",), ("resolution_seconds",))
            return Vary(kind="clock", resolution=self.number(inner["resolution_seconds"], f"{sub}.resolution_seconds",
                                                             minimum=MIN_CLOCK_RESOLUTION, maximum=MAX_SPAN_SECONDS))
        self.mapping(inner, sub, ("documents", "k", "popularity"), ("documents", "k"))
        docs = self.integer(inner["documents"], f"{sub}.documents", maximum=MAX_VALUES)
        k = self.integer(inner["k"], f"{sub}.k", maximum=MAX_VALUES)
        if k > docs:
            raise self.fail(f"{sub}.k", f"{k} is larger than the corpus ({docs} documents)")
        zipf = None
        pop = inner.get("popularity", "uniform")
        if pop != "uniform":
            if not isinstance(pop, dict):
                raise self.fail(f"{sub}.popularity", f"must be 'uniform' or {{zipf: EXPONENT}} (got {pop!r})")
            self.mapping(pop, f"{sub}.popularity", ("zipf",), ("zipf",))
            # Exponents past 100 put all the weight on the first document (and 1/r**s underflows).
            zipf = self.number(pop["zipf"], f"{sub}.popularity.zipf", maximum=100)
        return Vary(kind="retrieved", count=docs, k=k, zipf=zipf)

    def message(self, value: Any, path: str, spec: dict, names: dict[str, str]) -> Message:
        m = self.mapping(value, path, ("role", "shuffle", "sections"), ("role", "sections"))
        role = m["role"]
        if role not in ROLES:
            raise self.fail(f"{path}.role", f"unknown role {role!r} (use {', '.join(ROLES)})")
        shuffle = m.get("shuffle", False)
        if not isinstance(shuffle, bool):
            raise self.fail(f"{path}.shuffle", f"must be true or false (got {shuffle!r})")
        raw = m["sections"]
        if not isinstance(raw, list) or not raw:
            raise self.fail(f"{path}.sections", "must be a non-empty list of sections")
        sections = []
        for i, item in enumerate(raw):
            sp = f"{path}.sections[{i}]"
            s = self.mapping(item, sp, ("name", "tokens", "vary"), ("name", "tokens"))
            name = self.string(s["name"], f"{sp}.name")
            if name in names:
                raise self.fail(f"{sp}.name", f"duplicate section name '{name}' (first at {names[name]})")
            names[name] = sp
            self.section_paths[name] = sp
            sections.append(Section(name=name, tokens=self.length(s["tokens"], f"{sp}.tokens"),
                                    vary=self.vary(s.get("vary", "static"), f"{sp}.vary", spec)))
        return Message(role=role, sections=tuple(sections), shuffle=shuffle)

    def spec(self, data: Any) -> Spec:
        top = ("name", "description", "requests", "seed", "tokenizer", "model", "gpu", "engine", "arrival",
               "tenants", "conversation", "output_tokens", "messages")
        d = self.mapping(data, "", top, ("name", "messages"))
        names: dict[str, str] = {}
        kwargs: dict[str, Any] = {"name": self.name(d["name"])}
        if "description" in d:
            if not isinstance(d["description"], str):
                raise self.fail("description", "must be a string")
            kwargs["description"] = d["description"]
        if "requests" in d:
            kwargs["requests"] = self.integer(d["requests"], "requests", maximum=MAX_REQUESTS)
        if "seed" in d:
            kwargs["seed"] = self.integer(d["seed"], "seed", minimum=0)
        for key in ("tokenizer", "model", "gpu"):
            if key in d:
                kwargs[key] = self.string(d[key], key)
        if "engine" in d:
            e = self.mapping(d["engine"], "engine", ("name", "page_size", "tp", "kv_dtype"))
            engine = Engine()
            if "name" in e and e["name"] not in ("sglang", "vllm"):
                raise self.fail("engine.name", f"unknown engine {e['name']!r} (use sglang or vllm)")
            if "kv_dtype" in e and e["kv_dtype"] not in ("bf16", "fp8"):
                raise self.fail("engine.kv_dtype", f"unknown KV dtype {e['kv_dtype']!r} (use bf16 or fp8)")
            kwargs["engine"] = Engine(name=e.get("name", engine.name),
                                      page_size=self.integer(e.get("page_size", 1), "engine.page_size",
                                                             maximum=MAX_PAGE_SIZE),
                                      tp=self.integer(e.get("tp", 1), "engine.tp", maximum=MAX_TP),
                                      kv_dtype=e.get("kv_dtype", engine.kv_dtype))
        if "arrival" in d:
            a = self.mapping(d["arrival"], "arrival", ("rate", "timestamps"))
            if "rate" in a:
                kwargs["rate"] = self.number(a["rate"], "arrival.rate", minimum=MIN_RATE)
            if "timestamps" in a:
                if not isinstance(a["timestamps"], bool):
                    raise self.fail("arrival.timestamps", f"must be true or false (got {a['timestamps']!r})")
                kwargs["timestamps"] = a["timestamps"]
        if d.get("tenants") is not None:
            t = self.mapping(d["tenants"], "tenants", ("count", "names", "shares"))
            count = self.integer(t["count"], "tenants.count", maximum=MAX_TENANTS) if "count" in t else None
            if "names" in t:
                raw = t["names"]
                if not isinstance(raw, list) or not raw:
                    raise self.fail("tenants.names", "must be a non-empty list of names")
                if len(raw) > MAX_TENANTS:
                    raise self.fail("tenants.names", f"at most {MAX_TENANTS:,} names (got {len(raw):,})")
                tnames = tuple(self.string(n, f"tenants.names[{i}]") for i, n in enumerate(raw))
                if len(set(tnames)) != len(tnames):
                    raise self.fail("tenants.names", "names must be distinct")
                if count is not None and count != len(tnames):
                    raise self.fail("tenants.count", f"is {count} but {len(tnames)} names are given")
            else:
                if count is None:
                    raise self.fail("tenants", "give count or names")
                tnames = tuple(f"tenant-{i + 1}" for i in range(count))
            shares = (self.shares(t["shares"], "tenants.shares", len(tnames)) if "shares" in t
                      else tuple(1.0 / len(tnames) for _ in tnames))
            kwargs["tenants"] = Tenants(tnames, shares)
        if "output_tokens" in d:
            kwargs["output_tokens"] = self.length(d["output_tokens"], "output_tokens", 1)
        raw_messages = d["messages"]
        if not isinstance(raw_messages, list) or not raw_messages:
            raise self.fail("messages", "must be a non-empty list of messages")
        kwargs["messages"] = tuple(self.message(m, f"messages[{i}]", d, names) for i, m in enumerate(raw_messages))
        if d.get("conversation") is not None:
            c = self.mapping(d["conversation"], "conversation", ("turns", "think_seconds", "append"), ("turns",))
            append = c.get("append", [])
            if not isinstance(append, list):
                raise self.fail("conversation.append", "must be a list of messages")
            kwargs["conversation"] = Conversation(
                turns=self.length(c["turns"], "conversation.turns", 1),
                think_seconds=self.number(c.get("think_seconds", 30), "conversation.think_seconds", positive=False,
                                          maximum=MAX_SPAN_SECONDS),
                append=tuple(self.message(m, f"conversation.append[{i}]", d, names) for i, m in enumerate(append)))
        return Spec(**kwargs)


def _shown(value: Any) -> str:
    """A value as an error shows it: one line, at most 60 characters."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**60 else f"a number of {len(str(abs(value)))} digits"
    return text if len(text) <= 60 else text[:57] + "..."


# --- the whole spec ---------------------------------------------------------------------------


def validate(spec: Spec, reader: _Reader) -> None:
    """What no single field shows: the checks `plan` and `spec generate` would otherwise fail
    on, made before anything is generated (errors name the file, line and key)."""
    _check_sizes(spec, reader)
    tok = _check_serving(spec, reader)
    _check_times(spec, reader, tok)
    # The first requests generated and checked as `generate` checks them (a tokenizer that
    # merges across section boundaries, a length the corpus cannot fill), in the described
    # order and, where it differs, the recipe's, whose traffic `plan` generates too. The
    # same requests open the whole run: the first turns in time do not depend on how many
    # follow.
    from advisor.spec.generate import CHECKED_RECORDS, generate
    from advisor.spec.recipe import changes, recipe

    reordered = recipe(spec)  # (ranked over all the requests: the order depends on how many)
    try:
        for planned in (spec, reordered) if changes(spec, reordered) else (spec,):
            generate(replace(planned, requests=min(spec.requests, CHECKED_RECORDS)), tok)
    except AdvisorError as exc:
        raise reader.fail("tokenizer", str(exc)) from None


def _check_sizes(spec: Spec, reader: _Reader) -> None:
    longest = spec.longest_request()
    if longest > MAX_CONTEXT_TOKENS:
        where = "conversation" if spec.conversation is not None else "messages"
        raise reader.fail(where, f"a request can hold {longest:,} tokens (its sections at their longest, every "
                                 f"earlier turn and the output), more than {MAX_CONTEXT_TOKENS:,}: the largest "
                                 "context window of the catalogued models")
    total = spec.requests * longest
    if total > MAX_TOTAL_TOKENS:
        most = MAX_TOTAL_TOKENS // longest
        raise reader.fail("requests", f"{spec.requests:,} requests of up to {longest:,} tokens make up to {total:,} "
                                      f"tokens, more than the {MAX_TOTAL_TOKENS:,} a plan holds in memory: use at "
                                      f"most {most:,} requests or shorter sections")


def _check_serving(spec: Spec, reader: _Reader) -> Tokenizer:
    """The tokenizer (and its chat rendering), the model, GPU and TP, resolved as `plan` does;
    returns the tokenizer."""
    from advisor.cost import engine_timings, estimate_cost, not_fitting_message, resolve_gpu, resolve_model
    from advisor.ingest.source import make_renderer

    try:
        tok = make_renderer(spec.tokenizer, None, None, []).tokenizer
    except AdvisorError as exc:
        raise reader.fail("tokenizer", str(exc)) from None
    try:
        model = resolve_model(spec.model)
    except AdvisorError as exc:
        raise reader.fail("model", str(exc)) from None
    try:
        gpu = resolve_gpu(spec.gpu)
    except AdvisorError as exc:
        raise reader.fail("gpu", str(exc)) from None
    e = spec.engine
    try:
        engine_timings(model, gpu, tp=e.tp, kv_dtype=e.kv_dtype)
        for engine in ("sglang", "vllm"):
            cost = estimate_cost(model, gpu, tp=e.tp, kv_dtype=e.kv_dtype, engine=engine)
            if engine == "sglang" and not cost.weights_fit:
                raise AdvisorError(not_fitting_message(cost))
    except AdvisorError as exc:
        # The TP is what to change; when the file leaves it at its default, the model is what it names.
        raise reader.fail("engine.tp" if "engine.tp" in reader.lines else "model", str(exc)) from None
    return tok


def _check_times(spec: Spec, reader: _Reader, tok: Tokenizer) -> None:
    """Arrival times that stay dates, and every clock line of the run within its section."""
    from advisor.spec.generate import arrival_times, clock_misfit

    times = arrival_times(spec)
    span = times[-1] if times else 0.0
    if span > MAX_SPAN_SECONDS:
        years = MAX_SPAN_SECONDS / (365.25 * 86_400)
        raise reader.fail("arrival.rate", f"{spec.rate:g} requests/s spreads {spec.requests:,} requests over "
                                          f"{span / (365.25 * 86_400):,.0f} years, more than {years:,.0f}: "
                                          "raise the rate or lower the requests")
    misfit = clock_misfit(spec, tok, times)
    if misfit is not None:
        section, problem = misfit
        raise reader.fail(f"{reader.section_paths.get(section.name, 'messages')}.tokens", problem)
