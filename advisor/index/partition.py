"""Partitioned analysis: the radix tree split across processes or a Dask cluster, exactly.

With unlimited capacity two requests share at most the tokens they have in common from
the start, so requests whose first ``K`` tokens (the *head*) differ share fewer than ``K``
tokens. The coordinating process keeps a small tree of heads only; every request goes
to the partition its head hashes to, where the full tree for that head lives.

For a request whose head is matched in full by an earlier head, all earlier requests
it could share more with have the same head, hence sit in the same partition: the
partition's answer is exact. Otherwise the head tree's answer (< ``K``) is exact. Totals
therefore equal the single-process run; only where a branch is cut for display may
differ. Memory per process is the head tree, or one partition's share of tree tokens.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import signal
from array import array
import zlib
from dataclasses import astuple, dataclass, field
from typing import Any, Callable, Iterable, Protocol

from advisor.index.analyze import Analysis, Analyzer, RawBranch, TenantStats, raw_branches
from advisor.errors import AdvisorError
from advisor.ingest.ids import pack
from advisor.ingest.pipeline import Sequence

DEFAULT_HEAD_TOKENS = 256
CHUNK = 512
# (namespace, packed ids, prompt tokens, unit, tenant, matched ids known from the head tree or -1)
Item = tuple[str, bytes, int, int, "str | None", int]


def head_tokens_for(page_size: int, head_tokens: int) -> int:
    """The head length in tokens: whole pages, at least one."""
    return max(page_size, head_tokens // page_size * page_size)


def head_len(head_tokens: int, unit: int) -> int:
    """Head length in ids: ``head_tokens`` tokens, or one block of a block-hash trace."""
    return head_tokens if unit == 1 else 1


class PartitionIndexer:
    """One partition's trees. Lives in a worker process or as a Dask actor."""

    def __init__(self, page_size: int, head_tokens: int, top: int = 5) -> None:
        self.analyzer = Analyzer(page_size)
        self.head_tokens = head_tokens
        self.top = top

    def add_many(self, items: list[Item]) -> int:
        analyzer = self.analyzer
        for namespace, ids, prompt_tokens, unit, tenant, known in items:
            analyzer.add_ids(namespace, ids, prompt_tokens, unit, tenant, None if known < 0 else known)
        return len(items)

    def finish(self) -> dict[str, Any]:
        res = self.analyzer.result
        beyond = 0
        branches: list[RawBranch] = []
        for name, tree in res.trees.items():
            unit = res.units[name]
            beyond += tree.tokens_below(head_len(self.head_tokens, unit)) * unit
        # Only branches deeper than the head: shallower ones are the head tree's to report.
        for name in sorted(res.trees):
            sub = Analysis(page_size=res.page_size, trees={name: res.trees[name]}, units={name: res.units[name]})
            branches += raw_branches(sub, self.top, min_depth=head_len(self.head_tokens, res.units[name]))
        return {
            "requests": res.requests,
            "prompt_tokens": res.prompt_tokens,
            "cached_tokens": res.cached_tokens,
            "histogram": res.histogram.tobytes(),
            "tenants": {k: astuple(v) for k, v in res.tenants.items()},
            "tree_tokens_beyond_head": beyond,
            "branches": branches,
        }


class Backend(Protocol):
    def send(self, partition: int, items: list[Item]) -> None: ...
    def finish(self) -> list[dict[str, Any]]: ...


def _worker_main(conn: Any, page_size: int, head_tokens: int, top: int) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the run and terminates
    # the workers; a worker of its own would print a multiprocessing traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    indexer = PartitionIndexer(page_size, head_tokens, top)
    while True:
        msg = conn.recv()
        if msg is None:
            conn.send(indexer.finish())
            conn.close()
            return
        indexer.add_many(msg)


class LocalProcesses:
    """One process per partition, fed through pipes."""

    def __init__(self, partitions: int, page_size: int, head_tokens: int, top: int) -> None:
        # Fork before the tokenizer's thread pool exists (the caller starts us first).
        ctx: multiprocessing.context.ForkContext | multiprocessing.context.SpawnContext
        if "fork" in multiprocessing.get_all_start_methods():
            ctx = multiprocessing.get_context("fork")
        else:
            ctx = multiprocessing.get_context("spawn")
        self.conns = []
        self.procs = []
        for _ in range(partitions):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(child, page_size, head_tokens, top), daemon=True)
            proc.start()
            child.close()
            self.conns.append(parent)
            self.procs.append(proc)

    def send(self, partition: int, items: list[Item]) -> None:
        self.conns[partition].send(items)

    def finish(self) -> list[dict[str, Any]]:
        for conn in self.conns:
            conn.send(None)
        results = []
        for conn, proc in zip(self.conns, self.procs):
            try:
                results.append(conn.recv())
            except EOFError:
                raise AdvisorError(f"partition worker {proc.pid} died (exit code {proc.exitcode})")
        for proc in self.procs:
            proc.join()
        return results

    def close(self) -> None:
        for proc in self.procs:
            if proc.is_alive():
                proc.terminate()


class DaskActors:
    """One Dask actor per partition on an existing cluster (``dask.distributed``)."""

    def __init__(self, address: str, partitions: int | None, page_size: int, head_tokens: int,
                 top: int) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise AdvisorError("--dask needs the 'distributed' package: pip install 'advisor[dask]'")
        try:
            self.client = Client(address, timeout=5)
        except Exception as exc:  # connection errors come in many types
            raise AdvisorError(f"cannot reach the Dask scheduler at {address}: {exc}")
        n = partitions or max(1, sum(self.client.nthreads().values()))
        futures = [self.client.submit(PartitionIndexer, page_size, head_tokens, top, actor=True, pure=False)
                   for _ in range(n)]
        # Dask actor proxies: each method call returns a future (the class's own
        # signatures do not describe them).
        self.actors: list[Any] = [f.result() for f in futures]
        self.in_flight: list[Any] = []
        self.last: dict[int, Any] = {}

    @property
    def partitions(self) -> int:
        return len(self.actors)

    def send(self, partition: int, items: list[Item]) -> None:
        # Hits depend on insertion order, and Dask does not promise to run two calls to
        # one actor in the order they were made (under load they swap): a partition's
        # next batch goes only once its previous batch is in.
        previous = self.last.get(partition)
        if previous is not None:
            previous.result()
        self.last[partition] = future = self.actors[partition].add_many(items)
        self.in_flight.append(future)
        if len(self.in_flight) > 4 * len(self.actors):
            # Bound what is queued on the cluster: input size must not grow memory.
            for fut in self.in_flight:
                fut.result()
            self.in_flight.clear()

    def finish(self) -> list[dict[str, Any]]:
        for fut in self.in_flight:
            fut.result()
        results = [actor.finish().result() for actor in self.actors]
        self.client.close()
        return results

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:
            pass


@dataclass
class PartitionedRun:
    """The coordinator: head trees here, full trees in the partitions."""

    page_size: int
    partitions: int
    head_tokens: int = DEFAULT_HEAD_TOKENS
    top: int = 5
    heads: Analyzer = field(init=False)

    def __post_init__(self) -> None:
        if self.partitions < 1:
            raise AdvisorError("--workers must be at least 1")
        self.heads = Analyzer(self.page_size)
        self.head_tokens = head_tokens_for(self.page_size, self.head_tokens)

    def route(self, seq: Sequence) -> tuple[int, Item]:
        k = head_len(self.head_tokens, seq.unit)
        head = seq.ids[:k]
        tree = self.heads.tree_for(seq.namespace, seq.unit)
        matched = tree.insert(head)
        # Head matched in full: the partition knows more; otherwise the head tree is exact.
        known = -1 if matched == len(head) == k else matched
        key = zlib.crc32(seq.namespace.encode() + b"\0" + pack(head))
        return key % self.partitions, (seq.namespace, pack(seq.ids), seq.prompt_tokens, seq.unit,
                                       seq.request.tenant, known)

    def run(self, seqs: Iterable[Sequence], backend: Backend) -> Analysis:
        buffers: list[list[Item]] = [[] for _ in range(self.partitions)]
        for seq in seqs:
            part, item = self.route(seq)
            buf = buffers[part]
            buf.append(item)
            if len(buf) >= CHUNK:
                backend.send(part, buf)
                buffers[part] = []
        for part, buf in enumerate(buffers):
            if buf:
                backend.send(part, buf)
        return self.merge(backend.finish())

    def merge(self, parts: list[dict[str, Any]]) -> Analysis:
        out = Analysis(page_size=self.page_size)
        # The head trees report distinct tokens and branches up to the head length.
        out.trees = self.heads.result.trees
        out.units = self.heads.result.units
        for part in parts:
            out.requests += part["requests"]
            out.prompt_tokens += part["prompt_tokens"]
            out.cached_tokens += part["cached_tokens"]
            for index, count in enumerate(array("q", part["histogram"])):
                if count:
                    out.histogram[index] += count
            for name, fields in part["tenants"].items():
                stats = out.tenants.setdefault(name, TenantStats())
                stats += TenantStats(*fields)
            out.extra_tree_tokens += part["tree_tokens_beyond_head"]
            out.extra_branches += part["branches"]
        return out


def run_partitioned(seqs_factory: Callable[[], Iterable[Sequence]], page_size: int, workers: int = 0, dask: str | None = None,
                    top: int = 5, head_tokens: int = DEFAULT_HEAD_TOKENS) -> Analysis:
    """Analyze with local worker processes or Dask actors; ``seqs_factory()`` starts the
    pipeline only once the workers exist (forking must happen before threads start)."""
    head_tokens = head_tokens_for(page_size, head_tokens)
    backend: Any
    if dask:
        backend = DaskActors(dask, workers or None, page_size, head_tokens, top)
        n = backend.partitions
    else:
        if workers < 1:
            raise AdvisorError("--workers must be at least 1")
        backend = LocalProcesses(workers, page_size, head_tokens, top)
        n = workers
    try:
        run = PartitionedRun(page_size, n, head_tokens, top)
        return run.run(seqs_factory(), backend)
    finally:
        backend.close()

