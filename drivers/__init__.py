"""Drivers: the I/O edge turning model providers, scripts and recordings into stream events."""
