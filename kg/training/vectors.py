"""In-domain subword vectors (floret) from the unlabelled corpus, for the recogniser's encoder.

The text is both corpus files, tokenised as the extraction pipeline tokenises, lower-cased, minus
every abstract that scores anything (the excluded ids, the shared dev gold, and our dev and test
splits), so that nothing evaluated was seen even without labels.  floret hashes words and their
character 4-5-grams into a fixed table, so unseen names ("FlexHiNM-GP") still get a vector and the
table stays small (``BUCKETS`` x ``DIM`` floats).

Example:
    kg train vectors --output /tmp/vectors     # then paths.vectors in the config
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import spacy

from kg.extractors.text import clean_for_nlp
from kg.training.annotations import corpus, forbidden_ids, load_sample

DIM = 100
BUCKETS = 50_000
EPOCHS = 5


def held_out_ids() -> set[str]:
    """Abstracts kept out of the vector text: everything any score is taken on."""
    return set(forbidden_ids()) | {r["id"] for r in load_sample() if r["split"] in ("dev", "test")}


def write_text(path: Path, limit: int | None = None) -> int:
    """One abstract per line, tokens separated by spaces, lower case; returns the number of lines."""
    nlp = spacy.blank("en")
    held_out = held_out_ids()
    records = [r for r in sorted(corpus().values(), key=lambda r: r.id) if r.id not in held_out][:limit]
    with open(path, "w", encoding="utf-8") as fh:
        for doc in nlp.pipe((clean_for_nlp(f"{r.title}. {r.abstract}") for r in records), batch_size=256):
            fh.write(" ".join(t.lower_ for t in doc if not t.is_space) + "\n")
    return len(records)


def train_vectors(output: Path, *, threads: int = 1, limit: int | None = None, buckets: int = BUCKETS) -> Path:
    """Train floret vectors and convert them into a spaCy vectors folder at ``output`` (``limit``:
    the first N abstracts only, for a quick run)."""
    import floret
    from spacy.training.initialize import convert_vectors

    work = Path(tempfile.mkdtemp(prefix="vectors-"))
    text = work / "corpus.txt"
    n = write_text(text, limit)
    model = floret.train_unsupervised(
        str(text), model="cbow", mode="floret", hashCount=2, bucket=buckets, minn=4, maxn=5, dim=DIM,
        epoch=EPOCHS, minCount=3, thread=threads, verbose=0,
    )
    model.save_floret_vectors(str(work / "vectors.floret"))
    nlp = spacy.blank("en")
    convert_vectors(nlp, work / "vectors.floret", truncate=0, prune=-1, mode="floret")
    nlp.vocab.vectors.name = "paperkg_floret"
    output.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    print(f"{n} abstracts -> {buckets} x {DIM} floret vectors in {output}")
    return output
