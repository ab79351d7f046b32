"""The ``app`` command: serve the planning app in a browser (the ``[app]`` extra)."""

from __future__ import annotations

import importlib.util
from typing import Annotated

import typer

from planner.errors import InvalidInput

APP_HELP = (
    "Serve the planning app: the Plan, Budget and other pages in a browser, computed by this "
    "library, each showing the command that prints its numbers. Serves on 127.0.0.1 (this "
    "computer only) unless --host says otherwise; needs the app extra (pip install '.\\[app]'). "
    "Stop it with Ctrl+C."
)
APP_EPILOG = """
Examples:

  planner app

  planner app --port 8800 --no-browser

  planner app --host 0.0.0.0 --upload-limit-mb 50
"""

#: the packages the app needs beyond planner's own (the [app] extra)
APP_PACKAGES = ("starlette", "uvicorn", "multipart")


def app_command(
    host: Annotated[
        str,
        typer.Option(
            help="Address to serve on; anything but a loopback address (127.0.0.1, ::1, "
            "localhost) lets other computers use the app, and is warned about. "
            "Example: --host 0.0.0.0"
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(help="TCP port, 1 to 65535. Example: --port 8800", min=1, max=65535),
    ] = 8765,
    upload_limit_mb: Annotated[
        float,
        typer.Option(
            "--upload-limit-mb",
            help="Largest upload (a pilot or label file) in megabytes, above 0. "
            "Example: --upload-limit-mb 50",
        ),
    ] = 20.0,
    no_browser: Annotated[
        bool,
        typer.Option("--no-browser", metavar="", help="Do not open a browser window."),
    ] = False,
) -> None:
    missing = [name for name in APP_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise InvalidInput(
            f"planner app needs {', '.join(missing)} (the app extra): install it with "
            "pip install '.[app]'"
        )
    if not upload_limit_mb > 0 or upload_limit_mb > 1e6:
        raise InvalidInput(
            f"upload_limit_mb must be a number in (0, 1e6], got {upload_limit_mb:g}",
            parameter="upload_limit_mb",
            value=upload_limit_mb,
        )
    from planner.web.server import bind, host_warning, serve

    warning = host_warning(host)
    sock = bind(host, port)
    if warning:
        typer.echo(warning, err=True)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    typer.echo(f"planner app: {url} (Ctrl+C to stop)")
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        serve(sock, upload_limit_mb)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
