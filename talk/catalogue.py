"""The quick phrases (CONTRACT.md, Table talk): ids that never change, texts in Italian and English.

The gateway serves them (GET /api/phrases) and checks a ``say`` against them; the talk service
stores only their ids; the bots pick from them. A new phrase is added at the end; an id is never
renamed or reused (clients and stored messages name it).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Phrase:
    id: str
    it: str
    en: str


PHRASES: tuple[Phrase, ...] = (
    Phrase("hello", "Ciao a tutti!", "Hello everyone!"),
    Phrase("good_luck", "Buona fortuna!", "Good luck!"),
    Phrase("well_played", "Ben giocato!", "Well played!"),
    Phrase("thanks", "Grazie!", "Thanks!"),
    Phrase("sorry", "Scusa!", "Sorry!"),
    Phrase("oops", "Ops!", "Oops!"),
    Phrase("good_game", "Bella partita!", "Good game!"),
    Phrase("bye", "Ciao, alla prossima!", "Bye, see you next time!"),
    Phrase("nice_scopa", "Che scopa!", "Nice scopa!"),
    Phrase("think", "Fammi pensare…", "Let me think…"),
    Phrase("hurry", "Dai, tocca a te!", "Your turn, come on!"),
    Phrase("rematch", "La rivincita?", "Rematch?"),
)
PHRASE_IDS: frozenset[str] = frozenset(phrase.id for phrase in PHRASES)


def known(phrase_id: str) -> bool:
    return phrase_id in PHRASE_IDS
