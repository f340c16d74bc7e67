"""tools/verify_deal.py, the stand-alone deal verifier, run as a third party runs it: a separate
Python process (isolated mode, from another directory) reading a log's JSON.

The real logs are whole matches played through the game service (in memory, over gRPC) and read
the way GET /api/games/{id}/log reads and renders them. The player-entropy logs are built from
the engine keyed with K, as the seeding phase (issue 33) will number them.
"""

from __future__ import annotations

import ast
import asyncio
import copy
import hashlib
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from game import fairness
from game.cache import MemoryTableCache
from game.client import GameClient
from game.engine import Move
from game.memory_log_store import MemoryLogStore
from game.registry import default_registry
from game.scopone import ScoponeEngine, rules
from game.server import build_tables
from gateway.games import _whole_log
from gateway.views import table_log
from tests.game_service.conftest import serving

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "verify_deal.py"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "log_before_the_draw.json"
SEATS = ["seat:0", "seat:1", "seat:2", "seat:3"]
SEED = bytes(range(32))
CONTRACT_DEAL_1 = [
    "01D 02C 03D 03S 04B 05S 06D 07D 09S 10S",
    "02D 02S 03C 04D 06C 07C 07S 08D 09D 10C",
    "01B 01S 02B 04C 05C 06B 06S 08B 08C 09B",
    "01C 03B 04S 05B 05D 07B 08S 09C 10B 10D",
]
# docs/fairness.md: r_0, r_1, r_2 revealed, seat 3 withheld.
CONTRIBUTIONS = [bytes([1]) * 32, bytes([2]) * 32, bytes([3]) * 32, None]
DEAL_KEY = "2edb59735f8407f01c6aaec14f0b3318ada33b977ee4f42be863ac9951eb2495"
KEYED_DEAL_1 = [
    "01B 02B 03D 04C 04S 05B 05C 06C 07D 08C",
    "01C 01D 01S 02C 03C 05D 05S 06S 07C 09C",
    "02D 02S 03B 03S 06D 07S 08S 09B 09D 09S",
    "04B 04D 06B 07B 08B 08D 10B 10C 10D 10S",
]


def run(log: object, tmp_path: Path, *, stdin: bool = False) -> subprocess.CompletedProcess[str]:
    """The script on ``log`` (a file, or standard input), in isolated mode from ``tmp_path``."""
    text = log if isinstance(log, str) else json.dumps(log)
    if stdin:
        args, given = ["-"], text
    else:
        path = tmp_path / "log.json"
        path.write_text(text)
        args, given = [str(path)], None
    return subprocess.run([sys.executable, "-I", str(SCRIPT), *args], input=given, capture_output=True,
                          text=True, cwd=tmp_path, timeout=60, check=False)


def refused(log: dict, tmp_path: Path) -> str:
    result = run(log, tmp_path)
    assert result.returncode == 1, result
    assert result.stdout.startswith("NOT verified: "), result.stdout
    return result.stdout


def verified(log: dict, tmp_path: Path) -> str:
    result = run(log, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("verified"), result.stdout
    return result.stdout


# -- real logs: whole matches through the game service ----------------------------------------

async def play_a_match(options: dict, choices: int) -> dict:
    """A whole match with random legal plays, some turns and hand ends left to their deadlines;
    the log as GET /api/games/{id}/log serves it."""
    rng = random.Random(choices)
    engine = ScoponeEngine()
    tables = build_tables(default_registry(), MemoryLogStore(), MemoryTableCache())
    try:
        async with serving(tables) as service:
            client = GameClient(service.address)
            try:
                table_id = (await client.create_table("scopone_scientifico", SEATS, options))["table_id"]
                while True:
                    state = (await tables.current(table_id)).state
                    status = engine.status(state)
                    if status == "finished":
                        break
                    if rng.random() < 0.2:
                        await client.fire_deadline(table_id, engine.deadlines(state)[0].token)
                    elif status == "playing":
                        card, capture = rng.choice(engine.legal_plays(state))
                        await client.act(table_id, SEATS[engine.turn_seat(state)],
                                         {"action": "play", "card": card, "capture": capture})
                    else:
                        seat = rng.choice([s for s in range(4) if s not in state["acknowledged"]])
                        await client.act(table_id, SEATS[seat], {"action": "ack"})
                header, moves = await _whole_log(client, table_id)
                return table_log(table_id, header, moves).body()
            finally:
                await client.close()
    finally:
        await tables.close(timeout=0.5)


@pytest.fixture(scope="module")
def real_logs() -> list[dict]:
    """Two finished matches, each from a seed of the test's own (the service draws a random one):
    the contract's seed with the default rules, and asso pigliatutto to 31."""
    logs = []
    matches = ((SEED, {}, 7), (bytes([42]) * 32, {"asso_pigliatutto": True, "target_score": 31}, 8))
    for seed, options, choices in matches:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("game.tables.secrets.token_bytes", lambda n, seed=seed: seed[:n])
            logs.append(asyncio.run(play_a_match(options, choices)))
    return logs


def plays_of(log: dict) -> list[dict]:
    return [m for m in log["moves"] if m["type"] in ("play", "auto_play")]


def test_a_real_finished_log_is_verified(real_logs, tmp_path):
    assert len(real_logs[1]["moves"]) > 256  # more than one page of the log
    # The contract's seed: hand 1 is the contract's deal (each seat's first ten cards).
    assert real_logs[0]["seed"] == SEED.hex()
    first = plays_of(real_logs[0])[:40]
    assert [" ".join(sorted(m["payload"]["card"] for m in first if m["seat"] == seat)) for seat in SEATS] \
        == CONTRACT_DEAL_1
    for log in real_logs:
        assert log["status"] == "finished" and len(log["seed"]) == 64
        plays = plays_of(log)
        hands = len(plays) // 40
        autos = sum(m["type"] == "auto_play" for m in plays)
        assert hands >= 2 and autos > 0
        out = verified(log, tmp_path)
        assert f"{hands} hands, {len(plays)} plays" in out and f"{autos} auto-plays" in out
        assert "the seed (no player entropy)" in out


def test_the_contract_seed_draws_seat_1_to_deal_and_seat_2_leads_hand_1(real_logs, tmp_path):
    log = real_logs[0]
    assert log["options"]["first_dealer"] == "drawn"
    assert plays_of(log)[0]["seat"] == "seat:2"
    assert "seat 1 dealt hand 1, drawn from stream dealer" in verified(log, tmp_path)


def test_a_log_from_before_the_draw_is_verified_by_the_old_rule(tmp_path):
    """tests/fixtures/log_before_the_draw.json: a match the game service of commit d70e6b1 played
    (seat 0 led hand 1; its options lack first_dealer)."""
    out = verified(json.loads(FIXTURE.read_text()), tmp_path)
    assert "seat 0 led hand 1 (options without first_dealer: a game from before the draw)" in out
    assert "2 hands, 80 plays each dealt to its seat and made in turn, 12 auto-plays" in out


def test_a_hand_led_by_the_wrong_seat_is_refused(real_logs, tmp_path):
    old = json.loads(FIXTURE.read_text())
    old["options"]["first_dealer"] = "drawn"  # claims the draw: seat 1 deals, seat 2 was to lead
    assert ("hand 1, move 1 (play): seat 0 plays, but it was seat 2's turn (seat 1 dealt hand 1, and play "
            "goes round from the seat after it)") in refused(old, tmp_path)
    new = copy.deepcopy(real_logs[0])
    del new["options"]["first_dealer"]  # claims the old rule: seat 0 was to lead
    assert "hand 1, move 1 (play): seat 2 plays, but it was seat 0's turn (seat 3 dealt" in refused(new, tmp_path)
    unknown = copy.deepcopy(real_logs[0])
    unknown["options"]["first_dealer"] = "seat_0"
    assert "options.first_dealer is 'seat_0': the only rule is \"drawn\"" in refused(unknown, tmp_path)


def test_a_play_out_of_turn_is_refused(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    plays = plays_of(log)
    second, third = plays[41], plays[42]  # hand 2, led by seat 3: seats 0 then 1
    second["seat"], third["seat"] = third["seat"], second["seat"]
    assert f"hand 2, move {second['number']} (play): seat 1 plays, but it was seat 0's turn (seat 2 dealt hand 2" \
        in refused(log, tmp_path)


def test_the_log_can_come_on_standard_input(real_logs, tmp_path):
    result = run(real_logs[0], tmp_path, stdin=True)
    assert result.returncode == 0 and result.stdout.startswith("verified"), result


def test_a_card_that_was_not_dealt_to_its_seat_is_named(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    move = next(m for m in plays_of(log)[40:] if m["type"] == "play")  # hand 2
    seat = int(move["seat"].removeprefix("seat:"))
    dealt = fairness.deal(bytes.fromhex(log["seed"]), 2)
    other = dealt[(seat + 1) % 4][0]
    move["payload"] = {"card": other, "capture": []}
    out = refused(log, tmp_path)
    assert f"hand 2, move {move['number']} (play): seat {seat} plays '{other}', which was not dealt to it" in out
    assert f"seat {seat} was dealt {' '.join(dealt[seat])}" in out


def test_a_wrong_seed_is_refused(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    log["seed"] = "ff" * 32
    out = refused(log, tmp_path)
    assert "the seed does not match the commitment: SHA-256 of the seed is " \
        f"{hashlib.sha256(bytes([255]) * 32).hexdigest()}, the seed_commitment is {log['seed_commitment']}" in out


def test_a_seed_and_commitment_changed_together_fail_on_the_deal(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    log["seed"] = "ff" * 32
    log["seed_commitment"] = hashlib.sha256(bytes([255]) * 32).hexdigest()
    # Another key draws another dealer and deals other cards: the first play out of the new
    # turn, or whose card the new deal gave to another seat (or an auto-play the new key would
    # not choose) is refused.
    out = refused(log, tmp_path)
    assert "hand 1, move " in out and any(
        reason in out for reason in ("which was not dealt to it", "but the rule chooses", "'s turn (seat "))


def test_an_unfinished_log_has_no_seed_to_check(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    log["seed"] = None
    assert "the seed is not revealed: the game is not over" in refused(log, tmp_path)


def test_an_auto_play_that_is_not_the_rules_choice_is_named(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    plays = plays_of(log)
    # An auto-play and the same seat's next play of the same hand swap their payloads: both cards
    # were dealt to that seat, so only the auto-play rule can tell.
    for index, auto in enumerate(plays):
        if auto["type"] != "auto_play" or index % 40 >= 36:
            continue
        later = next((m for m in plays[index + 1: index - index % 40 + 40] if m["seat"] == auto["seat"]), None)
        if later is not None and later["payload"]["card"] != auto["payload"]["card"]:
            break
    else:
        pytest.fail("no auto-play with a later play of its seat in the same hand")
    expected = auto["payload"]
    auto["payload"], later["payload"] = later["payload"], auto["payload"]
    out = refused(log, tmp_path)
    assert f"move {auto['number']} (auto_play): the auto-play is {auto['payload']['card']} taking" in out
    assert f"but the rule chooses {expected['card']} taking" in out


def test_a_dealt_card_never_played_is_named(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    last = plays_of(log)[-1]
    log["moves"] = [m for m in log["moves"] if m["number"] < last["number"]]
    assert f"1 dealt cards were never played ({last['payload']['card']})" in refused(log, tmp_path)


def test_moves_must_be_numbered_from_one_without_gaps(real_logs, tmp_path):
    log = copy.deepcopy(real_logs[0])
    del log["moves"][5]
    assert "the move at position 6 of the log is numbered 7" in refused(log, tmp_path)


def test_a_file_that_is_not_a_log_exits_2(tmp_path):
    result = run("not json", tmp_path)
    assert result.returncode == 2 and "cannot read" in result.stderr
    result = run({"seed": "00"}, tmp_path)
    assert result.returncode == 2 and "is not a game log" in result.stderr


# -- player entropy: logs with a seeding phase --------------------------------------------------

def entropy_moves(contributions: list[bytes | None], committed: list[int]) -> list[dict]:
    """Each seat in ``committed`` commits (the phase ends at its deadline when a seat did not),
    then each of them with a value reveals it (the phase ends at its deadline when one did not)."""
    moves: list[dict] = []
    for seat in committed:
        value = contributions[seat] or bytes(32)
        moves.append({"type": "commit", "seat": SEATS[seat], "auto": False,
                      "payload": {"action": "commit", "hash": fairness.entropy_commitment(value)}})
    if len(committed) < 4:
        moves.append({"type": "entropy_deadline", "seat": None, "payload": {}, "auto": True})
    for seat in committed:
        value = contributions[seat]
        if value is not None:
            moves.append({"type": "reveal", "seat": SEATS[seat], "auto": False,
                          "payload": {"action": "reveal", "value": value.hex()}})
    if committed and any(contributions[seat] is None for seat in committed):
        moves.append({"type": "entropy_deadline", "seat": None, "payload": {}, "auto": True})
    return moves


def entropy_log(seed: bytes, contributions: list[bytes | None], committed: list[int], choices: int,
                options: dict | None = None) -> dict:
    """A finished match keyed with K, its log opened by the seeding phase (the phase's moves
    count in the numbers, so auto-plays draw from ``auto:<m>`` of the log's numbering)."""
    rng = random.Random(choices)
    engine = ScoponeEngine()
    seeding = entropy_moves(contributions, committed)
    key = fairness.deal_key(seed, contributions)
    state = engine.new_state(engine.normalize_options(options), key, 0)  # K draws the dealer too
    state["moves"] = len(seeding)
    moves: list[Move] = []
    while engine.status(state) != "finished":
        if rng.random() < 0.2:
            move = engine.fire(state, engine.deadlines(state)[0].token, 0)
        elif engine.status(state) == "playing":
            card, capture = rng.choice(engine.legal_plays(state))
            move = engine.decide(state, engine.turn_seat(state), {"action": "play", "card": card,
                                                                  "capture": capture}, 0)
        else:
            seat = rng.choice([s for s in range(4) if s not in state["acknowledged"]])
            move = engine.decide(state, seat, {"action": "ack"}, 0)
        state = engine.apply(state, move, 0)
        moves.append(move)
    logged = seeding + [{"type": m.type, "seat": None if m.seat is None else SEATS[m.seat],
                         "payload": m.payload, "auto": m.auto} for m in moves]
    for number, move in enumerate(logged, 1):
        move["number"] = number
    return {"id": "g", "game_type": "scopone_scientifico", "options": state["options"], "seats": SEATS,
            "seed_commitment": fairness.commitment(seed), "seed": seed.hex(), "moves": logged,
            "revision": len(logged), "status": "finished"}


def renumbered(log: dict) -> dict:
    for number, move in enumerate(log["moves"], 1):
        move["number"] = number
    return log


@pytest.fixture(scope="module")
def vector_log() -> dict:
    """The test vector's seeding: seats 0-2 commit and reveal, seat 3 never commits."""
    return entropy_log(SEED, CONTRIBUTIONS, [0, 1, 2], 11)


def test_a_log_with_player_entropy_is_verified_with_the_deal_key(vector_log, tmp_path):
    first = [m for m in vector_log["moves"] if m["type"] in ("play", "auto_play")][:40]
    assert sorted(m["payload"]["card"] for m in first if m["seat"] == "seat:0") == KEYED_DEAL_1[0].split()
    assert first[0]["seat"] == "seat:1"  # the contract's vector: seat 0 deals with K
    assert any(m["type"] == "auto_play" for m in vector_log["moves"])
    out = verified(vector_log, tmp_path)
    assert "K = SHA-256(seed || r_0..r_3), seat 3 withheld (zeros)" in out
    assert "seat 0 dealt hand 1, drawn from stream dealer" in out


def test_every_seat_revealing_and_asso_pigliatutto(tmp_path):
    values = [bytes([b]) * 32 for b in (9, 8, 7, 6)]
    log = entropy_log(bytes([42]) * 32, values, [0, 1, 2, 3], 12, {"asso_pigliatutto": True})
    assert not any(m["type"] == "entropy_deadline" for m in log["moves"])
    assert "every seat revealed" in verified(log, tmp_path)


def test_a_seat_that_commits_and_never_reveals_contributes_zeros(tmp_path):
    # Seat 1 commits to a value it then withholds: K is the one with seat 1's zeros.
    log = entropy_log(SEED, [bytes([1]) * 32, None, bytes([3]) * 32, bytes([4]) * 32], [0, 1, 2, 3], 13)
    assert "seat 1 withheld (zeros)" in verified(log, tmp_path)


def test_nobody_committing_still_keys_the_deal_with_k(tmp_path):
    log = entropy_log(SEED, [None] * 4, [], 14)
    assert [m["type"] for m in log["moves"][:1]] == ["entropy_deadline"]
    assert "seats 0, 1, 2, 3 withheld (zeros)" in verified(log, tmp_path)


def test_the_deal_of_the_seed_alone_is_refused_once_seats_added_entropy(vector_log, tmp_path):
    log = copy.deepcopy(vector_log)
    log["moves"] = [m for m in log["moves"] if m["type"] not in ("commit", "reveal", "entropy_deadline")]
    out = refused(renumbered(log), tmp_path)  # another key draws another dealer, or deals other cards
    assert "which was not dealt to it" in out or "'s turn (seat " in out


def test_a_withheld_reveal_changes_the_deal(vector_log, tmp_path):
    log = copy.deepcopy(vector_log)
    log["moves"] = [m for m in log["moves"] if not (m["type"] == "reveal" and m["seat"] == "seat:2")]
    out = refused(renumbered(log), tmp_path)  # another key draws another dealer, or deals other cards
    assert "which was not dealt to it" in out or "'s turn (seat " in out


def test_a_reveal_that_is_not_the_commitment_is_refused(vector_log, tmp_path):
    log = copy.deepcopy(vector_log)
    reveal = next(m for m in log["moves"] if m["type"] == "reveal" and m["seat"] == "seat:1")
    reveal["payload"]["value"] = "05" * 32
    out = refused(log, tmp_path)
    assert f"move {reveal['number']}: seat 1's revealed value does not match its commitment: " \
        f"SHA-256 of the value is {hashlib.sha256(bytes([5]) * 32).hexdigest()}, " \
        f"the commit was {fairness.entropy_commitment(bytes([2]) * 32)}" in out


def test_a_reveal_from_a_seat_that_did_not_commit_is_refused(vector_log, tmp_path):
    log = copy.deepcopy(vector_log)
    at = max(i for i, m in enumerate(log["moves"]) if m["type"] == "reveal") + 1
    log["moves"].insert(at, {"type": "reveal", "seat": "seat:3", "auto": False,
                             "payload": {"action": "reveal", "value": "04" * 32}})
    assert f"move {at + 1}: seat 3 reveals but never committed" in refused(renumbered(log), tmp_path)


def test_a_commit_after_the_commits_closed_is_refused(vector_log, tmp_path):
    log = copy.deepcopy(vector_log)
    at = max(i for i, m in enumerate(log["moves"]) if m["type"] == "reveal") + 1
    log["moves"].insert(at, {"type": "commit", "seat": "seat:3", "auto": False,
                             "payload": {"action": "commit", "hash": "00" * 32}})
    assert f"move {at + 1}: seat 3 commits after the commits closed" in refused(renumbered(log), tmp_path)


def test_a_seeding_move_after_the_first_card_is_refused(vector_log, tmp_path):
    log = copy.deepcopy(vector_log)
    reveal = next(m for m in log["moves"] if m["type"] == "reveal" and m["seat"] == "seat:2")
    log["moves"].remove(reveal)
    log["moves"].insert(10, reveal)
    renumbered(log)
    assert f"move {reveal['number']} (reveal) comes after the first card" in refused(log, tmp_path)


def test_a_malformed_commit_hash_is_refused(vector_log, tmp_path):
    log = copy.deepcopy(vector_log)
    log["moves"][0]["payload"]["hash"] = "AB" * 32
    assert "move 1: the commit hash is not 64 lowercase hex digits" in refused(log, tmp_path)


# -- the script's own derivation, against the platform's --------------------------------------

@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("verify_deal", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_pins_both_test_vectors(script):
    assert [" ".join(hand) for hand in script.deal(SEED, 1)] == CONTRACT_DEAL_1
    assert script.sha256_hex(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    words = script.stream(SEED, "deal:1")
    assert [next(words) for _ in range(3)] == [783130636, 967123399, 3201263102]
    key = script.deal_key(SEED, CONTRIBUTIONS)
    assert key.hex() == DEAL_KEY
    assert [" ".join(hand) for hand in script.deal(key, 1)] == KEYED_DEAL_1


def test_the_script_deals_and_chooses_as_the_platform_does(script):
    rng = random.Random(5)
    for _ in range(20):
        seed = rng.randbytes(32)
        hand = rng.randrange(1, 30)
        assert script.deal(seed, hand) == fairness.deal(seed, hand)
        contributions = [rng.choice([None, rng.randbytes(32)]) for _ in range(4)]
        assert script.deal_key(seed, contributions) == fairness.deal_key(seed, contributions)
    for _ in range(300):
        deck = list(fairness.DECK)
        rng.shuffle(deck)
        table, hand, asso = deck[:rng.randrange(0, 9)], deck[10:10 + rng.randrange(1, 11)], rng.random() < 0.5
        expected = rules.legal_plays(hand, table, asso)
        assert sorted((c, p) for c in hand for p in script.captures(c, table, asso)) == expected
        assert script.auto_choice(SEED, 9, hand, table, asso) == \
            tuple(expected[fairness.choose(SEED, "auto:9", len(expected))])


def test_the_script_imports_the_standard_library_only():
    imported = set()
    for node in ast.walk(ast.parse(SCRIPT.read_text())):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
