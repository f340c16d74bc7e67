"""/api/openapi.json, /api/docs and its Swagger UI assets, served from the installed package (no CDN)."""

from __future__ import annotations

import re

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from game.client import GameType
from gateway import openapi
from services.rpc.errors import Reason, ServiceError
from tests.gateway_contract.support import registry_game_types


class Catalogue:
    """The gateway's kept game types (gateway.game_types): ``types``, or a lobby that is down."""

    def __init__(self, types: list[GameType] | None):
        self.types = types
        self.asked = 0

    async def get(self) -> list[GameType]:
        self.asked += 1
        if self.types is None:
            raise ServiceError(Reason.UNAVAILABLE, "the lobby is down")
        return self.types


def _app(catalogue: Catalogue) -> Starlette:
    app = Starlette(routes=openapi.routes())
    app.state.game_types = catalogue
    return app


@pytest.fixture(scope="module")
def client():
    with TestClient(_app(Catalogue(registry_game_types()))) as test_client:
        yield test_client


def _references(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]+)"', page)


def test_the_document_is_served_as_json(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == openapi.spec(registry_game_types())


def test_the_document_is_made_once_per_catalogue(monkeypatch):
    calls = []
    real = openapi.spec
    monkeypatch.setattr(openapi, "spec", lambda types: calls.append(types) or real(types))
    catalogue = Catalogue(registry_game_types())
    with TestClient(_app(catalogue)) as client:
        assert client.get("/api/openapi.json").status_code == 200
        assert client.get("/api/openapi.json").status_code == 200
        assert len(calls) == 1
        chess = GameType("chess", "Chess", "Kings.", 2, '{"type": "object", "properties": {}}')
        catalogue.types = [*catalogue.types, chess]  # a deploy brought a game type
        schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    assert len(calls) == 2 and catalogue.asked == 3
    assert {"ScoponeScientificoOptions", "ChessOptions"} <= set(schemas)


def test_without_the_lobby_the_document_is_served_with_any_options():
    catalogue = Catalogue(None)
    with TestClient(_app(catalogue)) as client:
        response = client.get("/api/openapi.json")
        assert response.status_code == 200
        assert response.json()["components"]["schemas"]["Options"]["type"] == "object"
        catalogue.types = registry_game_types()  # the lobby is back: the options come with it
        options = client.get("/api/openapi.json").json()["components"]["schemas"]["Options"]
    assert options["anyOf"] == [{"$ref": "#/components/schemas/ScoponeScientificoOptions"}]


def test_the_docs_page_loads_swagger_ui_from_our_static_folder_only(client):
    response = client.get("/api/docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    page = response.text
    references = _references(page)
    assert "/api/docs/static/swagger-ui-bundle.js" in references
    assert "/api/docs/static/swagger-ui.css" in references
    assert all(ref.startswith("/api/docs/static/") for ref in references), references
    assert not re.search(r"https?://|//[a-z]", page, re.IGNORECASE)


def test_the_docs_page_points_swagger_ui_at_the_document(client):
    page = client.get("/api/docs").text
    assert 'url: "/api/openapi.json"' in page
    assert "validatorUrl: null" in page  # else Swagger UI asks an online validator about the document


def test_every_asset_the_page_references_is_served(client):
    for reference in _references(client.get("/api/docs").text):
        assert client.get(reference).status_code == 200, reference


def test_the_swagger_ui_bundle_is_served(client):
    response = client.get("/api/docs/static/swagger-ui-bundle.js")
    assert response.status_code == 200
    assert "javascript" in response.headers["content-type"]
    assert "SwaggerUIBundle" in response.text


def test_an_unknown_asset_is_404(client):
    assert client.get("/api/docs/static/no-such-file.js").status_code == 404


def test_the_docs_routes_are_get_only(client):
    assert client.post("/api/openapi.json").status_code == 405
    assert client.head("/api/docs").status_code == 200
