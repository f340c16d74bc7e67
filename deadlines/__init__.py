"""The deadline scheduler: tavolo's timeouts (turn auto-plays, hand-end continues).

Delivery is at least once; see queue.py for the life of an entry.
"""
