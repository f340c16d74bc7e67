"""What tests and benchmarks share: the machine's real stores in namespaces of their own, servers
started as processes, the whole platform as a stack, a scripted player, waiting with a bound.

Never imported by the services, and not shipped in the image."""
