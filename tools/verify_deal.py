#!/usr/bin/env python3
"""Check the deals of a finished tavolo game of scopone scientifico from its move log.

Copy this file alone and run it with any Python 3.9 or later: it needs only the standard library
and nothing of tavolo. docs/fairness.md describes the scheme it checks.

    python3 verify_deal.py log.json          # or: python3 verify_deal.py - < log.json

The log is the body of ``GET /api/games/{id}/log`` of a finished game (any logged-in user may
read it; a match's page in the app's History links it). The script checks:

1. SHA-256 of the revealed ``seed`` is the ``seed_commitment`` shown before the first card, and
   the moves are numbered 1, 2, 3... (every entry counts: an auto-play's stream is named by it).
2. With player entropy (the log's ``options.player_entropy``, or any ``commit``, ``reveal`` or
   ``entropy_deadline`` move): every ``reveal`` comes from a seat that committed and hashes to its
   commitment, no seat commits or reveals twice, no commit comes after the commits closed (after
   a reveal or an ``entropy_deadline``) and the seeding phase is over before the first card is
   played. The deal key is then
   K = SHA-256(seed || r_0 || r_1 || r_2 || r_3), a seat that did not reveal counting as 32 zero
   bytes; without player entropy the key is the seed itself.
3. Every hand's deal, re-derived from the key: each ``play`` and ``auto_play`` is a card dealt to
   the seat that played it, no card is played twice, and every dealt card is played (a hand is
   40 plays: the seed is revealed only once the game is over, so every hand was played out).
   Each hand is played in turn from its leader, the seat after its dealer: the first dealer is
   seat uniform(4) of the stream ``dealer`` (keyed like the deals) when the log's options carry
   ``"first_dealer": "drawn"``, and the deal passes to the next seat each hand. A log whose
   options lack ``first_dealer`` is from before the draw: seat 0 led its hand 1.
4. Every ``auto_play`` (a turn that timed out) is the choice the rule makes: the seat's legal
   plays, sorted by card and then by capture, at index uniform(len) of the stream ``auto:<m>``,
   m the move's number. The table is followed from the plays' own captures, so this checks the
   choice among the legal plays, not that every other play obeyed the capture rules (the game
   service refuses illegal plays; replaying the whole game is its rules engine's job).

It prints ``verified`` and exits 0, or prints the first deviation (the move and what was
expected) and exits 1; a file it cannot read as a log exits 2.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import re
import sys
from collections.abc import Iterator
from itertools import combinations
from typing import Any

Log = dict[str, Any]  # the log's JSON object, and each of its moves

WORD_SPACE = 2**32
SUITS = ("D", "C", "S", "B")
DECK = tuple(f"{rank:02d}{suit}" for suit in SUITS for rank in range(1, 11))  # 01D..10D, 01C.., 01S.., 01B..
SEATS = 4
CARDS_PER_HAND = len(DECK)
ENTROPY_BYTES = 32
ENTROPY_MOVES = ("commit", "reveal", "entropy_deadline")
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Deviation(Exception):
    """The first thing in the log that is not what the scheme says."""


class Unreadable(Exception):
    """Not a log this script can read."""


# -- the scheme (docs/fairness.md, CONTRACT.md's Fairness section) ---------------------------

def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def deal_key(seed: bytes, contributions: list[bytes | None]) -> bytes:
    """K = SHA-256(seed || r_0 || r_1 || ...); None (withheld) is 32 zero bytes."""
    parts = [seed]
    for value in contributions:
        if value is not None and len(value) != ENTROPY_BYTES:
            raise ValueError(f"a seat's entropy is exactly {ENTROPY_BYTES} bytes")
        parts.append(bytes(ENTROPY_BYTES) if value is None else value)
    return hashlib.sha256(b"".join(parts)).digest()


def stream(key: bytes, label: str) -> Iterator[int]:
    """Word i: the first 4 bytes, big-endian, of HMAC-SHA256(key, label + ":" + i)."""
    i = 0
    while True:
        digest = hmac.new(key, f"{label}:{i}".encode("ascii"), hashlib.sha256).digest()
        yield int.from_bytes(digest[:4], "big")
        i += 1


def uniform(words: Iterator[int], n: int) -> int:
    """Draw x until x < 2^32 - (2^32 mod n), then x mod n."""
    limit = WORD_SPACE - (WORD_SPACE % n)
    for x in words:
        if x < limit:
            return x % n
    raise RuntimeError("the stream ended")


def deal(key: bytes, hand: int) -> list[list[str]]:
    """Fisher-Yates from the top with label deal:<hand>; seat s gets cards 10s..10s+9, sorted."""
    deck = list(DECK)
    words = stream(key, f"deal:{hand}")
    for i in range(len(deck) - 1, 0, -1):
        j = uniform(words, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    size = len(deck) // SEATS
    return [sorted(deck[size * s: size * (s + 1)]) for s in range(SEATS)]


# -- the capture rules, only as far as the auto-play choice needs them (docs/rules.md) -------

def rank(card: str) -> int:
    return int(card[:2])


def sweeps(card: str, table: list[str], asso: bool) -> bool:
    """Asso pigliatutto: an ace facing no ace on the table takes the whole table."""
    return asso and rank(card) == 1 and all(rank(t) != 1 for t in table)


def captures(card: str, table: list[str], asso: bool) -> list[list[str]]:
    """The legal captures of a card: the whole table for a sweep, else each single card of its
    rank, else each set of cards whose ranks add up to it, else nothing ([[]])."""
    if sweeps(card, table, asso):
        return [sorted(table)]
    equal = sorted(t for t in table if rank(t) == rank(card))
    if equal:
        return [[t] for t in equal]
    cards = sorted(table)
    sums = [list(combo) for k in range(2, len(cards) + 1) for combo in combinations(cards, k)
            if sum(rank(c) for c in combo) == rank(card)]
    return sorted(sums) or [[]]


def first_dealer(log: Log, key: bytes) -> tuple[int, str]:
    """The seat that dealt hand 1, and how it was chosen (for the report)."""
    options = log.get("options") or {}
    if "first_dealer" not in options:
        return SEATS - 1, "seat 0 led hand 1 (options without first_dealer: a game from before the draw)"
    if options["first_dealer"] != "drawn":
        raise Deviation(f"options.first_dealer is {options['first_dealer']!r}: the only rule is \"drawn\"")
    seat = uniform(stream(key, "dealer"), SEATS)
    return seat, f"seat {seat} dealt hand 1, drawn from stream dealer"


def auto_choice(key: bytes, number: int, hand: list[str], table: list[str], asso: bool) -> tuple[str, list[str]]:
    """The legal plays sorted (card, then capture), index uniform(len) from label auto:<number>."""
    plays = sorted((card, capture) for card in hand for capture in captures(card, table, asso))
    return plays[uniform(stream(key, f"auto:{number}"), len(plays))]


# -- reading the log ---------------------------------------------------------------------------

def seat_of(move: Log) -> int:
    seat = move.get("seat")
    match = re.fullmatch(r"seat:(\d+)", seat) if isinstance(seat, str) else None
    if match is None or int(match.group(1)) >= SEATS:
        raise Deviation(f"move {move.get('number')} ({move.get('type')}) names no seat: {seat!r}")
    return int(match.group(1))


def payload_of(move: Log) -> Log:
    payload = move.get("payload")
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise Deviation(f"move {move.get('number')} ({move.get('type')}): the payload is not an object: {payload!r}")
    return payload


def hex_bytes(text: object, what: str) -> bytes:
    if not isinstance(text, str) or not HEX64.match(text):
        raise Deviation(f"{what} is not 64 lowercase hex digits: {text!r}")
    return bytes.fromhex(text)


def check_seed(log: Log) -> bytes:
    seed_hex = log.get("seed")
    if not seed_hex:
        raise Deviation("the seed is not revealed: the game is not over")
    seed = hex_bytes(seed_hex, "the seed")
    commitment = str(log.get("seed_commitment") or "")
    if sha256_hex(seed) != commitment.lower():
        raise Deviation(f"the seed does not match the commitment: SHA-256 of the seed is {sha256_hex(seed)}, "
                        f"the seed_commitment is {commitment}")
    return seed


def uses_entropy(log: Log) -> bool:
    options = log.get("options") or {}
    return bool(options.get("player_entropy")) or any(m.get("type") in ENTROPY_MOVES for m in log["moves"])


def key_of(log: Log, seed: bytes) -> tuple[bytes, str]:
    """The deal key and how it was made (for the report)."""
    if not uses_entropy(log):
        return seed, "the seed (no player entropy)"
    commits: dict[int, str] = {}
    revealed: dict[int, bytes] = {}
    first_card, deadlines = None, 0
    for move in log["moves"]:
        kind, number = move.get("type"), move.get("number")
        if kind in ("play", "auto_play") and first_card is None:
            first_card = number
        if kind not in ENTROPY_MOVES:
            continue
        if first_card is not None:
            raise Deviation(f"move {number} ({kind}) comes after the first card (move {first_card}): "
                            "the seeding phase ends before the deal")
        if kind == "entropy_deadline":
            deadlines += 1
            continue
        seat = seat_of(move)
        payload = payload_of(move)
        if kind == "commit":
            # The commits close before anyone reveals: a commit sees no other seat's value.
            if revealed or deadlines:
                raise Deviation(f"move {number}: seat {seat} commits after the commits closed "
                                f"({'a reveal' if revealed else 'an entropy_deadline'} came before)")
            if seat in commits:
                raise Deviation(f"move {number}: seat {seat} commits a second time")
            hex_bytes(payload.get("hash"), f"move {number}: the commit hash")
            commits[seat] = payload["hash"]
        else:
            value = hex_bytes(payload.get("value"), f"move {number}: the revealed value")
            if seat not in commits:
                raise Deviation(f"move {number}: seat {seat} reveals but never committed")
            if seat in revealed:
                raise Deviation(f"move {number}: seat {seat} reveals a second time")
            if sha256_hex(value) != commits[seat]:
                raise Deviation(f"move {number}: seat {seat}'s revealed value does not match its commitment: "
                                f"SHA-256 of the value is {sha256_hex(value)}, the commit was {commits[seat]}")
            revealed[seat] = value
    withheld = [s for s in range(SEATS) if s not in revealed]
    key = deal_key(seed, [revealed.get(s) for s in range(SEATS)])
    how = "K = SHA-256(seed || r_0..r_3), " + (
        f"seat{'s' if len(withheld) > 1 else ''} {', '.join(map(str, withheld))} withheld (zeros)"
        if withheld else "every seat revealed")
    return key, how


def check_plays(log: Log, key: bytes, dealer: int) -> tuple[int, int, int]:
    """(hands, plays, auto-plays) checked, ``dealer`` having dealt hand 1; raises Deviation at the
    first wrong one."""
    asso = bool((log.get("options") or {}).get("asso_pigliatutto"))
    hand_number, plays, autos, turn = 0, 0, 0, 0
    dealt: list[list[str]] = []
    held: list[list[str]] = []
    table: list[str] = []
    count = CARDS_PER_HAND
    for move in log["moves"]:
        kind, number = move.get("type"), move.get("number")
        if kind not in ("play", "auto_play"):
            continue
        if count == CARDS_PER_HAND:
            hand_number, count, table = hand_number + 1, 0, []
            dealt = deal(key, hand_number)
            held = [list(cards) for cards in dealt]
            turn = (dealer + hand_number) % SEATS  # the seat after this hand's dealer leads
        seat = seat_of(move)
        payload = payload_of(move)
        card, capture = payload.get("card"), payload.get("capture") or []
        where = f"hand {hand_number}, move {number} ({kind})"
        if seat != turn:
            hand_dealer = (dealer + hand_number - 1) % SEATS
            raise Deviation(f"{where}: seat {seat} plays, but it was seat {turn}'s turn (seat {hand_dealer} "
                            f"dealt hand {hand_number}, and play goes round from the seat after it)")
        turn = (turn + 1) % SEATS
        if not isinstance(capture, list) or not all(isinstance(t, str) for t in capture):
            raise Deviation(f"{where}: the capture is not a list of cards: {capture!r}")
        capture = sorted(capture)
        if card not in dealt[seat]:
            raise Deviation(f"{where}: seat {seat} plays {card!r}, which was not dealt to it; "
                            f"seat {seat} was dealt {' '.join(dealt[seat])}")
        if card not in held[seat]:
            raise Deviation(f"{where}: seat {seat} plays {card} a second time")
        if kind == "auto_play":
            expected = auto_choice(key, number, held[seat], table, asso)
            if (card, capture) != expected:
                raise Deviation(f"{where}: the auto-play is {card} taking {capture or 'nothing'}, but the rule "
                                f"chooses {expected[0]} taking {expected[1] or 'nothing'}")
            autos += 1
        missing = [t for t in capture if t not in table]
        if missing:
            raise Deviation(f"{where}: seat {seat} takes {' '.join(missing)}, which is not on the table")
        if capture or sweeps(card, table, asso):
            table = [t for t in table if t not in capture]
        else:
            table = sorted([*table, card])
        held[seat].remove(card)
        count += 1
        plays += 1
    if hand_number == 0:
        raise Deviation("the log has no plays to check")
    if count != CARDS_PER_HAND:
        left = sorted(card for cards in held for card in cards)
        raise Deviation(f"hand {hand_number}: {len(left)} dealt cards were never played ({' '.join(left)})")
    return hand_number, plays, autos


def check_numbers(log: Log) -> None:
    """Moves are numbered from 1 and every entry counts (an auto-play's label is its number)."""
    for position, move in enumerate(log["moves"], 1):
        if move.get("number") != position:
            raise Deviation(f"the move at position {position} of the log is numbered {move.get('number')!r}: "
                            "moves are numbered 1, 2, 3... and every entry counts")


def verify(log: Log) -> str:
    """The report of a log that passes every check; raises Deviation at the first that fails."""
    if log.get("game_type", "scopone_scientifico") != "scopone_scientifico":
        raise Deviation(f"this script checks scopone_scientifico games, not {log.get('game_type')!r}")
    seed = check_seed(log)
    check_numbers(log)
    key, how = key_of(log, seed)
    dealer, who = first_dealer(log, key)
    hands, plays, autos = check_plays(log, key, dealer)
    return (f"verified: seed matches its commitment; deal key: {how}; {who}; {hands} hands, {plays} plays "
            f"each dealt to its seat and made in turn, {autos} auto-plays each the rule's choice")


def read_log(path: str) -> Log:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        log = json.loads(text)
    except (OSError, ValueError) as error:
        raise Unreadable(f"cannot read {path}: {error}") from None
    if not isinstance(log, dict) or not isinstance(log.get("moves"), list) \
            or not all(isinstance(m, dict) for m in log["moves"]) \
            or not isinstance(log.get("options") or {}, dict):
        raise Unreadable(f"{path} is not a game log (an object with options and a list of moves)")
    return log


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the deals of a finished tavolo game from its log "
                                                 "(the body of GET /api/games/{id}/log).")
    parser.add_argument("log", help="the log's JSON file, or - for standard input")
    args = parser.parse_args(argv)
    try:
        log = read_log(args.log)
    except Unreadable as error:
        print(error, file=sys.stderr)
        return 2
    try:
        print(verify(log))
    except Deviation as error:
        print(f"NOT verified: {error}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
