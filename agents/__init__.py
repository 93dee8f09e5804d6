"""Agents for Continental: one ``act(view) -> action id`` protocol for every bot."""
