"""Batch questions: read a text or JSONL input as a stream, answer with N concurrent turns, write one
JSONL record per question, and keep progress in the store so that a killed batch resumes where it
stopped. The output is rebuilt from the store on resume, so every question appears exactly once."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import shutil
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterator

from pydantic import BaseModel

from assistant.config import ANSWERS, LINE_CONTROLS, ROLES, settings_in
from assistant.errors import AssistantError, BadInput, ConfigError, ModelMissing, OllamaUnreachable
from assistant.frontends.columns import fit, terminal_columns, wrapped
from assistant.limits import decode_text, no_duplicate_keys
from assistant.pipeline.events import TurnResult
from assistant.models.parsing import MAX_DEPTH, too_deep
from assistant.pipeline.question import Question
from assistant.pipeline.turn import Assistant
from assistant.store import Store

CHUNK = 1 << 20
GIVE_UP_AFTER = 3  # consecutive "server unreachable / model missing" errors stop the batch


class Item(BaseModel):
    index: int  # position in the input, from 0
    id: Any
    question: str
    extra: dict[str, Any] = {}
    error: AssistantError | None = None  # the line cannot be a question (not UTF-8): recorded as failed, never asked

    model_config = {"arbitrary_types_allowed": True}


class BatchRecord(BaseModel):
    """One line of a batch's output: a projection of the turn's result, with the input's id and question and the
    time it took; a question that could not be asked has no turn (and ``ok`` false, with why in ``error``)."""

    id: Any
    question: str
    ok: bool
    answer: Any = ""  # the answer's text; with a schema, the object itself
    route: str | None = None
    attempts: int = 0
    model_calls: int = 0
    latency_ms: float
    turn_id: str | None = None
    error: str | None = None
    replaced: str | None = None  # why the model's answer failed its check and the tool's rendering was shown
    model: str | None = None  # the model in use, by the name the user gave it (None: a rule answered)
    cut: str | None = None  # the answer stopped short: "length" (the generation cap), "repeats"
    declined: str | None = None  # no answer on purpose, and why: "out_of_reach", "asked_back", "too_small", …

    @classmethod
    def of(cls, result: TurnResult, id: Any, question: str, latency_ms: float) -> BatchRecord:
        return result.projected(cls, id=id, question=question, latency_ms=latency_ms)

    def line(self, extra: dict[str, Any]) -> str:
        return json.dumps({**extra, **self.model_dump()}, ensure_ascii=False)


def spool_input(source: str, jobs_dir: Path) -> tuple[str, Path]:
    """Hash the input (streaming) and, for stdin, keep a copy so that the job can resume. Returns (digest, path)."""
    digest = hashlib.sha256()
    if source == "-":
        tmp = jobs_dir / f"stdin.{os.getpid()}.part"
        try:
            jobs_dir.mkdir(parents=True, exist_ok=True)
            with tmp.open("wb") as out:
                while chunk := sys.stdin.buffer.read(CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
            path = jobs_dir / f"{digest.hexdigest()[:16]}.input"
            os.replace(tmp, path)
        except OSError as e:  # a read-only or full home: said as the store says it (the job could not resume)
            from assistant.errors import store_error

            tmp.unlink(missing_ok=True) if tmp.parent.is_dir() else None
            raise store_error(tmp, e) from None
        return digest.hexdigest()[:16], path
    path = Path(source)
    if not path.is_file():
        raise ConfigError(f"cannot read the input file '{source}'.", "Give a text or JSONL file, or '-' for stdin.")
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()[:16], path


def read_items(path: Path) -> Iterator[Item]:
    """Questions one by one: JSONL objects ``{"id", "question", ...}`` or plain lines (blank lines and ``#`` skipped)."""
    index = 0
    jsonl: bool | None = True if path.suffix in (".jsonl", ".ndjson") else None
    with path.open("rb") as f:
        for lineno, data in enumerate(f, 1):
            try:
                line = decode_text(data, f"line {lineno}").strip()
            except BadInput as e:
                yield Item(index=index, id=index + 1, question=data.decode("utf-8", "replace").strip(), error=e)
                index += 1
                continue
            if not line or (line.startswith("#") and not jsonl):
                continue
            if jsonl is None:
                jsonl = line.startswith("{")
            if jsonl:
                try:
                    if too_deep(line):
                        raise ValueError(f"the record nests deeper than {MAX_DEPTH} levels")
                    obj = json.loads(line, object_pairs_hook=no_duplicate_keys, parse_constant=_no_constant)
                    if not isinstance(obj, dict) or "question" not in obj:
                        raise ValueError("not a JSON object")
                except ValueError as e:
                    if any(w in str(e) for w in ("appears twice", "not a number", "nests deeper")):  # the daemon's rules
                        yield _refused(index, lineno, line, str(e))
                        index += 1
                        continue
                    raise ConfigError(f"line {lineno} of {path} is not a JSON object with a \"question\".",
                                      "Each JSONL line must look like {\"id\": 1, \"question\": \"...\"}.") from None
                question, qid = obj.pop("question"), obj.pop("id", index + 1)
                why = _not_a_question(question) or _not_an_id(qid)
                if why:
                    yield _refused(index, lineno, line, why, qid if not _not_an_id(qid) else index + 1)
                else:
                    yield Item(index=index, id=qid, question=question.strip(), extra=obj)
            else:
                why = _not_a_question(line)  # the same rules as a JSONL line's question
                yield _refused(index, lineno, line, why, hint="Take the control character out of the line.") if why \
                    else Item(index=index, id=index + 1, question=line)
            index += 1


ECHO = 200  # characters of a refused question written back in its record


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")




def _not_a_question(question: Any) -> str | None:
    """Why a JSONL "question" cannot be asked (the daemon's rules): not text, empty, or with control characters."""
    if not isinstance(question, str):
        return f"the question is {type(question).__name__ if question is not None else 'null'}, not text"
    if not question.strip():
        return "the question is empty"
    if LINE_CONTROLS.search(question):
        return "the question contains a control character (NUL, ESC or similar)"
    return None


def _not_an_id(qid: Any) -> str | None:
    if isinstance(qid, bool) or not isinstance(qid, (str, int, float)) or (isinstance(qid, float) and not math.isfinite(qid)):
        return "the id must be text or a finite number"
    return None


def _refused(index: int, lineno: int, line: str, why: str, qid: Any = None,
             hint: str = "Each JSONL line must look like {\"id\": 1, \"question\": \"...\"}.") -> Item:
    """A line that cannot be a question: a failed record saying why, the line shortened, nothing asked."""
    shown = line if len(line) <= ECHO else line[:ECHO] + f"… ({len(line)} characters)"
    return Item(index=index, id=index + 1 if qid is None else qid, question=LINE_CONTROLS.sub("", shown),
                error=BadInput(f"line {lineno}: {why}.", hint))


def count_items(path: Path) -> int:
    return sum(1 for _ in read_items(path))


@dataclass
class Stats:
    total: int
    done: int = 0  # answered by this run
    failed: int = 0
    declined: int = 0  # of the failed: no answer on purpose (out of reach, a question back, too small)
    unanswered: int = 0  # server errors: left for a rerun
    before: int = 0  # answered by earlier runs of the job (their figures count in the summary)
    failed_before: int = 0
    declined_before: int = 0
    last_error: str = ""
    started: float = field(default_factory=time.monotonic)
    latencies: list[float] = field(default_factory=list)
    model_calls: list[int] = field(default_factory=list)
    routes: Counter = field(default_factory=Counter)

    def add(self, record: BatchRecord) -> None:
        self.done += 1
        self.failed += not record.ok
        self.declined += bool(record.declined)
        self._count(record.latency_ms, record.model_calls, record.route)

    def earlier(self, r: dict[str, Any]) -> None:
        """A record an earlier run of the job wrote."""
        self.before += 1
        self.failed_before += not r.get("ok")
        self.declined_before += bool(r.get("declined"))
        self._count(r.get("latency_ms") or 0.0, r.get("model_calls") or 0, r.get("route"))

    def _count(self, latency_ms: float, model_calls: int, route: str | None) -> None:
        self.latencies.append(latency_ms)
        self.model_calls.append(model_calls)
        self.routes[route or "none"] += 1

    def progress_line(self, resumed: int) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.done / elapsed
        left = self.total - resumed - self.done
        eta = f"{left / rate:,.0f}s" if rate > 0 else "?"
        width = 30
        frac = (resumed + self.done) / self.total if self.total else 1
        bar = "█" * int(frac * width) + "·" * (width - int(frac * width))
        return (f"\r\033[K{bar} {resumed + self.done}/{self.total}  {rate:.1f}/s  ETA {eta}"
                + (f"  failed {self.failed}" if self.failed else ""))

    def summary(self) -> str:
        """The whole job: this run's answers and those of earlier runs."""
        if not self.done and not self.unanswered and not self.before:
            return "nothing to answer"
        if not self.done and not self.before:
            return f"no question answered: {self.unanswered} failed because of server errors ({self.last_error})"
        lat = sorted(self.latencies)

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))]

        routes = ", ".join(f"{r} {n}" for r, n in self.routes.most_common())
        unanswered = (f"; {self.unanswered} not answered because of server errors ({self.last_error}): "
                      "run the same command again to retry them") if self.unanswered else ""
        answered, failed = self.done + self.before, self.failed + self.failed_before
        declined = self.declined + self.declined_before
        earlier = f" ({self.before} of them by earlier runs)" if self.before else ""
        not_ok = f"{declined} declined, {failed - declined} failed" if declined else f"{failed} failed"
        return (f"{answered} of {self.total} answered{earlier}: {answered - failed} ok, {not_ok}; this run "
                f"{self.done} in {time.monotonic() - self.started:.1f}s; routes: {routes}; mean model calls "
                f"{statistics.mean(self.model_calls):.2f}; latency p50 {pct(50):.0f} ms, p95 {pct(95):.0f} ms{unanswered}")


class BatchStopped(AssistantError):
    """The model server is unusable; progress is saved and the same command resumes."""


# Settings that change answers: a batch with another model, backend or tool set is another job.
ANSWER_SETTINGS = sorted(settings_in(ANSWERS))


async def answering_backend(app: Assistant) -> str:
    """The backend that will answer: with ``backend = "auto"``, the one chosen now (Ollama, or the embedded model
    when Ollama is down), so a job answered by one is not resumed by the other. Unknown when neither answers."""
    pick = getattr(app.backend, "pick", None)
    if app.settings.backend != "auto" or pick is None:
        return app.settings.backend
    try:
        return (await pick()).name
    except AssistantError:
        return "auto"  # nothing answers yet: questions that need no model are still answered


def job_key(app: Assistant, backend: str | None = None) -> dict[str, Any]:
    """What determines a batch's answers besides its input: the model of each role, the answer-changing settings
    that differ from their defaults, and the tools."""
    settings = app.settings.model_copy(update={"backend": backend}) if backend else app.settings
    defaults = type(settings)()
    key: dict[str, Any] = {"models": {role: settings.model_for(role) for role in ROLES}}
    key.update({name: getattr(settings, name) for name in ANSWER_SETTINGS
                if getattr(settings, name) != getattr(defaults, name)})
    if settings.backend == "embedded":  # one in-process model answers every role: the Ollama names mean nothing
        key.pop("models")
        key["embedded_model"] = settings.embedded_model or "SmolLM2-135M (bundled)"
    key["tools"] = sorted(app.registry.names())
    return key


def describe_key(key: dict[str, Any]) -> str:
    """A job's key in a few words: its model(s) and the settings that differ from the defaults."""
    models = key.get("models", {})
    names = sorted(set(models.values()))
    words = [f"model {names[0]}" if len(names) == 1 else ", ".join(f"{r} {m}" for r, m in models.items())] if names else []
    words += [f"{k} {v}" for k, v in key.items() if k not in ("models", "tools")]
    return "; ".join(w for w in words if w)


last_job: dict[str, Any] = {}  # the job this process works on, for the message when it is interrupted


class Writer:
    """The records on the output: in input order, each as soon as those before it are written (earlier runs' from
    the store), or as they finish (``ordered`` false)."""

    def __init__(self, output: IO[str], store: Store, job_id: str, done: set[int], ordered: bool) -> None:
        self.output, self.store, self.job_id, self.done, self.ordered = output, store, job_id, done, ordered
        self.cursor = 0  # in order: the next index to write
        self.pending: dict[int, str] = {}

    def earlier(self, line: str) -> None:
        """An earlier run's record: written now unless in order (then in its place, by :meth:`flush`)."""
        if not self.ordered:
            self.output.write(line + "\n")

    def write(self, index: int, line: str) -> None:
        if self.ordered:
            self.pending[index] = line
            self.flush()
        else:
            self.output.write(line + "\n")
            self.output.flush()

    def rest(self, total: int) -> None:
        """The end of a run: in order, questions left unanswered by server errors leave gaps; what follows them."""
        while self.ordered and self.cursor < total:
            self.flush()  # up to the next gap
            self.cursor += 1  # and past it

    def flush(self) -> None:
        """Whatever can be written now (in order: up to the first question not yet answered)."""
        while self.ordered:
            if self.cursor in self.pending:
                self.output.write(self.pending.pop(self.cursor) + "\n")
            elif self.cursor in self.done:
                self.output.write(self.store.batches.line(self.job_id, self.cursor) + "\n")
            else:
                break
            self.cursor += 1
        self.output.flush()


async def answer_item(app: Assistant, item: Item, session: str) -> BatchRecord:
    """One question's record. A question that cannot be answered (its line, its words: asking again would fail
    again) is recorded as failed; a server's failure is raised, so that the question stays unanswered and a rerun
    asks it."""
    t0 = time.perf_counter()
    try:
        if item.error is not None:
            raise item.error
        result = await app.ask(Question(question=item.question, session_id=session, one_shot="batch"))
    except AssistantError as e:
        if not e.permanent:
            raise
        shown = item.question if len(item.question) <= ECHO else \
            f"{item.question[:ECHO]}… ({len(item.question)} characters)"  # not a 10 MB echo
        return BatchRecord(id=item.id, question=shown, ok=False, error=e.one_line(),
                           latency_ms=round((time.perf_counter() - t0) * 1000, 1))
    record = BatchRecord.of(result, item.id, item.question, round((time.perf_counter() - t0) * 1000, 1))
    if app.settings.answer_schema and record.ok and record.answer:
        record.answer = json.loads(record.answer)  # the object itself: one JSON value in the record
    return record


async def _feed(path: Path, done: set[int], queue: asyncio.Queue[Item | None], workers: list[asyncio.Task[None]],
                fatal: list[AssistantError], bar: IO[str] | None) -> None:
    """Every question not answered before goes to the workers, until the input ends or the server is gone; then the
    workers finish what they hold, and the progress bar is cleared."""
    try:
        for item in read_items(path):
            if fatal:
                break
            if item.index not in done:
                await queue.put(item)
    finally:
        for _ in workers:
            await queue.put(None)
        await asyncio.gather(*workers)
        if bar is not None:
            bar.write("\r\033[K")
            bar.flush()


async def _open_job(app: Assistant, source: str, jobs_dir: Path, fresh: bool,
                    err: IO[str]) -> tuple[str, Path, int, set[int]]:
    """The job this run belongs to (its input and the settings that change answers, hashed), opened in the store:
    its id, its spooled input, how many questions, and those answered by earlier runs (said when resuming)."""
    digest, path = spool_input(source, jobs_dir)
    key = job_key(app, await answering_backend(app))
    job_id = hashlib.sha256(f"{digest}\n{json.dumps(key, sort_keys=True)}".encode()).hexdigest()[:16]
    total = count_items(path)
    app.store.batches.open(job_id, str(path) if source != "-" else "(stdin)", total, json.dumps(key), fresh=fresh)
    last_job.update(id=job_id, total=total)
    done = app.store.batches.done(job_id)  # indices answered in earlier runs; their lines stay in the store
    if done:
        print(f"resuming job {job_id} ({describe_key(key)}): {len(done)} of {total} already answered "
              "(--fresh starts over)", file=err)
    return job_id, path, total, done


async def run_batch(app: Assistant, source: str, output: IO[str], concurrency: int, ordered: bool,
                    progress: bool, jobs_dir: Path, err: IO[str] = sys.stderr, fresh: bool = False) -> Stats:
    """Answer every question of ``source`` not answered by an earlier run of the same input and settings (the
    user's instructions, ``-s``, among them)."""
    store = app.store
    job_id, path, total, done = await _open_job(app, source, jobs_dir, fresh, err)
    name = Path(source).name if source != "-" else "stdin"
    session = store.rolling_session("batch", f"batch {name} (job {job_id})")  # its questions' session, each on its own
    stats = Stats(total=total)
    writer = Writer(output, store, job_id, done, ordered)
    for line in store.batches.lines(job_id):  # earlier runs' records: in the summary, and on the output
        stats.earlier(json.loads(line))
        writer.earlier(line)
    writer.flush()
    shares_terminal = _is_tty(output) and _is_tty(err)
    queue: asyncio.Queue[Item | None] = asyncio.Queue(maxsize=concurrency * 2)
    fatal: list[AssistantError] = []
    streak = 0  # server failures in a row: the server is gone, and the batch stops

    async def worker() -> None:
        nonlocal streak
        while (item := await queue.get()) is not None:
            if fatal:
                continue
            try:
                record = await answer_item(app, item, session)
            except AssistantError as e:  # the server failed, not the question: left for a rerun
                stats.unanswered += 1
                stats.last_error = e.one_line()
                streak = streak + 1 if isinstance(e, (OllamaUnreachable, ModelMissing)) else 0
                if streak >= GIVE_UP_AFTER:
                    fatal.append(e)
                continue
            streak = 0
            line = record.line(item.extra)
            store.batches.record(job_id, item.index, record.ok, line)  # durable before it is shown
            stats.add(record)
            if progress and shares_terminal:
                err.write("\r\033[K")  # the records and the bar share the screen: the bar is redrawn below them
                err.flush()
            writer.write(item.index, line)
            if progress:
                err.write(stats.progress_line(len(done)))
                err.flush()

    await _feed(path, done, queue, [asyncio.create_task(worker()) for _ in range(concurrency)], fatal,
                err if progress else None)
    if fatal:
        store.batches.close(job_id, done=False)
        e = fatal[0]
        stopped = BatchStopped(f"batch stopped: {e.message}", f"{e.hint} Progress is saved: run the same command again to resume.")
        stopped.exit_code = e.exit_code
        raise stopped
    writer.rest(total)
    store.batches.close(job_id, done=not stats.unanswered)
    summary = stats.summary()
    if _is_tty(err):  # on a terminal, broken at spaces to its width (a pipe or a log gets one line)
        summary = wrapped(summary, terminal_columns() - 1, "  ")
    print(summary, file=err)
    return stats


def _is_tty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def jobs_table(store: Store) -> str:
    rows = store.batches.jobs()
    if not rows:
        return "no batch jobs"
    width = shutil.get_terminal_size((100, 20)).columns if sys.stdout.isatty() else None  # a pipe gets it all
    lines = [f"{'job':<17}{'done':>14}{'failed':>8}  {'status':<12}{'updated':<21}settings · input"]
    for r in rows:
        key = describe_key(json.loads(r.get("settings") or "{}")) or "(keyed by input only)"
        lines.append(fit(f"{r['id']:<17}{r['done']:>7}/{r['total']:<6}{r['failed']:>8}  {r['status']:<12}"
                         f"{r['updated_at'][:19]:<21}{key} · {r['input']}", width))
    return "\n".join(lines)
