"""What the traffic costs: self-hosted GPU time in dollars with and without caching, and the
bill on each hosted API split into cache re-reads, new input, cache writes and output
(``facts["money"]``, ``advisor.advise.money``); no section without traffic."""

from __future__ import annotations

from typing import Any

from advisor.report.sections.format import Block, pct
from advisor.report.table import Table, columns

TITLE = "What it costs"


def usd(value: float) -> str:
    """Dollars with the precision the amount needs: cents of small bills are their figure."""
    if value == 0:
        return "$0"
    if value >= 100:
        return f"${value:,.0f}"
    if value >= 1:
        return f"${value:,.2f}"
    return f"${value:.4f}"


def rate(value: float) -> str:
    """A list price per million tokens, as the providers print it."""
    return f"${value:,.2f}" if value >= 0.01 else f"${value:g}"


_ENGINES = {"sglang": "SGLang", "vllm": "vLLM"}


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:,.2f} h" if seconds >= 3600 else f"{seconds:,.1f} s"


_SETUP_NAMES = {"no_cache": "no caching", "cached": "with caching", "cached_after_fix": "with caching, after the fix"}


def self_hosted_table(sh: dict[str, Any]) -> Table:
    priced = sh["gpu_hour_price"] is not None
    heads = ["setup", "hit rate>", "GPU time (prefill + decode)>"]
    if priced:
        heads += ["cost>", "per million prompt tokens>"]
    t = Table(columns(*heads))
    for key, row in sh["setups"].items():
        name = _SETUP_NAMES.get(key, key)
        cells = [name if key == "no_cache" else f"{name}: {row['label']}", pct(row["hit_rate"]),
                 f"{_duration(row['gpu_seconds'])} ({_duration(row['prefill_gpu_seconds'])} + "
                 f"{_duration(row['decode_gpu_seconds'])})"]
        if priced:
            cells += [usd(row["usd"]), usd(row["usd_per_million_prompt_tokens"])]
        t.add(*cells)
    return t


def hosted_table(hosted: list[dict[str, Any]], after: list[dict[str, Any]] | None = None) -> Table:
    """Each provider's bill today; with ``after`` (the same bill on the traffic rewritten as
    the fix says) its total and saving beside."""
    heads = ["provider (model)", "cache re-reads>", "new input>", "cache writes>", "output>", "total>",
             "without caching>", "saving>", "input per million prompt tokens>"]
    if after:
        heads += ["total after the change>", "saving after>"]
    t = Table(columns(*heads))
    for i, h in enumerate(hosted):
        u = h["usd"]
        cells = [f"{h['provider']} ({h['model']})", usd(u["cache_reads"]), usd(u["new_input"]), usd(u["cache_writes"]),
                 usd(u["output"]), usd(h["total_usd"]), usd(h["uncached_usd"]), pct(h["saving"]),
                 f"{usd(h['input_usd_per_million_prompt_tokens'])} (list {rate(h['prices_per_million']['input'])})"]
        if after:
            cells += [usd(after[i]["total_usd"]), pct(after[i]["saving"])]
        t.add(*cells)
    return t


def tokens_table(hosted: list[dict[str, Any]]) -> Table:
    t = Table(columns("provider", "cache re-reads>", "new input>", "cache writes>", "output>",
                      "shared, below the minimum>", "shared, expired>", "shared, past the last step>"))
    for h in hosted:
        k, lost, req = h["tokens"], h["lost"], h["requests"]
        t.add(h["provider"], f"{k['cache_reads']:,}", f"{k['new_input']:,}", f"{k['cache_writes']:,}", f"{k['output']:,}",
              f"{lost['below_minimum']:,} ({req['below_minimum']:,} req.)", f"{lost['expired']:,} ({req['expired']:,} req.)",
              f"{lost['rounded']:,}")
    return t


def _rules(h: dict[str, Any], ttl_checked: bool) -> str:
    p = h["prices_per_million"]
    write = f", cache write {rate(p['cache_write'])}" if p["cache_write"] is not None else ", no write premium"
    steps = f"{h['granularity']:,}-token steps" if h["granularity"] > 1 else "any length"
    if h["ttl_seconds"] is None:
        life = f"lifetime not modelled ({h['ttl_note']})"
    else:
        life = f"lifetime {h['ttl_seconds'] / 60:g} min ({h['ttl_note']}" + ("" if ttl_checked else "; not checked") + ")"
    return (f"- {h['provider']}, {h['model']}: input {rate(p['input'])}, cached {rate(p['cached_input'])}{write}, "
            f"output {rate(p['output'])} per million tokens; minimum {h['minimum_tokens']:,} tokens, {steps}, {life}. "
            f"Source: {h['source']}; read {h['read_on']}.")


def render(data: dict[str, Any], picture: str | None) -> list[Block]:
    money = data.get("money")
    if not money:
        return []
    sh = money["self_hosted"]
    out: list[Block] = [
        f"The {money['requests']:,} requests ({money['prompt_tokens']:,} prompt tokens"
        + (f", {money['output_tokens']:,} output tokens logged" if money["output_billed"] else "")
        + f") in US dollars. Self-hosted on {sh['tp']} × {sh['gpu']}, {_ENGINES.get(sh['engine'], sh['engine'])} "
        "against no caching: "
        f"{sh['basis']}; the GPU time is each setup's busy time with every request arriving at once (the GPUs never "
        "idle: a lower bound of a real deployment's bill) times TP.",
        "",
        self_hosted_table(sh),
        "",
    ]
    saves = f"Caching saves {pct(sh['saving'])} of the GPU time today" + (
        f", {pct(sh['saving_after_fix'])} after the change" if "saving_after_fix" in sh else "")
    if sh["gpu_hour_price"] is None:
        out.append(f"No cited default price for {sh['gpu']}: give `--gpu-hour-price` (USD per GPU-hour) to turn the GPU "
                   f"time into dollars. {saves}.")
    else:
        out.append(f"{saves}. Price: {usd(sh['gpu_hour_price'])} per GPU-hour, {sh['price_source']}.")
    out += [
        "",
        "On each hosted API: a request reads from the provider's cache the prefix it shares with an earlier request "
        f"(the cached tokens above, counted with `{data['input']['tokenizer']}`; the providers' tokenizers differ by "
        "some percent), cut to the provider's steps, to nothing below its minimum cacheable prefix and, with "
        "timestamps, to what was used within the cache lifetime; the rest is new input. A provider with a write "
        "premium bills a prefix later re-read as a cache write, once per lifetime (breakpoints where requests "
        "diverge, as the Hosted APIs section advises). Each provider bills its own model, not "
        f"{data['input']['model']}: compare what caching saves, not one model's price with another's.",
        "",
        hosted_table(money["hosted"], money.get("hosted_after_fix")),
        "",
        "Tokens billed, and the shared tokens each provider's rules do not serve from cache:",
        "",
        tokens_table(money["hosted"]),
        "",
    ]
    if money["ttl_checked"]:
        out.append("- Cache lifetimes checked against the records' timestamps (a prefix last used longer ago misses).")
    out += [f"- {note}" for note in money["notes"]]
    out += [_rules(h, money["ttl_checked"]) for h in money["hosted"]]
    return out
