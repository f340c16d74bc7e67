"""The gRPC kit every service shares: server, client channels, callers, errors, transport security."""
