"""The stats service: finished matches, Elo ratings, match history and the leaderboard."""
