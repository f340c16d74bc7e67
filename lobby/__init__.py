"""The lobby service: games waiting for players, their join codes and the seating."""
