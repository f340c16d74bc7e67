"""Bot players: what a bot knows of a table (knowledge.py) and how each level decides (levels/)."""
