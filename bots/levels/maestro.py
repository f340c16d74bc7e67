"""placeholder"""
from bots.levels.esperto import choose

__all__ = ["choose"]
BUDGET_S = 0.2
