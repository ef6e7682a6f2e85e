"""Trained pipelines shipped as package data (read with importlib.resources)."""
