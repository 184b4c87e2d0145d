"""Untrusted Jinja rendered in a worker process under operating-system limits.

The sandbox's own checks (advisor.ingest.sandbox) refuse the obvious blow-ups early, but
they check single operations: one C call (``sum`` of lists, ``str.translate``, ``json.dumps``
with an indent) can still run for minutes or allocate gigabytes where no check or Python
signal reaches. So prompt templates and HF chat templates are compiled and rendered in a
separate process with

* a CPU-time limit per record: the sandbox's timer counts this process' CPU time
  (``ITIMER_PROF``), and ``RLIMIT_CPU``, raised before each record to the CPU used so far
  plus the budget and a quarter second (rounded up to a whole second), kills the worker
  when a C call outlasts the timer.
  CPU time, not wall time: a loaded machine renders exactly what an idle one does;
* an address-space limit (``RLIMIT_AS``): an allocation past it fails with MemoryError
  inside the template (the record is skipped), or, at worst, kills the worker.

A worker that dies costs the record it was rendering (that line is skipped with the
reason) and is started again for the rest. It is one process, started on first use and
reused across records and runs; records go to it in batches (one round trip per batch of
the pipeline). It is started with ``python -m`` (never forked from a threaded parent, so it
is safe whatever the multiprocessing start method). Requests go to it pickled; answers
come back as JSON, so a worker that misbehaved can never run code in the parent.
"""

from __future__ import annotations

import atexit
import math
import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Mapping, Sequence

from advisor.errors import AdvisorError

if TYPE_CHECKING:
    from advisor.ingest.prompt_templates import Rendered

# CPU seconds one record may use: the sandbox's timer stops Python-level work there. A
# real chat or prompt template renders in milliseconds; a case that uses it all, with the
# interpreters' start, stays within 10 s of wall time with the cores shared three ways.
CPU_SECONDS = 1.0
# RLIMIT_CPU is whole seconds of the process' total: set to the first whole second at
# least this far past the timer, it only catches C calls (1.25-2.25 s after the start).
CPU_GRACE = 0.25
# Address space of the worker: the interpreter with Jinja2 and YAML is ~40 MB of it; the
# rest is room for a prompt the size of the largest traffic line (32 MiB of text).
MEMORY_BYTES = 384 << 20
# A worker that shows no sign of life for this long (wall time) is stopped: only a bug
# could get there, since CPU work is capped.
STALL_SECONDS = 120.0
# While it waits, the parent reads the worker's CPU time this often (wall time) and kills
# it once the record in progress has used the budget plus the grace (counted from the
# first look, so 1.25-1.45 s in): a C call is stopped there, not at RLIMIT_CPU's next
# whole second, which stays the backstop (and the only stop where /proc is not there).
WATCH_SECONDS = 0.2
# A rendered prompt longer than this is refused: ~1M tokens, past the context window of the
# models served, and tokenizing it would take the parent hundreds of megabytes.
MAX_PROMPT_CHARS = 4_000_000
_HEADER = struct.Struct(">I")


def _dumps(value: Any) -> bytes:
    try:
        import orjson

        return orjson.dumps(value)
    except ImportError:  # pragma: no cover - orjson is a dependency
        import json

        return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _loads(data: bytes) -> Any:
    try:
        import orjson

        return orjson.loads(data)
    except ImportError:  # pragma: no cover
        import json

        return json.loads(data)


# --- the worker side --------------------------------------------------------------------------


def _set_limits(memory: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU would otherwise dump core
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _arm_cpu(seconds: float) -> None:
    """Let this process use ``seconds`` (plus the grace) more CPU time before SIGXCPU."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds + CPU_GRACE)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


class _Worker:
    """What runs inside the worker: the run's template set and chat template."""

    def __init__(self) -> None:
        self.templates: Any = None
        self.chat: Any = None

    def configure(self, config: "WorkerConfig") -> list[Any]:
        from pathlib import Path

        from advisor.ingest import safe_open
        from advisor.ingest.prompt_templates import TemplateSet

        safe_open.confine(config.confined)
        self.templates = TemplateSet([Path(f) for f in config.folders])
        self.chat = None
        if config.chat is not None:
            from advisor.ingest.chat_template import load_chat_template

            path, bos, eos, engine = config.chat
            try:
                _arm_cpu(CPU_SECONDS)
                from advisor.ingest.chat import parse_timezone

                specials = dict(config.specials) if config.specials is not None else None
                self.chat = load_chat_template(path, bos, eos, engine=engine, specials=specials,
                                               timezone=parse_timezone(config.timezone))
            except AdvisorError as exc:
                return ["e", str(exc)]
        return ["ok"]

    def run(self, job: tuple[Any, ...]) -> list[Any]:
        _arm_cpu(CPU_SECONDS)
        result = self._run(job)
        size = len(result[1]) if result[0] != "m" else sum(len(str(m.get("content", ""))) for m in result[1])
        if size > MAX_PROMPT_CHARS:
            where = self.templates.get(job[1]).path if job[0] == "t" else self.chat.source
            raise AdvisorError(f"{where}: rendered prompt is {size:,} characters, over the {MAX_PROMPT_CHARS:,} limit")
        return result

    def _run(self, job: tuple[Any, ...]) -> list[Any]:
        if job[0] == "t":
            _, name, variables = job
            rendered = self.templates.get(name).render(variables)
            if rendered.messages is not None:
                return ["m", list(rendered.messages)]
            return ["p", rendered.prompt or ""]
        _, messages, tools, timestamp, options = job
        if self.chat is None:
            raise AdvisorError("no chat template configured")
        return ["x", self.chat.render(messages, tools, timestamp, options)]


def _answer(worker: _Worker, raw: bytes) -> bytes:
    try:
        job = pickle.loads(raw)
        result = worker.run(job)
        return _dumps(result)
    except AdvisorError as exc:
        result = ["e", str(exc)]
    except MemoryError:
        result = ["e", f"template stopped: out of memory (the renderer's limit is {MEMORY_BYTES >> 20} MiB)"]
    except RecursionError:
        result = ["e", "template stopped: nested too deeply (RecursionError)"]
    except Exception as exc:  # a template can raise anything; the record is skipped with it
        if type(exc).__name__ == "JSONEncodeError":
            result = ["e", "rendered text is not valid Unicode"]
        else:
            result = ["e", f"cannot render: {type(exc).__name__}: {str(exc)[:200]}"]
    try:
        return _dumps(result)
    except Exception:
        return _dumps(["e", "cannot render: the reason is not printable"])


def _write_frame(fd: int, payload: bytes) -> None:
    data = _HEADER.pack(len(payload)) + payload
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(handle: BinaryIO, n: int) -> bytes | None:
    data = handle.read(n)
    return data if data is not None and len(data) == n else None


def serve(inp: BinaryIO, out_fd: int) -> None:
    """The worker's loop: one frame in (configure, or a batch of jobs), one frame out per job."""
    from advisor.ingest.sandbox import use_cpu_clock

    use_cpu_clock(CPU_SECONDS)
    worker = _Worker()
    while True:
        head = _read_exact(inp, _HEADER.size)
        if head is None:
            return  # the parent closed the pipe: its run is over
        body = _read_exact(inp, _HEADER.unpack(head)[0])
        if body is None:
            return
        op, payload = pickle.loads(body)
        if op == "configure":
            _write_frame(out_fd, _dumps(worker.configure(payload)))
        else:
            for raw in payload:
                _write_frame(out_fd, _answer(worker, raw) if raw is not None else _dumps(["e", "?"]))


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _set_limits(MEMORY_BYTES)
    out_fd = os.dup(sys.stdout.fileno())
    # Nothing else may write into the answer pipe.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    serve(sys.stdin.buffer, out_fd)


# --- the parent side --------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkerConfig:
    folders: tuple[str, ...] = ()
    chat: tuple[str, str | None, str | None, str] | None = None  # (path, bos, eos, engine)
    # The model's special tokens (--model-dir; None: from the template file or tokenizer)
    # and the server's time zone for strftime_now.
    specials: tuple[tuple[str, str], ...] | None = None
    timezone: str = "UTC"
    # The parent's model-folder files and the roots they must resolve inside
    # (safe_open.confined_files): the chat template is read here again.
    confined: tuple[tuple[str, str], ...] = ()


def _death_reason(code: int | None) -> str:
    if code is not None and code < 0:
        sig = -code
        if sig == signal.SIGXCPU:
            return f"template stopped: CPU time limit ({CPU_SECONDS:g} s) exceeded"
        if sig == signal.SIGKILL:
            return "template stopped: the renderer was killed (out of memory?)"
        if sig == signal.SIGSEGV:
            return "template stopped: the renderer crashed (stack overflow?)"
        return f"template stopped: the renderer died (signal {sig})"
    if code == 1 or code is None:
        return f"template stopped: out of memory (the renderer's limit is {MEMORY_BYTES >> 20} MiB)"
    return f"template stopped: the renderer exited ({code})"


class _Dead(Exception):
    pass


class _Process:
    """The worker process and the config it was last given."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.pid = 0
        self.config: WorkerConfig | None = None
        self.buffer = bytearray()
        self.starts = 0
        self.cpu_killed = False
        self._clock_ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def alive(self) -> bool:
        return self.proc is not None and self.pid == os.getpid() and self.proc.poll() is None

    def start(self) -> None:
        self.stop()
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "advisor.ingest.render_worker"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                env=env, close_fds=True,
            )
        except OSError as exc:
            raise AdvisorError(f"cannot start the template renderer ({exc.strerror or exc})") from None
        self.pid = os.getpid()
        self.config = None
        self.buffer = bytearray()
        self.starts += 1

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or self.pid != os.getpid():
            return  # a forked child never stops its parent's worker
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def _send(self, op: str, payload: Any) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        body = pickle.dumps((op, payload), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(_HEADER.pack(len(body)) + body)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _Dead() from None

    def _fill(self, n: int) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        waited = 0.0
        baseline: float | None = None  # the worker's CPU time when this wait began
        while len(self.buffer) < n:
            ready, _, _ = select.select([fd], [], [], WATCH_SECONDS)
            if not ready:
                waited += WATCH_SECONDS
                used = self._worker_cpu()
                if used is not None:
                    # No answer since ``baseline``: one record has run all that time.
                    if baseline is None:
                        baseline = used
                    elif used - baseline > CPU_SECONDS + CPU_GRACE:
                        self.cpu_killed = True
                        self.proc.kill()
                        raise _Dead()
                if waited >= STALL_SECONDS:
                    self.proc.kill()
                    raise _Dead()
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise _Dead()
            self.buffer += chunk
            waited, baseline = 0.0, None

    def _worker_cpu(self) -> float | None:
        """The worker's CPU time in seconds (user and system), from /proc; None elsewhere."""
        try:
            with open(f"/proc/{self.proc.pid if self.proc else 0}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / self._clock_ticks
        except (OSError, IndexError, ValueError):
            return None

    def _receive(self) -> Any:
        self._fill(_HEADER.size)
        (size,) = _HEADER.unpack_from(self.buffer)
        self._fill(_HEADER.size + size)
        body = bytes(self.buffer[_HEADER.size:_HEADER.size + size])
        del self.buffer[:_HEADER.size + size]
        return _loads(body)

    def death(self) -> str:
        proc = self.proc
        code = None
        if self.cpu_killed:
            self.cpu_killed = False
            if proc is not None:
                proc.wait()
            self.proc = None
            return f"template stopped: CPU time limit ({CPU_SECONDS:g} s) exceeded"
        if proc is not None:
            try:
                code = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
        self.proc = None
        return _death_reason(code)

    def ensure(self, config: WorkerConfig) -> None:
        """A live worker holding ``config``; raise ``AdvisorError`` if the config is refused."""
        for _ in range(2):
            if not self.alive():
                self.start()
            if self.config == config:
                return
            try:
                self._send("configure", config)
                answer = self._receive()
            except _Dead:
                reason = self.death()
                if config.chat is not None:
                    raise AdvisorError(f"{config.chat[0]}: loading the chat template stopped ({reason})") from None
                continue
            if answer[0] == "e":
                self.config = None
                raise AdvisorError(answer[1])
            self.config = config
            return
        raise AdvisorError("the template renderer could not be started")

    def run(self, config: WorkerConfig, jobs: list[bytes | None]) -> list[list[Any]]:
        """Answers in job order; a job that kills the worker gets the death as its error."""
        out: list[list[Any]] = []
        while len(out) < len(jobs):
            self.ensure(config)
            rest = jobs[len(out):]
            try:
                self._send("render", rest)
                for _ in rest:
                    out.append(self._receive())
            except _Dead:
                out.append(["d", self.death()])
        return out


_PROCESS = _Process()
atexit.register(_PROCESS.stop)


def _pack(job: tuple[Any, ...]) -> bytes | None:
    try:
        return pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        return None


class RenderClient:
    """The templates and chat template of one run, rendered by the shared worker."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config

    def check(self) -> None:
        """Start the worker and load the config now (a chat template that does not compile
        is an error of the whole run, as when it is loaded in process)."""
        _PROCESS.ensure(self.config)

    def run(self, jobs: Sequence[tuple[Any, ...]]) -> list[list[Any]]:
        packed = [_pack(j) for j in jobs]
        ok = [i for i, p in enumerate(packed) if p is not None]
        answers: list[list[Any]] = [["e", "record is nested too deeply to render"]] * len(jobs)
        if ok:
            for i, answer in zip(ok, _PROCESS.run(self.config, [packed[i] for i in ok])):
                answers[i] = answer
        return answers


def _error(answer: list[Any], prefix: str) -> AdvisorError:
    # "e": the worker's own one-line reason, naming its file; "d": the worker died on it.
    return AdvisorError(f"{prefix}: {answer[1]}" if answer[0] == "d" and prefix else str(answer[1]))


class RemoteChat:
    """A HuggingFace chat template rendered by the worker (the ``ChatRenderer`` protocol)."""

    def __init__(self, client: RenderClient, source: str, engine: str) -> None:
        self.client = client
        self.source = source
        self._engine = engine
        client.check()

    @property
    def name(self) -> str:
        return "hf"

    @property
    def engine(self) -> str:
        return self._engine

    def render(self, messages: Sequence[dict[str, Any]], tools: Sequence[Any] | None,
               timestamp: float | None = None, options: Mapping[str, Any] | None = None) -> str:
        result = self.render_many([(messages, tools, timestamp, options)])[0]
        if isinstance(result, AdvisorError):
            raise result
        return result

    def render_many(self, items: Sequence[tuple[Any, ...]]) -> list[str | AdvisorError]:
        # `tools: []` crosses as a list: what an empty list becomes is the engine release's rule.
        jobs = [("c", [dict(m) for m in item[0]], list(item[1]) if item[1] is not None else None, item[2],
                 dict(item[3]) if len(item) > 3 and item[3] else None) for item in items]
        out: list[str | AdvisorError] = []
        for answer in self.client.run(jobs):
            out.append(answer[1] if answer[0] == "x" else _error(answer, self.source))
        return out


class RemoteTemplates:
    """Prompt templates by name, rendered by the worker (the ``TemplateSource`` protocol)."""

    def __init__(self, client: RenderClient) -> None:
        self.client = client

    def get(self, name: str) -> "_RemoteTemplate":
        return _RemoteTemplate(self, name)

    def render_many(self, items: Sequence[tuple[str, dict[str, Any]]]) -> list["Rendered | AdvisorError"]:
        from advisor.ingest.prompt_templates import Rendered

        out: list[Rendered | AdvisorError] = []
        answers = self.client.run([("t", name, dict(variables or {})) for name, variables in items])
        for (name, _), answer in zip(items, answers):
            if answer[0] == "p":
                out.append(Rendered(prompt=answer[1]))
            elif answer[0] == "m":
                out.append(Rendered(messages=tuple(answer[1])))
            else:
                out.append(_error(answer, self._where(name) if answer[0] == "d" else ""))
        return out

    def _where(self, name: str) -> str:
        from pathlib import Path

        from advisor.ingest.prompt_templates import MESSAGE_SUFFIXES, TEXT_SUFFIXES
        from advisor.ingest.safe_open import find_in

        try:
            found = find_in([Path(f) for f in self.client.config.folders], name, TEXT_SUFFIXES + MESSAGE_SUFFIXES)
        except AdvisorError:
            found = None
        return str(found[0]) if found else f"template '{name}'"


class _RemoteTemplate:
    def __init__(self, owner: RemoteTemplates, name: str) -> None:
        self.owner = owner
        self.name = name

    def render(self, variables: dict[str, Any]) -> "Rendered":
        result = self.owner.render_many([(self.name, variables)])[0]
        if isinstance(result, AdvisorError):
            raise result
        return result


def worker_starts() -> int:
    """How many times a worker process was started in this process (for tests and bench)."""
    return _PROCESS.starts


if __name__ == "__main__":
    main()
