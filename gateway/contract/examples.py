"""The contract's examples (CONTRACT.md's, completed to four seats): in the schemas and the paths of
the OpenAPI document, each checked against its schema by tests/gateway_contract."""

from __future__ import annotations

from typing import Any

TIMESTAMP = "2026-12-02T10:00:30.123Z"
GAME_ID = "6f1c2a9e-3b7d-4c51-9a0e-2f8d6b4c1e7a"
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
OPTIONS: dict[str, Any] = {"target_score": 11, "napola": True, "asso_pigliatutto": False}
GAME_OPTIONS: dict[str, Any] = {**OPTIONS, "first_dealer": "drawn", "pace": "live"}  # a new game's: the server sets it
_NAMES = ("alice", "bob", "carol", "dave")
PLAYER = "q3Zr8YkV0bT1mWc9LxPa2g"  # a public player id (secrets.token_urlsafe(16))
_PLAYERS = (PLAYER, "Hn4bXw7Qe2LsKd0uYt5RjA", "c9VmP1zGf8NaWq3ErT6oIu", "Lk2jH7gF5dS3aQ9wE1rTyU")


LOBBY: dict[str, Any] = {
    "id": GAME_ID, "game_type": "scopone_scientifico", "join_code": "K7QX2M", "status": "lobby",
    "options": GAME_OPTIONS, "players": [{"seat": 0, "name": "alice", "team": "A", "is_you": True,
                                         "player": PLAYER}],
    "seats_open": 3, "created_at": "2026-12-02T10:00:00.000Z",
}
LAST_HAND: dict[str, Any] = {
    "hand": 3,
    "teams": {
        "A": {"cards": 22, "denari": 6, "settebello": True, "primiera": 78, "scope": 1, "napola": 3, "points": 7},
        "B": {"cards": 18, "denari": 4, "settebello": False, "primiera": 81, "scope": 0, "napola": 0, "points": 1},
    },
    "award": {"carte": "A", "denara": "A", "settebello": "A", "primiera": "B", "napola": "A"},
    "scores": {"A": 9, "B": 6},
}
PLAYING: dict[str, Any] = {
    "id": GAME_ID, "game_type": "scopone_scientifico", "join_code": "K7QX2M", "status": "playing",
    "options": GAME_OPTIONS,
    "players": [
        {"seat": s, "name": _NAMES[s], "team": "AB"[s % 2], "player": _PLAYERS[s],
         "card_count": 9 if s < 2 else 10,
         "captured_count": 2 if s == 0 else 0, "scope": 0, "is_you": s == 0, "connected": s != 3}
        for s in range(4)
    ],
    "you": 0, "hand": ["01C", "03S", "07D"], "table": ["04B", "06C"],
    "turn": 2, "hand_number": 1, "dealer": 3, "scores": {"A": 0, "B": 0},
    "turn_deadline": "2026-12-02T10:00:30.000Z",
    "last_play": {"seat": 1, "card": "05S", "capture": [], "scopa": False, "auto": False},
    "seed_commitment": COMMITMENT, "revision": 7, "spectators": 0,
}
# Seat 3's view right after its join filled the table: hand 1 of the contract's test-vector seed,
# dealt by seat 1 (drawn from it), so seat 2 leads.
STARTED: dict[str, Any] = {
    **PLAYING,
    "players": [{**player, "card_count": 10, "captured_count": 0, "is_you": player["seat"] == 3}
                for player in PLAYING["players"]],
    "you": 3, "hand": ["01C", "03B", "04S", "05B", "05D", "07B", "08S", "09C", "10B", "10D"], "table": [],
    "turn": 2, "dealer": 1, "last_play": None, "turn_deadline": "2026-12-02T10:05:30.000Z", "revision": 1,
}
MY_GAMES: dict[str, Any] = {"games": [
    {"id": GAME_ID, "game_type": "scopone_scientifico", "join_code": "K7QX2M", "status": "playing",
     "players": [{"seat": s, "name": _NAMES[s], "team": "AB"[s % 2], "is_you": s == 2, "player": _PLAYERS[s]}
                 for s in range(4)],
     "seats_open": 0, "your_turn": True, "updated_at": "2026-12-02T10:12:04.512Z", "pace": "daily",
     "deadline": "2026-12-03T10:12:04.512Z"},
    {"id": "0b7e5d3c-1f2a-4e6b-8c9d-7a6b5c4d3e2f", "game_type": "scopone_scientifico",
     "join_code": "R4TW9P", "status": "lobby",
     "players": [{"seat": 0, "name": "carol", "team": "A", "is_you": True, "player": _PLAYERS[2]}],
     "seats_open": 3, "your_turn": False, "updated_at": "2026-12-02T09:58:41.007Z", "pace": "live"},
]}
OPEN_GAMES: dict[str, Any] = {"games": [
    {"id": "0b7e5d3c-1f2a-4e6b-8c9d-7a6b5c4d3e2f", "game_type": "scopone_scientifico",
     "join_code": "R4TW9P", "status": "lobby",
     "players": [{"seat": 0, "name": "carol", "team": "A", "is_you": False, "player": _PLAYERS[2]},
                 {"seat": 1, "name": "Expert bot", "team": "B", "is_you": False, "bot": "esperto"}],
     "seats_open": 2, "your_turn": False, "updated_at": "2026-12-02T09:58:41.007Z", "pace": "live",
     "options": GAME_OPTIONS, "rating": 1512},
]}
_PHASE_FIELDS = ("turn_deadline", "your_turn", "legal")
HAND_END: dict[str, Any] = {
    **{k: v for k, v in PLAYING.items() if k not in _PHASE_FIELDS},
    "status": "hand_end", "turn": None, "hand": [], "table": [], "hand_number": 3, "dealer": 1,
    "scores": {"A": 9, "B": 6},
    "players": [{**player, "card_count": 0} for player in PLAYING["players"]],
    "last_hand": LAST_HAND, "acknowledged": [0, 2],
    "hand_end_deadline": "2026-12-02T10:20:30.000Z", "revision": 121,
}
FINISHED: dict[str, Any] = {
    **{k: v for k, v in HAND_END.items() if k not in ("acknowledged", "hand_end_deadline")},
    "status": "finished", "hand_number": 5, "dealer": 3, "scores": {"A": 11, "B": 7},
    "last_hand": {**LAST_HAND, "hand": 5, "scores": {"A": 11, "B": 7}},
    "winner": "A", "seed": SEED, "revision": 201,
}
_MATCH_PLAYERS: list[dict[str, Any]] = [
    {"seat": s, "name": _NAMES[s], "team": "AB"[s % 2], "won": s % 2 == 0, "points": 11 if s % 2 == 0 else 7,
     "elo_delta": 16 if s % 2 == 0 else -16, "player": _PLAYERS[s]}
    for s in range(4)
]
MATCH: dict[str, Any] = {
    "id": GAME_ID, "game_type": "scopone_scientifico",
    "started_at": "2026-12-02T10:00:05.000Z", "finished_at": "2026-12-02T10:41:12.345Z", "rated": True,
    "result": {"scores": {"A": 11, "B": 7}, "winner": "A", "target_score": 11, "hands": 5,
               "audit": [LAST_HAND]},
    "players": _MATCH_PLAYERS,
}
# A practice match (bots at seats 1 and 3 from the start) and one bob abandoned: both unrated.
PRACTICE_MATCH: dict[str, Any] = {
    **MATCH, "id": "3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a", "rated": False,
    "players": [{**player, "elo_delta": 0, **({"name": "Expert", "bot": "esperto"} if player["seat"] % 2 else {})}
                for player in _MATCH_PLAYERS],
}
ABANDONED_MATCH: dict[str, Any] = {
    **MATCH, "id": "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d", "rated": False,
    "players": [{**player, "elo_delta": -16 if player["seat"] == 1 else 0,
                 **({"abandoned": True} if player["seat"] == 1 else {})}
                for player in _MATCH_PLAYERS],
}
LOG: dict[str, Any] = {
    "id": GAME_ID, "game_type": "scopone_scientifico", "options": OPTIONS,
    "seats": ["seat:0", "seat:1", "seat:2", "seat:3"], "seed_commitment": COMMITMENT,
    "moves": [
        {"number": 1, "type": "play", "seat": "seat:0", "payload": {"card": "07D", "capture": []}, "auto": False},
        {"number": 2, "type": "auto_play", "seat": "seat:1", "payload": {"card": "05S", "capture": []},
         "auto": True},
        {"number": 41, "type": "ack", "seat": "seat:2", "payload": {}, "auto": False},
        {"number": 44, "type": "continue", "seat": None, "payload": {}, "auto": True},
    ],
    "revision": 44, "status": "playing",
}
# What a spectator sees (CONTRACT.md, Spectators): no join code, no hand, every is_you false.
PUBLIC_LOBBY: dict[str, Any] = {
    **{k: v for k, v in LOBBY.items() if k != "join_code"},
    "players": [{**player, "is_you": False} for player in LOBBY["players"]],
}
PUBLIC_PLAYING: dict[str, Any] = {
    **{k: v for k, v in PLAYING.items() if k not in ("join_code", "you", "hand", "spectators")},
    "players": [{**player, "is_you": False} for player in PLAYING["players"]],
    "spectators": 3,
}
LIVE_GAMES: dict[str, Any] = {"games": [
    {"id": GAME_ID, "game_type": "scopone_scientifico", "status": "playing",
     "players": [{"seat": s, "name": _NAMES[s], "team": "AB"[s % 2], "player": _PLAYERS[s]}
                 for s in range(3)]
                + [{"seat": 3, "name": "Expert bot", "team": "B", "bot": "esperto"}],
     "rating": 1587, "spectators": 3, "hand_number": 2, "scores": {"A": 4, "B": 1},
     "updated_at": "2026-12-02T10:12:04.512Z"},
]}
