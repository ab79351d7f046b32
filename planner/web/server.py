"""The HTTP face of the planning app (Starlette on uvicorn; the ``[app]`` extra).

``GET /<page>?<query>`` renders the page on the server from the URL query (a link
reproduces the view without JavaScript). The page's own script posts the form (multipart,
with any upload) to ``POST /api/<page>`` on every change and shows the answer; a computation
that takes longer than a moment becomes a job the script polls (``GET /api/jobs/<id>``,
with its progress) and may cancel (``POST /api/jobs/<id>/cancel``). Uploads are limited in
size and read into memory, never from a path the browser names.

The server keeps no state per user: results are cached by what determines them
(:mod:`planner.web.jobs`), jobs are known by a random id, and the values and bytes of the
last few uploads are kept in memory under a random key for their report link
(``GET /<page>/report?upload=KEY``, :class:`planner.web.jobs.KeptUploads`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ipaddress
import logging
import re
import socket
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from planner.errors import InvalidInput
from planner.web.jobs import Cancelled, Job, KeptUploads, Runner
from planner.web.page import Page, draw_seed, parse_values, seed_note
from planner.web.render import document_html, form_html, index_html, message_html, result_html

LOG = logging.getLogger("planner.web")
STATIC = Path(__file__).parent / "static"
#: the default upload limit (``planner app --upload-limit-mb``)
UPLOAD_LIMIT_MB = 20.0
#: seconds ``POST /api/<page>`` waits for an answer before handing back a job to poll
ANSWER_WAIT = 1.0
#: seconds to wait for the whole result before computing a page's quick preview
PREVIEW_WAIT = 0.05
_FLAG = re.compile(r"--([a-z][a-z0-9-]*)")


def host_warning(host: str) -> str | None:
    """One line of warning when ``host`` is not a loopback address (the app has no login)."""
    if host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    return (
        f"warning: serving on {host}, not only this computer: anyone who reaches it can use "
        "the app (it has no login)"
    )


def _plain(message: str) -> str:
    """A message in parameter names (``--error-rate`` becomes ``error_rate``)."""
    return _FLAG.sub(lambda m: m.group(1).replace("-", "_"), message)


def field_errors(page: Page, exc: InvalidInput) -> tuple[dict[str, str], str]:
    """Where an input error goes: ``({field: message}, "")``, or ``({}, message)`` when no
    field of the page is named (the parameter, the message's first word, then the others)."""
    message = _plain(str(exc))
    names = {f.name for f in page.fields}
    first = message.split(" ", 1)[0].rstrip(":,")
    for candidate in (exc.parameter, first, *exc.parameters):
        if not candidate:
            continue
        for name in (candidate, candidate.removesuffix("_file")):
            if name in names:
                return {name: message}, ""
    return {}, message


def canonical_query(page: Page, query: Mapping[str, str]) -> str:
    """The URL query of a page's state: fields that differ from their default, and the seed."""
    pairs = []
    for spec in page.fields:
        text = query.get(spec.name)
        if spec.kind == "file" or text is None:
            continue
        text = text.strip()
        default = spec.default or ""
        if spec.kind == "flag":
            on = text.lower() in ("1", "true", "on", "yes")
            text, default = ("1" if on else "0"), ("1" if default else "0")
        if text != default or spec.name == "seed":
            pairs.append((spec.name, text))
    return urlencode(pairs)


def with_drawn_seed(
    page: Page, values: dict[str, Any], query: Mapping[str, str]
) -> tuple[dict[str, Any], Mapping[str, str], int | None]:
    """A page with a ``seed`` field left empty gets one seed drawn for this computation,
    carried into its values and its query (so the command, the Python code, the scenario
    file and the report link all use it); ``None`` as the third item when the seed was given
    or the page has none."""
    if "seed" not in values or values["seed"] is not None:
        return values, query, None
    drawn = draw_seed()
    return {**values, "seed": drawn}, {**query, "seed": str(drawn)}, drawn


def safe_filename(name: str | None) -> str:
    """The base name of an uploaded file, reduced to letters, digits, ``.``, ``-``, ``_``."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", Path(name or "").name)[:80].lstrip(".")
    return base or "upload"


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def _finishes(job: Job, wait: float | None) -> bool:
    """Whether the job ends within ``wait`` seconds (None: wait for it)."""
    assert job.future is not None
    if job.future.done():
        return True
    waiter = asyncio.wrap_future(job.future)
    waiter.add_done_callback(_retrieved)  # its outcome is read from job.future
    try:
        await asyncio.wait_for(asyncio.shield(waiter), wait)
    except TimeoutError:
        return False
    except Exception:  # the job's own error: reported by _finished
        pass
    return True


class PlannerApp:
    """The app's pages, its runner and its routes (one instance per server)."""

    def __init__(self, pages: Sequence[Page], upload_limit_mb: float = UPLOAD_LIMIT_MB) -> None:
        self.pages = {p.slug: p for p in pages}
        self.upload_limit = int(upload_limit_mb * 2**20)
        self.upload_limit_mb = upload_limit_mb
        self.runner = Runner()
        self.uploads = KeptUploads()
        digest = hashlib.sha256()
        for asset in sorted(STATIC.iterdir()):
            digest.update(asset.read_bytes())
        self.asset_version = digest.hexdigest()[:10]

    # ------------------------------------------------------------------ computing
    def _finished(
        self, page: Page, job: Job, report: str | None = None, drawn: int | None = None
    ) -> dict[str, Any]:
        """The answer of a finished job: the result, the errors beside fields, or one line
        (``report``: the address of the result's report, when the page writes one;
        ``drawn``: the seed drawn for it, said in a note)."""
        assert job.future is not None
        try:
            result = job.future.result()
            if drawn is not None:
                result = replace(result, notes=(seed_note(drawn), *result.notes))
        except InvalidInput as exc:
            errors, general = field_errors(page, exc)
            return {"status": "error", "errors": errors, "error": general}
        except Cancelled:
            return {"status": "cancelled", "errors": {}, "error": "cancelled"}
        except Exception as exc:  # an unexpected failure: one line here, the rest in the log
            LOG.exception("page %s failed", page.slug)
            line = f"internal error ({type(exc).__name__}): {exc}".splitlines()[0]
            return {"status": "error", "errors": {}, "error": line + " (logged by the server)"}
        return {
            "status": "done",
            "errors": {},
            "error": "",
            "headline": dict(result.headline),
            "html": result_html(result, report if result.reportable else None),
        }

    async def answer(
        self,
        page: Page,
        query: Mapping[str, str],
        files: Mapping[str, tuple[str, bytes]],
        wait: float | None,
    ) -> dict[str, Any]:
        """Compute the page for a query and uploads; wait at most ``wait`` seconds (None: to
        the end) before answering with the job to poll."""
        try:
            values = parse_values(page, query)
        except InvalidInput as exc:
            errors, general = field_errors(page, exc)
            return {"status": "error", "errors": errors, "error": general}
        values, query, drawn = with_drawn_seed(page, values, query)
        for spec in page.fields:  # a file field's value: the uploaded file's safe base name
            if spec.kind == "file":
                values[spec.name] = files[spec.name][0] if spec.name in files else None
        contents = {k: v[1] for k, v in files.items()}
        job = self.runner.compute(page, values, contents)
        report = None
        if page.report is not None and not files:  # a report is built from the URL alone
            report = f"/{page.slug}/report?{canonical_query(page, query)}"
        elif page.report is not None:  # from the upload, kept in memory under a random key
            report = f"/{page.slug}/report?upload={self.uploads.keep(page.slug, values, contents)}"
        job.context = (page, report, drawn)
        if await _finishes(job, wait if page.preview is None else PREVIEW_WAIT):
            return self._finished(page, job, report, drawn)
        running = {"status": "running", "job": job.id, "done": job.done, "total": job.total}
        if page.preview is not None:  # the quick part while the rest is computed
            quick = replace(page, slug=page.slug + "#preview", compute=page.preview, preview=None)
            preview = self.runner.compute(quick, values, contents)
            if await _finishes(preview, wait):
                shown = self._finished(page, preview)
                if shown["status"] != "done":
                    return shown  # an input error shows at once
                running["html"] = shown["html"]
                running["headline"] = shown["headline"]
            if await _finishes(job, 0):
                return self._finished(page, job, report, drawn)
        return running

    # ------------------------------------------------------------------ routes
    def _page(self, request: Request) -> Page | None:
        return self.pages.get(request.path_params["slug"])

    async def index(self, request: Request) -> Response:
        return HTMLResponse(index_html(list(self.pages.values()), self.asset_version))

    async def page(self, request: Request) -> Response:
        page = self._page(request)
        if page is None:
            return HTMLResponse(message_html("no such page", "not-found"), status_code=404)
        query = dict(request.query_params)
        answer = await self.answer(page, query, {}, wait=None)
        state = answer["status"]
        if "html" in answer:  # done, or the preview while the rest is computed
            result = answer["html"]
            state = "done" if state == "done" else "preview"
        elif not query:  # a first visit: what the page needs, as a hint, not an error
            needs = answer.get("error") or " ".join(answer.get("errors", {}).values())
            result = message_html(f"To start: {needs}.", "hint")
            answer["errors"] = {}
        elif answer.get("error"):
            result = message_html(answer["error"])
        else:
            result = message_html("Correct the value marked beside its field.", "hint")
        form = form_html(page, query, answer.get("errors", {}))
        pages = list(self.pages.values())
        body = document_html(page, pages, form, result, self.asset_version, state)
        return HTMLResponse(body)

    async def _read_form(
        self, request: Request
    ) -> tuple[dict[str, str], dict[str, tuple[str, bytes]]] | Response:
        """The posted fields and uploads, or a one-line 413 past the upload limit."""
        refused = JSONResponse(
            {
                "status": "error",
                "errors": {},
                "error": f"the upload is larger than the limit of {self.upload_limit_mb:g} MB "
                "(planner app --upload-limit-mb)",
            },
            status_code=413,
        )
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.upload_limit:
            return refused
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > self.upload_limit:
                return refused
        request._body = bytes(body)  # the form parser reads the body we counted
        form = await request.form(max_part_size=self.upload_limit + 1)
        query: dict[str, str] = {}
        files: dict[str, tuple[str, bytes]] = {}
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                content = await value.read()
                if content:
                    files[key] = (safe_filename(value.filename), content)
            else:
                query[key] = value
        return query, files

    async def api(self, request: Request) -> Response:
        page = self._page(request)
        if page is None:
            return JSONResponse({"status": "error", "error": "no such page"}, status_code=404)
        read = await self._read_form(request)
        if isinstance(read, Response):
            return read
        query, files = read
        start = time.perf_counter()
        answer = await self.answer(page, query, files, wait=ANSWER_WAIT)
        took = (time.perf_counter() - start) * 1000
        answer["query"] = canonical_query(page, query)
        # the server's time to this answer (the headline, or the job), for benchmarks/app_speed.py
        return JSONResponse(answer, headers={"server-timing": f"answer;dur={took:.1f}"})

    async def report(self, request: Request) -> Response:
        """The page's report, built on request (an HTML download): for the URL's values, or
        (``?upload=KEY``) for the values and uploaded bytes kept under that random key."""
        page = self._page(request)
        if page is None or page.report is None:
            return HTMLResponse(message_html("no such report", "not-found"), status_code=404)
        query = dict(request.query_params)
        files: Mapping[str, bytes] = {}
        if "upload" in query:  # the values and bytes kept from the request that computed it
            kept = self.uploads.get(query["upload"], page.slug)
            if kept is None:
                line = "this report's upload is no longer kept: upload the file again"
                return HTMLResponse(message_html(line, "not-found"), status_code=404)
            values, files = kept
        try:
            if "upload" not in query:
                values = parse_values(page, query)
            loop = asyncio.get_running_loop()
            download = await loop.run_in_executor(None, page.report, values, files)
        except InvalidInput as exc:
            errors, general = field_errors(page, exc)
            line = general or next(iter(errors.values()))
            return HTMLResponse(message_html(line), status_code=400)
        except Exception as exc:  # one line here, the rest in the log
            LOG.exception("report of %s failed", page.slug)
            line = f"internal error ({type(exc).__name__}): {exc}".splitlines()[0]
            return HTMLResponse(message_html(line + " (logged by the server)"), status_code=500)
        disposition = f'attachment; filename="{safe_filename(download.filename)}"'
        return Response(
            download.content,
            media_type=download.media_type,
            headers={"content-disposition": disposition},
        )

    async def job(self, request: Request) -> Response:
        job = self.runner.job(request.path_params["job_id"])
        if job is None or job.future is None:
            return JSONResponse({"status": "error", "error": "no such job"}, status_code=404)
        if not job.future.done():
            return JSONResponse({"status": "running", "done": job.done, "total": job.total})
        page, report, drawn = job.context
        return JSONResponse(self._finished(page, job, report, drawn))

    async def cancel(self, request: Request) -> Response:
        job = self.runner.job(request.path_params["job_id"])
        if job is None:
            return JSONResponse({"status": "error", "error": "no such job"}, status_code=404)
        job.cancel.set()
        return JSONResponse({"status": "cancelled"})

    def routes(self) -> list[Any]:
        return [
            Route("/", self.index),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
            Route("/api/jobs/{job_id}", self.job),
            Route("/api/jobs/{job_id}/cancel", self.cancel, methods=["POST"]),
            Route("/api/{slug}", self.api, methods=["POST"]),
            Route("/{slug}", self.page),
            Route("/{slug}/report", self.report),
        ]


def create_app(
    pages: Sequence[Page] | None = None, upload_limit_mb: float = UPLOAD_LIMIT_MB
) -> Starlette:
    """The ASGI application serving ``pages`` (default: every page of
    :data:`planner.web.pages.PAGES`)."""
    if pages is None:
        from planner.web.pages import PAGES

        pages = PAGES
    planner_app = PlannerApp(pages, upload_limit_mb)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        planner_app.runner.shutdown()

    app = Starlette(routes=planner_app.routes(), lifespan=lifespan)
    app.state.planner = planner_app
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; InvalidInput naming the port when it is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InvalidInput(
            f"port {port} on {host} cannot be used ({exc.strerror}): choose another port",
            parameter="port",
            value=port,
        ) from None
    sock.listen(128)
    return sock


def serve(sock: socket.socket, upload_limit_mb: float = UPLOAD_LIMIT_MB) -> None:
    """Serve the app on a bound socket until interrupted (Ctrl+C)."""
    import uvicorn

    config = uvicorn.Config(create_app(upload_limit_mb=upload_limit_mb), log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


class BackgroundServer:
    """The app served from a thread on a free port, for tests and automation.

    >>> with BackgroundServer() as server:  # doctest: +SKIP
    ...     server.url
    'http://127.0.0.1:53411/'
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        upload_limit_mb: float = UPLOAD_LIMIT_MB,
        pages: Sequence[Page] | None = None,
    ) -> None:
        import uvicorn

        self.socket = bind(host, port)
        self.url = f"http://{host}:{self.socket.getsockname()[1]}/"
        app = create_app(pages, upload_limit_mb)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self._thread: threading.Thread | None = None

    def __enter__(self) -> BackgroundServer:
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the app did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.socket.close()
