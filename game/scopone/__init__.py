"""Scopone scientifico: the engine the platform was built for."""

from game.scopone.engine import OPTIONS_SCHEMA, ScoponeEngine

__all__ = ["OPTIONS_SCHEMA", "ScoponeEngine"]
