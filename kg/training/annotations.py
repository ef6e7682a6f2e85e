"""In-domain gold written here: sampling, anchoring quoted spans to offsets, validation, loading.

The annotations under ``training/indomain/`` are standoff: ids, character offsets, labels and
canonical names, never the abstracts themselves, which are read from ``../shared/corpus`` when the
gold is loaded.  A reader writes a *draft* per abstract that quotes what it marks; ``anchor``
turns the quotes into offsets, ``check`` validates every stored file (offsets on the text, known
labels, no excluded or dev id, no overlapping spans, paper facts naming a mention's canonical).

Drafts, one JSON object per line::

    {"id": "...",
     "entities": [["Partner-Aware Skill Discovery", "Method", "partner-aware skill discovery"],
                  ["PASD", "Method", "partner-aware skill discovery"], ...],
     "paper": {"proposes": [...], "addresses": [...], "uses": [...], "evaluated_on": [...],
               "compared_with": [...]},
     "results": [{"value": "84.1\\\\%", "nth": 1, "low": 84.1, "high": 84.1, "unit": "%", ...}]}

An entity triple marks every occurrence of its text that stands between word boundaries and
outside a URL (the guidelines annotate repeats); a fourth element, a list of 1-based occurrence
numbers, restricts it.  Where two marks overlap the longer wins.  A result's ``nth`` picks the
occurrence of its ``value`` (default 1), counting only whole numbers ("7%" is not in "20.7%").

Example:
    kg annotations sample            # writes training/indomain/sample.json
    kg annotations batch --pass a --part 3 --of 8 > /tmp/in.jsonl
    kg annotations anchor draft.jsonl --annotator r3 --pass a -o out.jsonl
    kg annotations show out.jsonl     # the abstract with its marks, to proofread
    kg annotations check              # every stored file; exit 1 on a problem
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kg.errors import KGError
from kg.evaluation.results import NAME_FIELDS
from kg.extractors.text import url_spans, without_overlaps, word_occurrences
from kg.settings import shared_path

REPO = Path(__file__).resolve().parents[2]
INDOMAIN = REPO / "training" / "indomain"
SAMPLE = INDOMAIN / "sample.json"
ANNOTATIONS = INDOMAIN / "annotations"

CORPUS_FILES = ("iclr2026.jsonl.gz", "iclr-icml-neurips-older.jsonl.gz")
LABELS = ("Method", "Model", "Problem", "Dataset", "Metric")
FACTS = ("proposes", "addresses", "uses", "evaluated_on", "compared_with")
RESULT_FIELDS = ("low", "high", "unit", "kind", "direction", "qualifier", "method", "baseline", "metric", "dataset", "setting")
KINDS = ("score", "change")
DIRECTIONS = (None, "up", "down")
QUALIFIERS = (None, "up to", "over", "below", "about", "average")

SEED = 20261202
SAMPLE_SIZE = {"iclr2026.jsonl.gz": 640, "iclr-icml-neurips-older.jsonl.gz": 160}
SPLIT_SIZE = {"test": 160, "dev": 120}  # the rest is train
EXTRA_TRAIN = (
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 1920, "iclr-icml-neurips-older.jsonl.gz": 480},
    {"iclr2026.jsonl.gz": 1280, "iclr-icml-neurips-older.jsonl.gz": 320},
    {"iclr2026.jsonl.gz": 1600, "iclr-icml-neurips-older.jsonl.gz": 400},
    {"iclr2026.jsonl.gz": 1600, "iclr-icml-neurips-older.jsonl.gz": 400},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
    {"iclr2026.jsonl.gz": 960, "iclr-icml-neurips-older.jsonl.gz": 240},
)
"""Later draws, all train, each annotated once the learning curve on what came before still rose
at 100 % (the sixth when 5,720 -> 7,720 left our dev F1 level at 4,000 steps but lifted the shared
entities-dev and results-dev gold; the seventh when 7,720 -> 9,720 lifted dev F1 72.7 -> 74.4; the
eighth and ninth when the tagger on 9,720 -> 10,920 lifted it 74.4 -> 75.3; the tenth while the
tagger learnt from 13,320; the eleventh when roles and result heads on 10,920 -> 14,520 lifted dev
results tuple F1 53.0 -> 56.5; the twelfth when the tagger on 10,920 -> 14,520 lifted the shared
results-dev tuple F1 53.1 -> 59.2; the thirteenth when roles and result heads on 14,520 -> 15,720
lifted dev results tuple F1 56.5 -> 58.0; the fourteenth and fifteenth when the recogniser
continued on 9,720 -> 18,120 lifted dev entity F1 75.3 -> 75.8 and dev results tuple F1 59.5 ->
62.6; the sixteenth and seventeenth while the tagger learnt from 20,520); draw k uses seed
``SEED + k``."""
READ_DRAWS = 17
"""Draws read in full (the first and the next sixteen); a later one may be read over several sittings:
its abstracts join the gold as readers finish them (``kg annotations batch --unread`` lists the rest)."""
DOUBLE = 104  # abstracts annotated a second time, blind, for agreement
MIN_WORDS = 40


def guidelines_version() -> dict[str, str]:
    """The guidelines each annotation follows, by content hash (a changed file is a new version)."""
    out = {}
    for name in ("entities-GUIDELINES.md", "results-GUIDELINES.md"):
        data = shared_path("eval", name).read_bytes()
        out[name] = "sha256:" + hashlib.sha256(data).hexdigest()[:16]
    return out


@dataclass(frozen=True, slots=True)
class CorpusRecord:
    """An abstract as the corpus has it, with where it was read (for messages)."""

    id: str
    corpus: str
    title: str
    abstract: str
    year: int | None
    stratum: str


def _read_corpus(name: str) -> Iterator[CorpusRecord]:
    with gzip.open(shared_path("corpus", name), "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError:
                continue  # the build reports these; a sample simply does not draw them
            stratum = d.get("primary_area") or f"{d.get('venue')} {d.get('year')}"
            yield CorpusRecord(d["id"], name, d.get("title") or "", d.get("abstract") or "", d.get("year"), stratum)


@lru_cache(maxsize=1)
def corpus() -> dict[str, CorpusRecord]:
    """Every corpus abstract by id (both files; ids do not collide across them)."""
    return {r.id: r for name in CORPUS_FILES for r in _read_corpus(name)}


@lru_cache(maxsize=1)
def forbidden_ids() -> frozenset[str]:
    """Ids never annotated here: the excluded list, the dev gold of both schemas, and the seeds."""
    ids = {
        line.strip()
        for line in shared_path("eval", "exclude-ids.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    for name in ("entities-dev.json", "results-dev.json"):
        ids.update(d["id"] for d in json.loads(shared_path("eval", name).read_text(encoding="utf-8")))
    return frozenset(ids)


def _stratified(rng: random.Random, sizes: dict[str, int], taken: set[str]) -> list[CorpusRecord]:
    """Round-robin over primary areas (ICLR 2026) and venue-years (older), each stratum shuffled."""
    by_file: dict[str, dict[str, list[CorpusRecord]]] = defaultdict(lambda: defaultdict(list))
    bad = forbidden_ids() | taken
    for rec in sorted(corpus().values(), key=lambda r: r.id):
        if rec.id not in bad and len(rec.abstract.split()) >= MIN_WORDS:
            by_file[rec.corpus][rec.stratum].append(rec)
    picked: list[CorpusRecord] = []
    for name, size in sizes.items():
        strata = {k: rng.sample(v, len(v)) for k, v in sorted(by_file[name].items())}
        order = sorted(strata)
        part: list[CorpusRecord] = []
        while len(part) < size:
            for key in order:
                if strata[key] and len(part) < size:
                    part.append(strata[key].pop())
        picked.extend(part)
    rng.shuffle(picked)
    return picked


def draw_sample(seed: int = SEED) -> list[dict]:
    """The first draw (split into test, dev and train, with the doubly annotated set), then the
    train-only draws of other abstracts, each stratified by area and venue-year."""
    rng = random.Random(seed)
    first = _stratified(rng, SAMPLE_SIZE, set())
    rows = [{"id": r.id, "corpus": r.corpus, "stratum": r.stratum, "split": "train", "double": False} for r in first]
    i = 0
    for split, n in SPLIT_SIZE.items():
        for row in rows[i : i + n]:
            row["split"] = split
        i += n
    for row in rng.sample(rows, DOUBLE):
        row["double"] = True
    taken = {r.id for r in first}
    for k, sizes in enumerate(EXTRA_TRAIN, 1):
        more = _stratified(random.Random(seed + k), sizes, taken)
        taken.update(r.id for r in more)
        rows += [{"id": r.id, "corpus": r.corpus, "stratum": r.stratum, "split": "train", "double": False} for r in more]
    return rows


def load_sample() -> list[dict]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))["abstracts"]


def read_in_full(sample: list[dict]) -> list[dict]:
    """The rows of the draws read in full (``READ_DRAWS``): every one has a first pass."""
    return sample[: sum(SAMPLE_SIZE.values()) + sum(sum(d.values()) for d in EXTRA_TRAIN[: READ_DRAWS - 1])]


# --- anchoring drafts -------------------------------------------------------------------------


class DraftError(KGError):
    """A draft that cannot be anchored; the message names the draft line and abstract."""


def anchor_entities(text: str, triples: list, where: str) -> list[dict]:
    """Offsets for quoted entity triples: every boundary-delimited occurrence, longest first."""
    cands = []
    urls = url_spans(text)
    for item in triples:
        if not isinstance(item, list) or len(item) not in (3, 4):
            raise DraftError(f"{where}: an entity is [text, label, canonical(, [occurrences])], got {item!r}")
        surface, label, canonical = item[:3]
        if label not in LABELS:
            raise DraftError(f"{where}: unknown label {label!r} for {surface!r} (one of {', '.join(LABELS)})")
        starts = [s for s in word_occurrences(text, surface) if not any(a <= s < b for a, b in urls)]
        if not starts:
            raise DraftError(f"{where}: {surface!r} does not occur in the abstract")
        if len(item) == 4:
            wanted = item[3]
            if any(not isinstance(k, int) or not 1 <= k <= len(starts) for k in wanted):
                raise DraftError(f"{where}: {surface!r} occurs {len(starts)} times; occurrences {wanted} asked")
            starts = [starts[k - 1] for k in wanted]
        for s in starts:
            cands.append((s, s + len(surface), label, canonical))
    return [{"start": s, "end": e, "label": lab, "canonical": can} for s, e, lab, can in without_overlaps((), cands)]


_WHOLE_NUMBER = r"(?<!\d)(?<!\d[.,]){}(?!\d)(?!(?<=\d)[.,]\d)"
"""A result value not cut out of a longer number: "7%" is not found in "20.7%", nor "5x" in "13-605x",
nor "0" in "0.298"."""


def anchor_results(text: str, drafts: list, where: str) -> list[dict]:
    """Offsets for drafted results: a value's ``nth`` counts its occurrences as a whole number."""
    out = []
    for r in drafts:
        value = r.get("value")
        starts = [m.start() for m in re.finditer(_WHOLE_NUMBER.format(re.escape(value or "\0")), text)]
        nth = r.get("nth", 1)
        if not value or not isinstance(nth, int) or not 1 <= nth <= len(starts):
            raise DraftError(f"{where}: result value {value!r} occurs {len(starts)} times; occurrence {nth} asked")
        s = starts[nth - 1]
        rec = {"start": s, "end": s + len(value)}
        rec.update({k: r.get(k) for k in RESULT_FIELDS})
        out.append(rec)
    return sorted(out, key=lambda r: r["start"])


def anchor(drafts: Iterable[tuple[str, dict]], *, annotator: str, pass_: str) -> list[dict]:
    """Standoff records for drafts given as (where, draft) pairs."""
    texts, version = corpus(), guidelines_version()
    out = []
    for where, d in drafts:
        rec = texts.get(d.get("id", ""))
        if rec is None:
            raise DraftError(f"{where}: id {d.get('id')!r} is not in the corpus")
        ents = anchor_entities(rec.abstract, d.get("entities", []), f"{where} ({rec.id})")
        paper = {k: list(dict.fromkeys(d.get("paper", {}).get(k, []))) for k in FACTS}
        results = anchor_results(rec.abstract, d.get("results", []), f"{where} ({rec.id})")
        out.append({"id": rec.id, "corpus": rec.corpus, "pass": pass_, "annotator": annotator, "guidelines": version,
                    "entities": ents, "paper": paper, "results": results})
    return out


# --- validation and loading -------------------------------------------------------------------


def validate(record: dict, where: str) -> list[str]:
    """Every problem with one standoff record (empty when it is sound)."""
    problems = []
    rec = corpus().get(record.get("id", ""))
    if rec is None:
        return [f"{where}: id {record.get('id')!r} is not in the corpus"]
    if rec.id in forbidden_ids():
        problems.append(f"{where}: {rec.id} is an excluded or dev id")
    text = rec.abstract
    spans = []
    for e in record.get("entities", []):
        if e.get("label") not in LABELS:
            problems.append(f"{where}: unknown label {e.get('label')!r}")
        if not (0 <= e.get("start", -1) < e.get("end", -1) <= len(text)):
            problems.append(f"{where}: offsets {e.get('start')}:{e.get('end')} outside the abstract")
            continue
        surface = text[e["start"] : e["end"]]
        if surface != surface.strip() or not surface.strip():
            problems.append(f"{where}: span {surface!r} has white space at an edge")
        if not e.get("canonical"):
            problems.append(f"{where}: span {surface!r} has no canonical name")
        spans.append((e["start"], e["end"]))
    spans.sort()
    for a, b in zip(spans, spans[1:]):
        if b[0] < a[1]:
            problems.append(f"{where}: spans {text[a[0]:a[1]]!r} and {text[b[0]:b[1]]!r} overlap")
    if len(set(spans)) != len(spans):
        problems.append(f"{where}: a span is annotated twice")
    canonicals = {e.get("canonical") for e in record.get("entities", [])}
    for k in FACTS:
        for name in record.get("paper", {}).get(k, []):
            if name not in canonicals:
                problems.append(f"{where}: paper fact {k} {name!r} is no mention's canonical name")
    for r in record.get("results", []):
        if not (0 <= r.get("start", -1) < r.get("end", -1) <= len(text)):
            problems.append(f"{where}: result offsets {r.get('start')}:{r.get('end')} outside the abstract")
        if r.get("kind") not in KINDS:
            problems.append(f"{where}: result kind {r.get('kind')!r}")
        if r.get("direction") not in DIRECTIONS or (r.get("kind") == "score") != (r.get("direction") is None):
            problems.append(f"{where}: result direction {r.get('direction')!r} for kind {r.get('kind')!r}")
        if r.get("qualifier") not in QUALIFIERS:
            problems.append(f"{where}: result qualifier {r.get('qualifier')!r}")
        try:
            if float(r["low"]) > float(r["high"]):
                problems.append(f"{where}: result low > high")
        except (KeyError, TypeError, ValueError):
            problems.append(f"{where}: result low/high not numbers")
    return problems


def annotation_files() -> list[Path]:
    return sorted(ANNOTATIONS.glob("*.jsonl"))


def read_standoff(paths: Iterable[Path] | None = None) -> Iterator[tuple[str, dict]]:
    """(``file:line``, record) for every stored annotation."""
    for path in paths if paths is not None else annotation_files():
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if line.strip():
                    yield f"{path.name}:{n}", json.loads(line)


def check(paths: Iterable[Path] | None = None) -> list[str]:
    """Problems across the stored annotations, including a paper annotated twice in one pass."""
    problems, seen = [], {}
    sample = {r["id"]: r for r in load_sample()} if SAMPLE.exists() else {}
    for where, rec in read_standoff(paths):
        problems.extend(validate(rec, where))
        key = (rec.get("id"), rec.get("pass"))
        if key in seen:
            problems.append(f"{where}: {rec.get('id')} pass {rec.get('pass')} already in {seen[key]}")
        seen[key] = where
        if sample and rec.get("id") not in sample:
            problems.append(f"{where}: {rec.get('id')} is not in the sample")
    return problems


def accepted_names(name: str | None, entities: list[dict]) -> str | list[str] | None:
    """A result's name with the other forms the abstract gives the same entity (an acronym and the
    long form it defines), as a list, as the results guidelines' gold writes it: either is right.

        >>> ents = [{"text": "Partner-Aware Skill Discovery", "canonical": "pasd"}, {"text": "PASD", "canonical": "pasd"}]
        >>> accepted_names("PASD", ents), accepted_names("accuracy", ents)
        (['PASD', 'Partner-Aware Skill Discovery'], 'accuracy')
    """
    if not name:
        return name
    groups = {e["canonical"] for e in entities if name in (e["text"], e["canonical"])}
    others = sorted({e["text"] for e in entities if e["canonical"] in groups} - {name})
    return [name, *others] if others else name


def with_text(record: dict, alternatives: bool = True) -> dict:
    """A standoff record rehydrated into the scorers' gold shape (texts read from the corpus); with
    ``alternatives``, each result name lists the forms ``accepted_names`` accepts."""
    rec = corpus()[record["id"]]
    text = rec.abstract
    ents = [{**e, "text": text[e["start"] : e["end"]]} for e in record["entities"]]
    results = [{"value": text[r["start"] : r["end"]], **r} for r in record.get("results", [])]
    if alternatives:
        results = [{**r, **{k: accepted_names(r.get(k), ents) for k in NAME_FIELDS}} for r in results]
    return {"id": rec.id, "title": rec.title, "abstract": text, "year": rec.year, "entities": ents,
            "paper": record["paper"], "results": results}


def load_gold(split: str | None = None, pass_: str = "a", alternatives: bool = True) -> list[dict]:
    """Gold of one split (or all) in the scorers' shape, one pass, in sample order; ``alternatives``
    as in ``with_text`` (off for a pass read as predictions)."""
    sample = {r["id"]: r for r in load_sample()}
    by_id = {rec["id"]: rec for _, rec in read_standoff() if rec.get("pass") == pass_}
    return [with_text(by_id[i], alternatives) for i, row in sample.items() if i in by_id and (split is None or row["split"] == split)]


def agreement() -> dict:
    """Pass b against pass a on the doubly annotated abstracts: entity exact/partial/untyped F1 per
    type, paper-fact F1 per kind, result detection and field agreement (the ceiling a model meets)."""
    from kg.evaluation.entities import score_entities, score_facts
    from kg.evaluation.results import score_results

    a = {g["id"]: g for g in load_gold(pass_="a")}
    b = [g for g in load_gold(pass_="b", alternatives=False) if g["id"] in a]
    gold = [a[g["id"]] for g in b]
    return {"abstracts": len(b), "entities": score_entities(b, gold),
            "paper_facts": score_facts({g["id"]: g["paper"] for g in b}, gold), "results": score_results(b, gold)}


def render(record: dict) -> str:
    """The abstract with its marks inline (``[[text|Label]]``), its facts and results, to proofread."""
    g = with_text(record, alternatives=False)
    text, out, pos = g["abstract"], [], 0
    for e in g["entities"]:
        out.append(text[pos : e["start"]])
        out.append(f"[[{e['text']}|{e['label']}" + ("" if e["canonical"] == e["text"] else f" = {e['canonical']}") + "]]")
        pos = e["end"]
    out.append(text[pos:])
    lines = [f"## {g['id']}  {g['title']}", "".join(out)]
    lines += [f"  {k}: {v}" for k, v in g["paper"].items() if v]
    for r in g["results"]:
        fields = ", ".join(f"{k}={r[k]!r}" for k in RESULT_FIELDS if r.get(k) is not None)
        lines.append(f"  result {r['value']!r} @{r['start']}: {fields}")
    return "\n".join(lines) + "\n"


def write_sample() -> int:
    """Draw the sample and write ``sample.json`` (with the guidelines' versions); returns its size."""
    rows = draw_sample()
    INDOMAIN.mkdir(parents=True, exist_ok=True)
    SAMPLE.write_text(json.dumps({"seed": SEED, "guidelines": guidelines_version(), "abstracts": rows}, indent=0) + "\n", encoding="utf-8")
    return len(rows)


def batch(part: int, of: int, pass_: str = "a", start: int = 0, unread: bool = False) -> list[dict]:
    """Part ``part`` of ``of`` of the sample (from row ``start`` on) as abstracts to read: pass b of
    part k is the doubly annotated share of part k+1, so nobody reads an abstract twice.  ``unread``
    leaves out the abstracts that already have that pass (a draw being read, picked up again)."""
    offset = part - 1 if pass_ == "a" else part % of
    texts = corpus()
    done = {rec["id"] for _, rec in read_standoff() if rec.get("pass") == pass_} if unread else set()
    return [{"id": r["id"], "title": texts[r["id"]].title, "abstract": texts[r["id"]].abstract}
            for i, r in enumerate(load_sample())
            if i >= start and i % of == offset and (pass_ == "a" or r["double"]) and r["id"] not in done]


def anchor_file(draft: Path, output: Path, *, annotator: str, pass_: str) -> tuple[int, list[str]]:
    """Anchor a reader's draft file and write its standoff records to ``output`` (atomically);
    returns the number of records and the problems ``validate`` finds.  A draft with a problem
    writes nothing, so a half-sound file never sits among the gold looking finished.  Raises
    ``DraftError``."""
    with open(draft, encoding="utf-8") as fh:
        drafts = [(f"{draft}:{n}", json.loads(line)) for n, line in enumerate(fh, 1) if line.strip()]
    records = anchor(drafts, annotator=annotator, pass_=pass_)
    problems = [p for i, rec in enumerate(records) for p in validate(rec, f"{drafts[i][0]}")]
    if problems:
        return len(records), problems
    tmp = output.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    tmp.replace(output)
    return len(records), problems
