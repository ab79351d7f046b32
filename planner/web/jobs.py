"""Running a page's computation: a bounded cache of results and cancellable jobs.

Nothing here belongs to a user: a result is cached by what determines it (the page, its
values and the uploaded files' digests), so two browser sessions asking the same question
share the answer and sessions asking different questions never see each other's. A job is
known only by its random id; its progress callback raises :class:`Cancelled` once its
cancel flag is set, which ends the library's computation at its next step.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from planner.web.page import Page, PageResult

#: results kept (a Plan page's result is a few hundred kilobytes with its figure)
CACHE_SIZE = 256
#: seconds a finished job's result stays claimable by its id
JOB_TTL = 600.0


#: uploads kept in memory for their report links (the oldest is forgotten first)
UPLOADS_KEPT = 16


class Cancelled(Exception):
    """The user cancelled the computation (raised by a job's progress callback)."""


def cache_key(page: Page, values: Mapping[str, Any], files: Mapping[str, bytes]) -> Hashable:
    """What a result depends on: the page, every value and each uploaded file's SHA-256."""
    digests = tuple(sorted((k, hashlib.sha256(v).hexdigest()) for k, v in files.items()))
    return (page.slug, tuple(sorted((k, repr(v)) for k, v in values.items())), digests)


class ResultCache:
    """A thread-safe least-recently-used map from :func:`cache_key` to a page's result."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, PageResult] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> PageResult | None:
        """The cached result, or None (and the key becomes the most recently used)."""
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: Hashable, result: PageResult) -> None:
        """Keep ``result``; the least recently used entry goes when the cache is full."""
        with self._lock:
            self._items[key] = result
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


class Computation:
    """One computation of a page for one cache key, shared by every job that asks for it
    while it runs; it stops (at its next step) once every one of those jobs is cancelled."""

    def __init__(self) -> None:
        self.jobs: list[Job] = []
        self.done = 0
        self.total = 0
        self.future: Future[PageResult] | None = None

    def progress(self, done: int, total: int) -> None:
        """The progress callback handed to ``Page.compute``; raises once all cancelled."""
        if self.jobs and all(job.cancel.is_set() for job in self.jobs):
            raise Cancelled("cancelled")
        self.done, self.total = done, total


@dataclass
class Job:
    """One request's view of a computation: its cancel flag, and the computation's future."""

    id: str
    future: Future[PageResult] | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    finished_at: float | None = None
    #: what the server needs to answer for the job (the page it computes)
    context: Any = None
    computation: Computation | None = None

    @property
    def done(self) -> int:
        """Steps done so far."""
        return self.computation.done if self.computation else 0

    @property
    def total(self) -> int:
        """Steps in all (0 while unknown)."""
        return self.computation.total if self.computation else 0


class Runner:
    """Computes pages on a small thread pool, through the cache, as jobs known by their id."""

    def __init__(self, workers: int = 4, cache: ResultCache | None = None) -> None:
        self.cache = cache or ResultCache()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="planner-page")
        self._jobs: dict[str, Job] = {}
        self._running: dict[Hashable, Computation] = {}
        self._lock = threading.Lock()

    def compute(self, page: Page, values: Mapping[str, Any], files: Mapping[str, bytes]) -> Job:
        """Start (join, or answer from the cache) the page's computation; the job that holds it."""
        job = Job(id=secrets.token_urlsafe(12))
        key = cache_key(page, values, files)
        cached = self.cache.get(key)
        with self._lock:
            self._forget_old()
            self._jobs[job.id] = job
            if cached is not None:
                job.future = Future()
                job.future.set_result(cached)
                job.finished_at = time.monotonic()
                return job
            computation = self._running.get(key)
            if computation is None or computation.future is None or computation.future.done():
                computation = Computation()
                self._running[key] = computation
                computation.future = self._pool.submit(
                    self._run, computation, key, page, values, files
                )
            computation.jobs.append(job)
            job.computation, job.future = computation, computation.future
        return job

    def _run(
        self,
        computation: Computation,
        key: Hashable,
        page: Page,
        values: Mapping[str, Any],
        files: Mapping[str, bytes],
    ) -> PageResult:
        try:
            computation.progress(0, 0)
            result = page.compute(values, files, computation.progress)
            self.cache.put(key, result)
            return result
        finally:
            with self._lock:
                if self._running.get(key) is computation:
                    del self._running[key]
                for job in computation.jobs:
                    job.finished_at = time.monotonic()

    def job(self, job_id: str) -> Job | None:
        """The job with this id, or None (unknown, or forgotten after :data:`JOB_TTL`)."""
        with self._lock:
            return self._jobs.get(job_id)

    def _forget_old(self) -> None:
        now = time.monotonic()
        old = [k for k, j in self._jobs.items() if j.finished_at and now - j.finished_at > JOB_TTL]
        for job_id in old:
            del self._jobs[job_id]

    def shutdown(self) -> None:
        """Cancel every job and stop the pool (the server is stopping)."""
        with self._lock:
            for job in self._jobs.values():
                job.cancel.set()
        self._pool.shutdown(wait=False, cancel_futures=True)


class KeptUploads:
    """The values and uploaded bytes of recent requests, in memory, each under a random key
    (what a page's report link carries: only who computed the page knows it).

    At most ``size`` are kept; the least recently kept or used goes first, and a request
    that repeats the last one's page, values and bytes reuses its key (a page posts its
    form on every change). Nothing is written to disk.
    """

    def __init__(self, size: int = UPLOADS_KEPT) -> None:
        self._size = size
        self._items: OrderedDict[str, tuple[str, Mapping[str, Any], Mapping[str, bytes]]] = (
            OrderedDict()
        )
        self._keys: dict[Hashable, str] = {}
        self._lock = threading.Lock()

    def keep(self, slug: str, values: Mapping[str, Any], files: Mapping[str, bytes]) -> str:
        """Keep the page's values and uploads; the random key to claim them by."""
        digests = tuple(sorted((k, hashlib.sha256(v).hexdigest()) for k, v in files.items()))
        identity = (slug, tuple(sorted((k, repr(v)) for k, v in values.items())), digests)
        with self._lock:
            key = self._keys.get(identity)
            if key is None or key not in self._items:
                key = secrets.token_urlsafe(18)
                self._items[key] = (slug, dict(values), dict(files))
                self._keys[identity] = key
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                gone, _ = self._items.popitem(last=False)
                self._keys = {k: v for k, v in self._keys.items() if v != gone}
            return key

    def get(self, key: str, slug: str) -> tuple[Mapping[str, Any], Mapping[str, bytes]] | None:
        """The values and uploads kept under ``key`` for page ``slug``, or None."""
        with self._lock:
            kept = self._items.get(key)
            if kept is None or kept[0] != slug:
                return None
            self._items.move_to_end(key)
            return kept[1], kept[2]
