"""paperkg: knowledge graphs of ML research from paper abstracts."""

from __future__ import annotations

__version__ = "0.1.0"
