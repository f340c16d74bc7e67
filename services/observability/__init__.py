"""Telemetry every process shares: OpenTelemetry traces and metrics, tavolo's own figures, logging."""
