"""The model whose cache semantics a command applies: named, or read from ``--model-dir``."""

from __future__ import annotations

from pathlib import Path

from advisor.console import log
from advisor.cost.catalog import ModelSpec, load_config_json, resolve_gpu, resolve_model
from advisor.errors import AdvisorError
from advisor.index.geometry import CacheGeometry


def model_for(model: str | None, model_dir: Path | None) -> ModelSpec | None:
    """``model`` (a catalog name or a config.json path) or the config.json of ``model_dir``.

    A named model that cannot be read is an error; a model folder's config.json only gives the
    layout when it can be read (a tokenizer folder need not hold a full config), and says so."""
    if model is not None:
        return resolve_model(model)
    try:
        if model_dir is None or not (model_dir / "config.json").is_file():
            return None
        return load_config_json(model_dir)
    except OSError:  # a folder name the file system refuses: the folder's own reader says so
        return None
    except AdvisorError as exc:
        log(f"advisor: {exc}; the cache is taken to be full attention on every layer")
        return None


RETENTION_HELP = ("vLLM's --prefix-cache-retention-interval on a model with windows or states: 0 (the "
                  "default: kept at each prompt's replay boundary and junctions), none (every block) or N "
                  "tokens (one window tail or state per N).")
MAMBA_STRATEGY_HELP = ("SGLang's --mamba-radix-cache-strategy on a Mamba hybrid: auto (the default), extra_buffer "
                       "(states on the checkpoint grid) or no_buffer (the state after the whole prompt; page 1).")


def parse_retention(value: str | int | None) -> int | None:
    """``--retention-interval`` as vLLM takes it: 0, none (None: keep every block) or tokens."""
    if value is None or isinstance(value, int):
        text = "none" if value is None else str(value)
    else:
        text = value.strip().lower()
    if text in ("none", "dense"):
        return None
    if not text.isdigit():
        raise AdvisorError(f"--retention-interval must be 0, none or a number of tokens (got {value!r})")
    return int(text)


def geometry_for(spec: ModelSpec | None, engine: str, *, page_size: int = 1, gpu: str | None = None,
                 block_size: int | None = None, tp: int = 1, kv_dtype: str = "bf16",
                 retention: str | int | None = 0, mamba_strategy: str | None = None) -> CacheGeometry | None:
    """The engine's cache geometry on the model, or None where every layer is full attention
    (the commands then keep their plain definition of a hit). ``tp`` and ``kv_dtype`` size
    vLLM's hybrid block (one attention page holds one state page, per GPU); ``retention`` and
    ``mamba_strategy`` are the engines' flags that keep more windows and states for memory."""
    kept = parse_retention(retention)
    gpu_spec = resolve_gpu(gpu) if gpu else None  # an unknown --gpu is an error either way
    if spec is None:
        return None
    from advisor.cost.layout import cache_geometry  # only runs that name a model need it

    geo = cache_geometry(spec, engine, gpu=gpu_spec, page_size=page_size, block_size=block_size, tp=tp,
                         kv_dtype=kv_dtype, retention=kept, mamba_strategy=mamba_strategy)
    return None if geo.is_dense else geo
