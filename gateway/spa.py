"""The single-page app: files from STATIC_DIR, and index.html for the client's own routes.

CONTRACT.md: unknown routes are 404 ``{"detail": "Not Found"}``. A client route of the SPA
(``/games/K7QX2M``) is only a route for a browser navigating to it, so the index is the answer
to ``/`` and to page requests (``Accept: text/html``) for paths that are not files; anything
else unknown (scripts, ``curl``, a missing asset) gets the contract's 404.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response

_API_PREFIXES = ("/api/", "/auth/", "/ws/")
# Vite names every built asset after its content hash (assets/index-3f9a1c.js): a changed file
# is a new name, so browsers may keep these for good; index.html, which names them, never.
_HASHED_ASSETS = "/assets/"
_IMMUTABLE = "public, max-age=31536000, immutable"

PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tavolo</title></head>
<body><h1>tavolo</h1>
<p>The web app is not built into this installation (STATIC_DIR has no index.html).</p>
<p><a href="/auth/login">Log in</a> · <a href="/api/docs">API documentation</a></p>
</body></html>
"""


class SinglePageApp:
    def __init__(self, static_dir: str):
        self.root = Path(static_dir).resolve()
        self.index = self.root / "index.html"

    async def page(self, request: Request) -> Response:
        """GET/HEAD of any path no other route serves."""
        path = request.url.path
        if path.startswith(_API_PREFIXES) or path in ("/api", "/auth", "/ws"):
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        candidate = (self.root / path.lstrip("/")).resolve()
        if candidate.is_file() and candidate.is_relative_to(self.root):
            if path.startswith(_HASHED_ASSETS):
                return FileResponse(candidate, headers={"Cache-Control": _IMMUTABLE})
            return FileResponse(candidate)
        if path != "/" and not _page_request(request, path):
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        if self.index.is_file():
            return FileResponse(self.index, headers={"Cache-Control": "no-cache"})
        return HTMLResponse(PLACEHOLDER)


def _page_request(request: Request, path: str) -> bool:
    """A browser asking for a page of the app: it accepts HTML, and the path names no file."""
    accepts_html = "text/html" in request.headers.get("accept", "").lower()
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return accepts_html and "." not in last
