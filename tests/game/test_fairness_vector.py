"""CONTRACT.md Fairness: the golden test vector and the primitives it is built from."""

import hashlib

import pytest

from game import fairness
from game.scopone import ScoponeEngine

SEED = bytes(range(32))
CONTRACT_DEAL_1 = [
    "01D 02C 03D 03S 04B 05S 06D 07D 09S 10S",
    "02D 02S 03C 04D 06C 07C 07S 08D 09D 10C",
    "01B 01S 02B 04C 05C 06B 06S 08B 08C 09B",
    "01C 03B 04S 05B 05D 07B 08S 09C 10B 10D",
]


def test_seed_commitment_is_the_contract_vector():
    assert SEED.hex() == "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    assert fairness.commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def test_first_three_words_of_deal_1_are_the_contract_vector():
    words = fairness.stream(SEED, "deal:1")
    assert [next(words) for _ in range(3)] == [783130636, 967123399, 3201263102]


def test_deal_of_hand_1_is_the_contract_vector():
    assert [" ".join(hand) for hand in fairness.deal(SEED, 1)] == CONTRACT_DEAL_1


def test_scopone_new_state_deals_the_contract_hand_1():
    state = ScoponeEngine().new_state({}, SEED, 0)
    assert [" ".join(hand) for hand in state["hands"]] == CONTRACT_DEAL_1


def test_canonical_deck_order():
    assert fairness.DECK[:3] == ("01D", "02D", "03D")
    assert fairness.DECK[9:12] == ("10D", "01C", "02C")
    assert fairness.DECK[-1] == "10B" and len(set(fairness.DECK)) == 40


def test_uniform_rejects_words_at_or_above_the_largest_multiple_of_n():
    # n = 3: 2**32 mod 3 = 1, so the limit is 2**32 - 1 and the word 2**32 - 1 is drawn again.
    assert fairness.uniform(iter([2**32 - 1, 7]), 3) == 1
    assert fairness.uniform(iter([2**32 - 2]), 3) == (2**32 - 2) % 3


def test_uniform_of_one_consumes_one_word_and_returns_zero():
    words = iter([123, 456])
    assert fairness.uniform(words, 1) == 0
    assert next(words) == 456


def test_shuffle_is_fisher_yates_from_the_top():
    words = fairness.stream(SEED, "x")
    expected = list("abcde")
    for i in range(4, 0, -1):
        j = fairness.uniform(words, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert fairness.shuffled(SEED, "x", "abcde") == expected


def test_each_hand_has_its_own_deal_label():
    assert fairness.shuffled_deck(SEED, 2) == fairness.shuffled(SEED, "deal:2", fairness.DECK)
    assert fairness.shuffled_deck(SEED, 2) != fairness.shuffled_deck(SEED, 1)


# Player entropy (docs/fairness.md): r_0, r_1, r_2 revealed, seat 3 withheld.
CONTRIBUTIONS = [bytes([1]) * 32, bytes([2]) * 32, bytes([3]) * 32, None]
DEAL_KEY = "2edb59735f8407f01c6aaec14f0b3318ada33b977ee4f42be863ac9951eb2495"
KEYED_DEAL_1 = [
    "01B 02B 03D 04C 04S 05B 05C 06C 07D 08C",
    "01C 01D 01S 02C 03C 05D 05S 06S 07C 09C",
    "02D 02S 03B 03S 06D 07S 08S 09B 09D 09S",
    "04B 04D 06B 07B 08B 08D 10B 10C 10D 10S",
]


def test_deal_key_is_the_contract_vector():
    assert fairness.deal_key(SEED, CONTRIBUTIONS).hex() == DEAL_KEY


def test_deal_of_hand_1_with_the_deal_key_is_the_contract_vector():
    key = fairness.deal_key(SEED, CONTRIBUTIONS)
    assert [" ".join(hand) for hand in fairness.deal(key, 1)] == KEYED_DEAL_1


def test_deal_key_hashes_the_seed_then_each_seat_in_order_withheld_as_zeros():
    joined = SEED + bytes([1]) * 32 + bytes([2]) * 32 + bytes([3]) * 32 + bytes(32)
    assert fairness.deal_key(SEED, CONTRIBUTIONS) == hashlib.sha256(joined).digest()
    assert fairness.deal_key(SEED, [*CONTRIBUTIONS[:3], bytes(32)]).hex() == DEAL_KEY
    assert fairness.deal_key(SEED, [None] * 4) == hashlib.sha256(SEED + bytes(128)).digest()
    # Another order is another key: each contribution stands at its seat's place.
    assert fairness.deal_key(SEED, [bytes([2]) * 32, bytes([1]) * 32, bytes([3]) * 32, None]).hex() != DEAL_KEY


def test_a_contribution_is_exactly_32_bytes():
    for wrong in (b"", bytes(31), bytes(33), "00" * 32):
        with pytest.raises(ValueError, match="exactly 32 bytes"):
            fairness.deal_key(SEED, [wrong, None, None, None])
        with pytest.raises(ValueError, match="exactly 32 bytes"):
            fairness.entropy_commitment(wrong)


def test_entropy_commitment_is_the_sha256_hex_of_the_value():
    # docs/fairness.md lists these as the vector's commit hashes.
    assert [fairness.entropy_commitment(value) for value in CONTRIBUTIONS[:3]] == [
        "72cd6e8422c407fb6d098690f1130b7ded7ec2f7f5e1d30bd9d521f015363793",
        "75877bb41d393b5fb8455ce60ecd8dda001d06316496b14dfa7f895656eeca4a",
        "648aa5c579fb30f38af744d97d6ec840c7a91277a499a0d780f3e7314eca090b",
    ]
