"""CONTRACT.md Fairness: the golden test vector and the primitives it is built from."""

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
