"""Batch questions: read a text or JSONL input as a stream, answer with N concurrent turns, write one
JSONL record per question, and keep progress in the store so that a killed batch resumes where it
stopped. The output is rebuilt from the store on resume, so every question appears exactly once."""

from __future__ import annotations

import asyncio
import hashlib
import json
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

from assistant.errors import AssistantError, BadInput, ConfigError, ModelMissing, OllamaUnreachable
from assistant.limits import decode_text
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
    id: Any
    question: str
    ok: bool
    answer: str
    route: str | None
    attempts: int
    model_calls: int
    latency_ms: float
    turn_id: str | None
    error: str | None
    replaced: str | None = None  # why the model's answer failed its check and the tool's rendering was shown

    def line(self, extra: dict[str, Any]) -> str:
        return json.dumps({**extra, **self.model_dump()}, ensure_ascii=False)


def spool_input(source: str, jobs_dir: Path) -> tuple[str, Path]:
    """Hash the input (streaming) and, for stdin, keep a copy so that the job can resume. Returns (job id, path)."""
    digest = hashlib.sha256()
    if source == "-":
        jobs_dir.mkdir(parents=True, exist_ok=True)
        tmp = jobs_dir / f"stdin.{os.getpid()}.part"
        with tmp.open("wb") as out:
            while chunk := sys.stdin.buffer.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
        path = jobs_dir / f"{digest.hexdigest()[:16]}.input"
        os.replace(tmp, path)
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
                    obj = json.loads(line)
                    question = str(obj.pop("question")).strip()
                except (json.JSONDecodeError, KeyError, AttributeError, TypeError):
                    raise ConfigError(f"line {lineno} of {path} is not a JSON object with a \"question\".",
                                      "Each JSONL line must look like {\"id\": 1, \"question\": \"...\"}.") from None
                qid = obj.pop("id", index + 1)
                yield Item(index=index, id=qid, question=question, extra=obj)
            else:
                yield Item(index=index, id=index + 1, question=line)
            index += 1


def count_items(path: Path) -> int:
    return sum(1 for _ in read_items(path))


@dataclass
class Stats:
    total: int
    done: int = 0
    failed: int = 0
    unanswered: int = 0  # server errors: left for a rerun
    last_error: str = ""
    started: float = field(default_factory=time.monotonic)
    latencies: list[float] = field(default_factory=list)
    model_calls: list[int] = field(default_factory=list)
    routes: Counter = field(default_factory=Counter)

    def add(self, record: BatchRecord) -> None:
        self.done += 1
        self.failed += not record.ok
        self.latencies.append(record.latency_ms)
        self.model_calls.append(record.model_calls)
        self.routes[record.route or "none"] += 1

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
        if not self.done and not self.unanswered:
            return "nothing left to answer"
        if not self.done:
            return f"no question answered: {self.unanswered} failed because of server errors ({self.last_error})"
        lat = sorted(self.latencies)

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))]

        routes = ", ".join(f"{r} {n}" for r, n in self.routes.most_common())
        unanswered = (f"; {self.unanswered} not answered because of server errors ({self.last_error}): "
                      "run the same command again to retry them") if self.unanswered else ""
        return (f"{self.done - self.failed} ok, {self.failed} failed in {time.monotonic() - self.started:.1f}s; "
                f"routes: {routes}; mean model calls {statistics.mean(self.model_calls):.2f}; "
                f"latency p50 {pct(50):.0f} ms, p95 {pct(95):.0f} ms{unanswered}")


class BatchStopped(AssistantError):
    """The model server is unusable; progress is saved and the same command resumes."""


async def run_batch(app: Assistant, source: str, output: IO[str], concurrency: int, ordered: bool,
                    progress: bool, jobs_dir: Path, err: IO[str] = sys.stderr) -> Stats:
    """Answer every question of ``source`` not answered by an earlier run of the same input."""
    store = app.store
    job_id, path = spool_input(source, jobs_dir)
    total = count_items(path)
    store.open_batch(job_id, str(path) if source != "-" else "(stdin)", total)
    done = store.batch_done(job_id)  # indices answered in earlier runs; their lines stay in the store
    if done:
        print(f"resuming job {job_id}: {len(done)} of {total} already answered", file=err)
    stats = Stats(total=total)
    cursor = 0  # ordered output: the next index to write
    pending: dict[int, str] = {}

    def flush_ordered() -> None:
        nonlocal cursor
        while True:
            if cursor in pending:
                output.write(pending.pop(cursor) + "\n")
            elif cursor in done:
                output.write(store.batch_line(job_id, cursor) + "\n")
            else:
                break
            cursor += 1
        output.flush()

    if ordered:
        flush_ordered()
    else:
        for line in store.batch_lines(job_id):
            output.write(line + "\n")
        output.flush()

    queue: asyncio.Queue[Item | None] = asyncio.Queue(maxsize=concurrency * 2)
    fatal: list[AssistantError] = []
    streak = 0

    async def worker() -> None:
        nonlocal streak
        while (item := await queue.get()) is not None:
            if fatal:
                continue
            t0 = time.perf_counter()
            try:
                if item.error is not None:
                    raise item.error
                result = await app.ask(item.question)
            except AssistantError as e:
                if e.permanent:  # the question, not the server: asking again would fail again, so it is recorded
                    record = BatchRecord(id=item.id, question=item.question, ok=False, answer="", route=None,
                                         attempts=0, model_calls=0, latency_ms=round((time.perf_counter() - t0) * 1000, 1),
                                         turn_id=None, error=e.one_line())
                else:
                    # The server failed, not the question: leave it unanswered, so that a rerun answers it.
                    stats.unanswered += 1
                    stats.last_error = e.one_line()
                    streak = streak + 1 if isinstance(e, (OllamaUnreachable, ModelMissing)) else 0
                    if streak >= GIVE_UP_AFTER:
                        fatal.append(e)
                    continue
            else:
                streak = 0
                record = BatchRecord(id=item.id, question=item.question, ok=result.ok, answer=result.answer,
                                     route=result.route, attempts=result.attempts, model_calls=result.model_calls,
                                     latency_ms=round((time.perf_counter() - t0) * 1000, 1), turn_id=result.turn_id,
                                     error=result.error, replaced=result.replaced)
            line = record.line(item.extra)
            store.batch_record(job_id, item.index, record.ok, line)  # durable before it is shown
            stats.add(record)
            if ordered:
                pending[item.index] = line
                flush_ordered()
            else:
                output.write(line + "\n")
                output.flush()
            if progress:
                err.write(stats.progress_line(len(done)))
                err.flush()

    workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
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
        if progress:
            err.write("\r\033[K")
            err.flush()
    if fatal:
        e = fatal[0]
        stopped = BatchStopped(f"batch stopped: {e.message}", f"{e.hint} Progress is saved: run the same command again to resume.")
        stopped.exit_code = e.exit_code
        raise stopped
    if ordered:  # questions left unanswered by server errors leave gaps: write what follows them
        for index in range(cursor, total):
            if index in pending:
                output.write(pending.pop(index) + "\n")
            elif index in done:
                output.write(store.batch_line(job_id, index) + "\n")
        output.flush()
    if not stats.unanswered:
        store.finish_batch(job_id)
    print(stats.summary(), file=err)
    return stats


def jobs_table(store: Store) -> str:
    rows = store.batch_jobs()
    if not rows:
        return "no batch jobs"
    width = shutil.get_terminal_size((100, 20)).columns
    lines = [f"{'job':<17}{'done':>14}{'failed':>8}  {'status':<9}{'updated':<25}input"]
    for r in rows:
        lines.append(f"{r['id']:<17}{r['done']:>7}/{r['total']:<6}{r['failed']:>8}  {r['status']:<9}"
                     f"{r['updated_at'][:19]:<25}{r['input']}"[:width])
    return "\n".join(lines)
