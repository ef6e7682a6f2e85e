"""paperkg: knowledge graphs of ML research from paper abstracts.

Example:
    >>> import kg
    >>> sorted(name for name in ("build", "open", "Graph") if hasattr(kg, name))
    ['Graph', 'build', 'open']
"""

from __future__ import annotations

from kg.api import Graph, build, open

__version__ = "0.1.0"
__all__ = ["Graph", "build", "open", "__version__"]
