"""What every part of the contract shares: the base classes of its bodies and its named types.

A response body (:class:`Body`) stays open (CONTRACT: fields may be added, so its schema does not
close it); a request body (:class:`Request`) is closed, like the gateway's reading of it
(gateway.bodies: 400 Unknown field). A field that the contract shows only in some cases is
declared with :func:`absent`: it is left out of the JSON while it is None, never sent as null.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_serializer
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import core_schema
from typing_extensions import TypeAliasType

from bots.catalogue import LEVEL_IDS
from gateway.contract import examples

T = TypeVar("T")

# Left out of the JSON schema: a field declared ``X | Absent = absent(...)`` is optional, never null.
Absent = SkipJsonSchema[None]


class Body(BaseModel):
    """A response body, or a message the server sends."""

    def body(self) -> dict[str, Any]:
        """The JSON value the gateway serves."""
        return self.model_dump(mode="json")


class Request(BaseModel):
    """A request body: only its fields (gateway.bodies reads it with the same field table)."""

    model_config = ConfigDict(extra="forbid")


class Rendered(Body):
    """What a game's engine rendered, with the platform's fields joined in: served as given.

    The fields the engine sets are documented (for scopone scientifico) but pass through as the
    engine rendered them (:data:`Engine`): other game types render their own, and fields the
    model does not name pass through too (after the named ones). What the platform joins in is
    validated. A field is in the JSON when it was given (:func:`given`), so the fields the engine
    left out stay out. Rendered for every seat at every change: one call per object, no more.
    """

    model_config = ConfigDict(extra="allow")

    @model_serializer(mode="plain")
    def _as_given(self) -> dict[str, Any]:
        given = self.model_fields_set
        data = {name: value for name, value in self.__dict__.items() if name in given}  # declared order
        if self.__pydantic_extra__:
            data.update(self.__pydantic_extra__)
        return data


class _AsRendered:
    """Marks an engine's field: documented by its type, passed through unvalidated (any JSON). A
    model named in such a type must be one of gateway.contract.MODELS, or its reference dangles."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        documented = handler(source)
        return core_schema.any_schema(
            metadata={"pydantic_js_annotation_functions": [lambda _schema, to_json: to_json(documented)]})


# A field the game's engine renders: ``Engine[LastPlay | None]`` (to the type checker: that, or
# anything the engine sends).
if TYPE_CHECKING:
    Engine = Annotated[T | Any, _AsRendered]
else:
    Engine = Annotated[T, _AsRendered]


class OneOf:
    """A string among ``values``: a plain ``str`` to the type checker, an enum in the schema."""

    def __init__(self, *values: str):
        self.values = [str(value) for value in values]

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        return core_schema.literal_schema(self.values)


def rendered_always(*names: str) -> Any:
    """A model's ``json_schema_extra``: ``names`` are required in the documentation (scopone's
    views always carry them) but not checked (other game types may render without them)."""

    def require(schema: dict[str, Any]) -> None:
        schema["required"] = [*schema.get("required", ()), *names]

    return require


def _is_none(value: Any) -> bool:
    return value is None


def absent(description: str, **keywords: Any) -> Any:
    """A field present only when it has a value: left out of the JSON while None."""
    return Field(None, description=description, exclude_if=_is_none, **keywords)


def given(description: str, **keywords: Any) -> Any:
    """A field of a :class:`Rendered` body that is in the JSON when it was given (even as null)."""
    return Field(None, description=description, **keywords)


def timestamp(description: str) -> Any:
    """A timestamp of the contract's: ISO 8601 in UTC with milliseconds and a ``Z``."""
    return Field(description=f"{description} ISO 8601, UTC, milliseconds, `Z`.",
                 json_schema_extra={"format": "date-time"}, examples=[examples.TIMESTAMP])


def timestamp_given(description: str) -> Any:
    """:func:`timestamp` of a :class:`Rendered` body, present only in some phases."""
    return given(f"{description} ISO 8601, UTC, milliseconds, `Z`.",
                 json_schema_extra={"format": "date-time"}, examples=[examples.TIMESTAMP])


HEX64 = "^[0-9a-f]{64}$"

PLAYER_ID = "^[A-Za-z0-9_-]{16,}$"
PLAYER_ID_TEXT = ("The member's public player id: opaque and stable, at least 16 characters of "
                  "`[A-Za-z0-9_-]`, never the OIDC subject. Erasing the member makes it unknown.")


# A public player id; ``PlayerId | Absent`` for one present only when known.
PlayerId = Annotated[str, Field(pattern=PLAYER_ID, examples=[examples.PLAYER])]


def player_id(description: str = PLAYER_ID_TEXT) -> Any:
    """A required ``player``: a member's public player id."""
    return Field(description=description)


SEAT_PLAYER_TEXT = (f"{PLAYER_ID_TEXT} Present for a person's seat, also while a bot plays it for "
                    "them (`took_over`), and for an erased member's seat (\"deleted player\": an id that "
                    "is nobody's, its page 404); absent for a bot's own seat.")


def seat_player_id() -> Any:
    """The ``player`` of a players item: present for a person's seat (also while a bot plays it
    for them, ``took_over``, or erased: gateway.views.public_id), absent for a bot's own seat."""
    return absent(SEAT_PLAYER_TEXT)
NOT_BLANK = r"\S"  # JSON Schema patterns are searched, not matched: one character that is not a blank
# The blanks of that `\s` (ECMA-262's, as JSON Schema reads it), for the gateway to strip the same:
# Python's str.strip() also takes U+001C..U+001F and U+0085, and leaves U+FEFF.
BLANKS = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
         "\u2028\u2029\u202f\u205f\u3000\ufeff"

Team = TypeAliasType("Team", Annotated[str, OneOf("A", "B"),
                                       Field(description="`A` = seats 0 and 2, `B` = seats 1 and 3.")])
Card = TypeAliasType("Card", Annotated[str, Field(
    pattern="^(0[1-9]|10)[DCSB]$", examples=["07D"],
    description="Rank `01`..`10` (08 fante, 09 cavallo, 10 re) then suit: `D` denari, `C` coppe, `S` spade, "
                "`B` bastoni. `07D` is the settebello.")])
# The options of a game: each game type's follow its options_schema. gateway.openapi puts the game
# types' own schemas (from the game service's registry) in place of this one.
Options = TypeAliasType("Options", Annotated[dict[str, Any], Field(
    description="The options of a game (in a view: with every default filled in). Each game type's options "
                "follow its `options_schema` (GET /api/game-types); an unknown option is refused.")])

Seat = Annotated[int, Field(ge=0, le=3, description="The seat, 0..3 in join order (the creator sits at 0).")]
GameId = Annotated[str, Field(
    description="The game id (a lowercase uuid), also the id of its table once started.",
    json_schema_extra={"format": "uuid"}, examples=[examples.GAME_ID])]
# A game type a request names. Any string in docs/openapi.json (made without a server); the served
# document lists the catalogue's ids (gateway.openapi), since the gateway refuses any other (400).
KnownGameType = TypeAliasType("KnownGameType", Annotated[str, Field(
    description="A game type id of GET /api/game-types; any other is 400 `Unknown game type: <id>`.",
    examples=["scopone_scientifico"])])
GameTypeId = Annotated[str, Field(description="The game type id.", examples=["scopone_scientifico"])]
JoinCode = Annotated[str, Field(
    pattern="^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$", examples=["K7QX2M"],
    description="6 characters from `ABCDEFGHJKMNPQRSTUVWXYZ23456789`, unique among live games.")]
Name = Annotated[str, Field(description="The player's display name (\"deleted player\" once erased).",
                            examples=["alice"])]
# One of the levels (bots.catalogue); documented as a string, since clients read the levels from
# GET /api/game-types (`bot_levels`), not from the document.
BotLevelId = Annotated[str, OneOf(*LEVEL_IDS), WithJsonSchema({"type": "string", "examples": list(LEVEL_IDS)})]
