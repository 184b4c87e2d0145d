"""The simulator's requests, held in fixed memory per request whatever their length.

A simulation replays the same requests several times (every policy, the capacity
ceiling, a sweep), so they must be kept; kept as ``Job`` objects with their packed ids,
a 2 GB log needed ~2 GiB of memory on top of the pools' trees. The store keeps ~46
bytes of metadata per request in arrays and spills the packed ids to an anonymous
temporary file (already unlinked, so an interrupt leaves nothing behind), then hands
out one fresh ``Job`` per access. A job, its key and whatever a pool memoizes on it are
garbage as soon as the run moves past it, so a run's memory is its pools' trees.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from collections.abc import Sequence
from typing import Iterable, Iterator, overload

from advisor.errors import AdvisorError
from advisor.ingest.ids import ITEM
from advisor.simulate.model import Job

FLUSH_BYTES = 1 << 20
NO_TENANT = -1


class JobStore(Sequence[Job]):
    """Requests in arrival order; ``store[i]`` is a new ``Job`` with ``index == i``.

    Fill with ``append``, then ``seal``; ``set_arrivals`` may re-time and reorder them
    (a stable sort by arrival) before the first run.
    """

    def __init__(self) -> None:
        try:
            self._file = tempfile.TemporaryFile(prefix="advisor-jobs-")
        except OSError as exc:
            raise _spill_error(exc)
        self._pending = bytearray()
        self._size = 0
        self._offset = array("q")
        self._elements = array("I")
        self._prompt = array("Q")
        self._unit = array("I")
        self._out = array("I")
        self._arrival = array("d")
        self._namespace = array("I")  # one per namespace: a salt per user can make more than 65,535
        self._tenant = array("i")
        self._names: dict[str, int] = {}
        self._name_list: list[str] = []
        self._tenants: dict[str, int] = {}
        self._tenant_list: list[str] = []
        self._order: array | None = None  # arrival position -> record; None = file order
        self._sealed = False

    # --- filling -------------------------------------------------------------------------

    def append(self, namespace: str, key: bytes, prompt_tokens: int, unit: int,
               arrival: float = 0.0, output_len: int = 1, tenant: str | None = None) -> None:
        if self._sealed:
            raise RuntimeError("JobStore is sealed")
        self._offset.append(self._size + len(self._pending))
        self._elements.append(len(key) // ITEM)
        self._pending += key
        if len(self._pending) >= FLUSH_BYTES:
            self._flush()
        self._prompt.append(prompt_tokens)
        self._unit.append(unit)
        self._out.append(output_len)
        self._arrival.append(arrival)
        self._namespace.append(_intern(namespace, self._names, self._name_list))
        self._tenant.append(NO_TENANT if tenant is None else _intern(tenant, self._tenants, self._tenant_list))

    def add(self, job: Job) -> None:
        self.append(job.namespace, job.key, job.prompt_tokens, job.unit, job.arrival, job.output_len, job.tenant)

    def _flush(self) -> None:
        if self._pending:
            try:
                written = os.pwrite(self._file.fileno(), self._pending, self._size)
            except OSError as exc:
                raise _spill_error(exc)
            if written != len(self._pending):
                raise _spill_error(OSError(28, "short write, the disk may be full"))
            self._size += len(self._pending)
            self._pending = bytearray()

    def seal(self) -> "JobStore":
        self._flush()
        self._sealed = True
        return self

    def set_arrivals(self, arrivals: array, sort: bool) -> None:
        """New arrival times, one per record in file order; ``sort`` puts the store in
        arrival order (file order among equal times)."""
        if len(arrivals) != len(self._offset):
            raise ValueError("one arrival per request")
        self._arrival = array("d", arrivals)
        if sort:
            order = sorted(range(len(arrivals)), key=arrivals.__getitem__)
            self._order = None if order == list(range(len(order))) else array("I", order)

    def timed_like(self, other: "JobStore") -> None:
        """Arrival times, order and output lengths copied from ``other``, record by record:
        the same requests rewritten (advisor.advise.after_fix) arrive when the logged ones
        did and generate as much."""
        if len(other) != len(self):
            raise ValueError("one arrival per request")
        self._arrival = array("d", other._arrival)
        self._out = array("I", other._out)
        self._order = other._order

    # --- reading -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._offset)

    @overload
    def __getitem__(self, i: int) -> Job: ...

    @overload
    def __getitem__(self, i: slice) -> list[Job]: ...

    def __getitem__(self, i: int | slice) -> Job | list[Job]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if not self._sealed:
            self.seal()
        if i < 0:
            i += len(self._offset)
        if not 0 <= i < len(self._offset):
            raise IndexError(i)
        r = i if self._order is None else self._order[i]
        n = self._elements[r] * ITEM
        key = os.pread(self._file.fileno(), n, self._offset[r]) if n else b""
        if len(key) != n:
            raise OSError("the simulator's spill file was truncated")
        t = self._tenant[r]
        return Job(i, self._name_list[self._namespace[r]], key, self._prompt[r], self._unit[r],
                   self._arrival[r], self._out[r], None if t == NO_TENANT else self._tenant_list[t])

    def __iter__(self) -> Iterator[Job]:
        # ``self[i]`` inlined: every run walks the whole store, so its per-call checks and
        # attribute lookups add up. The jobs are the same, one fresh ``Job`` per request.
        if not self._sealed:
            self.seal()
        fd = self._file.fileno()
        order, offset, elements = self._order, self._offset, self._elements
        names, namespace, tenants, tenant = self._name_list, self._namespace, self._tenant_list, self._tenant
        prompt, unit, arrival, out = self._prompt, self._unit, self._arrival, self._out
        pread = os.pread
        for i in range(len(offset)):
            r = i if order is None else order[i]
            n = elements[r] * ITEM
            key = pread(fd, n, offset[r]) if n else b""
            if len(key) != n:
                raise OSError("the simulator's spill file was truncated")
            t = tenant[r]
            yield Job(i, names[namespace[r]], key, prompt[r], unit[r], arrival[r], out[r],
                      None if t == NO_TENANT else tenants[t])

    def record_of(self, i: int) -> int:
        """The input (file-order) position of the request at arrival position ``i``."""
        return i if self._order is None else self._order[i]

    # --- columns (no key read) -----------------------------------------------------------

    def tenants(self) -> list[str]:
        """The tenants named by the requests, sorted."""
        return sorted(self._tenants)

    def has_token_traffic(self) -> bool:
        """Whether any request is token ids (one element per token) rather than blocks."""
        return 1 in self._unit


def _spill_error(exc: OSError) -> AdvisorError:
    return AdvisorError(f"cannot keep the requests in a temporary file in {tempfile.gettempdir()} "
                        f"({exc.strerror or exc}): point TMPDIR at a folder with room")


def _intern(value: str, table: dict[str, int], values: list[str]) -> int:
    got = table.get(value)
    if got is None:
        got = table[value] = len(values)
        values.append(value)
    return got


def job_store(jobs: Iterable[Job]) -> JobStore:
    """A sealed store of ``jobs`` (already in arrival order)."""
    store = JobStore()
    for job in jobs:
        store.add(job)
    return store.seal()
