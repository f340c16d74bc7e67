"""The SPA from STATIC_DIR: its files, index.html for page routes, the contract's 404 for the rest."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from gateway.spa import PLACEHOLDER, SinglePageApp

PAGE = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def _client(static_dir) -> TestClient:
    app = Starlette(routes=[Route("/{path:path}", SinglePageApp(str(static_dir)).page)])
    return TestClient(app)


@pytest.fixture
def built(tmp_path):
    (tmp_path / "index.html").write_text("<!doctype html><title>app</title>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.js").write_text("console.log('tavolo')")
    (tmp_path.parent / "secret.txt").write_text("outside STATIC_DIR")
    return tmp_path


def test_files_are_served_and_page_routes_get_the_index(built):
    client = _client(built)
    assert client.get("/assets/app.js").text == "console.log('tavolo')"
    for path in ("/", "/games/K7QX2M", "/me/history/", "/history", "/history/6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a",
                 "/leaderboard", "/me", "/join/K7QX2M"):
        response = client.get(path, headers=PAGE)
        assert response.status_code == 200 and response.text.endswith("<title>app</title>")
        assert response.headers["cache-control"] == "no-cache"


def test_hashed_assets_are_cached_for_good_other_files_are_not(built):
    (built / "favicon.svg").write_text("<svg/>")
    client = _client(built)
    assert client.get("/assets/app.js").headers["cache-control"] == (
        "public, max-age=31536000, immutable")
    assert "cache-control" not in client.get("/favicon.svg").headers


def test_anything_else_unknown_is_the_contract_404(built):
    client = _client(built)
    for path, headers in (("/games/K7QX2M", {}), ("/assets/gone.js", PAGE), ("/api/nothing", PAGE),
                          ("/ws/games/x", PAGE), ("/../secret.txt", PAGE), ("/%2e%2e/secret.txt", {})):
        response = client.get(path, headers=headers)
        assert response.status_code == 404, path
        assert response.json() == {"detail": "Not Found"}


def test_without_a_build_the_placeholder_stands_in_for_the_index(tmp_path):
    response = _client(tmp_path).get("/", headers=PAGE)
    assert response.status_code == 200 and response.text == PLACEHOLDER
