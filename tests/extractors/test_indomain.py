"""The default extractor: the shipped in-domain model, its mention rules, paper roles and training."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy

from kg.extractors.indomain import ConfidentMentions, EntityMentions, model_path
from kg.extractors.pipeline import extract, load_pipeline
from kg.extractors.roles import ROLE_LABELS, Entity, LinearHeads, RoleClassifier, RoleHeads, features, sentences
from kg.extractors.text import clean_for_nlp
from kg.records import Abstract, Bound, Mention, Relation, Result
from kg.training import indomain as T
from kg.training.annotations import LABELS as TYPES, load_gold
from kg.training.tagger import GRID, exact_f1

MODEL = model_path()


@pytest.fixture(scope="module")
def nlp():
    return load_pipeline("indomain.v1")


def test_shipped_recogniser_reproduces_its_recorded_dev_score_exactly() -> None:
    """spaCy's encoder and ner give the same names on every x86 CPU seen so far, so any change here
    is a change in the code or the model files."""
    recorded = json.loads((MODEL / "scores.json").read_text())["tagger"]["dev_f1_recogniser_alone"]
    docs = load_gold("dev")
    found = T.recognised(MODEL, [clean_for_nlp(d["abstract"]) for d in docs])
    assert round(100 * exact_f1(found, docs), 2) == recorded


def test_shipped_model_reproduces_its_recorded_dev_scores() -> None:
    """Within a CPU's rounding, not exactly: the tagger runs 8-bit in onnxruntime, whose integer
    kernels differ by instruction set (AVX2 without VNNI saturates 16-bit pair sums), so a few
    borderline tokens change label between machines (dev entity F1 72.67 where the model was
    trained, 72.62 on an AVX2-only EPYC)."""
    recorded = json.loads((MODEL / "scores.json").read_text())["dev"]
    again = T.evaluate(MODEL, load_gold("dev"))
    assert again["entities"]["exact"]["gold"] == recorded["entities"]["exact"]["gold"]
    for measure in ("exact", "partial", "untyped"):
        assert again["entities"][measure]["f1"] == pytest.approx(recorded["entities"][measure]["f1"], abs=0.3)
    for fact, score in recorded["paper_facts"].items():
        assert again["paper_facts"][fact]["f1"] == pytest.approx(score["f1"], abs=1.5)
    assert again["results"]["tuple_f1"] == pytest.approx(recorded["results"]["tuple_f1"], abs=1.5)


def test_shipped_model_is_small() -> None:
    size = sum(p.stat().st_size for p in MODEL.rglob("*") if p.is_file())
    assert size <= 50 * 2**20


def test_names_are_counted_in_the_unlabelled_corpus_as_whole_words() -> None:
    """Counted as a plain word search would count them, over the abstracts the vectors learn from."""
    from kg.extractors.roles import name_key
    from kg.training.annotations import corpus
    from kg.training.vectors import held_out_ids

    text = "We train FooNetPlus with reinforcement learning on ImageNet."
    doc = {"abstract": text, "entities": [{"start": text.index(n), "end": text.index(n) + len(n)}
                                          for n in ("FooNetPlus", "reinforcement learning", "ImageNet")]}
    counts = T.abstracts_per_name([doc], limit=2000)
    held_out = held_out_ids()
    read = [r for r in sorted(corpus().values(), key=lambda r: r.id) if r.id not in held_out][:2000]
    for name in ("reinforcement learning", "imagenet"):
        assert counts[name] == sum(f" {name} " in f" {name_key(r.title + ' ' + r.abstract)} " for r in read) > 20
    assert set(counts) == {"reinforcement learning", "imagenet"}


def test_training_runs_end_to_end_on_a_tiny_subset(tmp_path: Path) -> None:
    out = tmp_path / "model"
    record = T.train(out, limit=6, work_dir=tmp_path / "work", vectors=None,
                     overrides={"training.max_steps": 4, "training.eval_frequency": 2})
    assert record["train_abstracts"] == 6 and record["dev"]["abstracts"] == 6
    assert {p.name for p in out.iterdir()} >= {"ner", "tok2vec", "mentions.json", "roles.json.gz", "result_names.json", "scores.json",
                                               "result_detector.json", "tagger.onnx", "tagger-pieces.json", "tagger.json"}
    thresholds = json.loads((out / "tagger.json").read_text())["thresholds"]
    assert set(thresholds) == {"relabel", "add"} and thresholds["relabel"] in GRID
    assert set(thresholds["add"]) == set(TYPES) and set(thresholds["add"].values()) <= set(GRID)
    assert record["tagger"]["dev_f1"] >= record["tagger"]["dev_f1_recogniser_alone"]
    assert record["tagger"]["epochs"] == 1  # a smoke run fine-tunes the tagger once over its six abstracts
    heads = RoleHeads.from_disk(out / "roles.json.gz")
    assert set(heads.thresholds) == set(ROLE_LABELS)
    [x] = T._predict(out, [{"id": "x", "abstract": "We propose FooNet for image classification on ImageNet."}])
    assert x.abstract_id == "x"  # a model this small finds little; it must run and return a record


def test_training_continues_from_a_trained_recogniser_as_it_was(tmp_path: Path) -> None:
    """Continuing starts from the model's own weights and floret table: with a learning rate of
    zero (and no parameter averaging, whose running mean starts from zeros) the continued
    recogniser reads every abstract exactly as the one it started from."""
    out = tmp_path / "model"
    record = T.train(out, limit=6, work_dir=tmp_path / "work", continue_from=MODEL, tagger=MODEL,
                     overrides={"training.max_steps": 2, "training.eval_frequency": 1, "training.optimizer.learn_rate": 0.0,
                                "training.optimizer.use_averages": False})
    assert record["tagger"]["reused"] == str(MODEL) and "epochs" not in record["tagger"]
    texts = [clean_for_nlp(d["abstract"]) for d in load_gold("dev")[:20]]
    shipped = T.recognised(MODEL, texts)
    assert sum(map(len, shipped)) > 100
    assert T.recognised(out, texts) == shipped


def _mentions(nlp, text: str, title: str = ""):
    [x] = list(extract([Abstract("t", text, title=title)], extractor="indomain.v1"))
    return x


def test_acronym_and_long_form_are_one_entity_and_every_repeat_is_marked(nlp) -> None:
    text = ("We introduce Equilibrium Propagation (EP), a learning rule for energy-based models. "
            "EP computes gradients with two relaxations. We show that EP scales to CIFAR-10.")
    x = _mentions(nlp, text)
    eps = [m for m in x.entities if m.text in ("Equilibrium Propagation", "EP")]
    assert [m.text for m in eps] == ["Equilibrium Propagation", "EP", "EP", "EP"]
    assert {m.canonical for m in eps} == {"equilibrium propagation"} and len({m.label for m in eps}) == 1
    assert all(text[m.start:m.end] == m.text for m in x.entities)


def test_a_name_spelled_out_after_it_in_parentheses_is_one_entity(nlp) -> None:
    text = ("We introduce SALT (Static-teacher Asymmetric Latent Training), a recipe for video encoders. "
            "SALT trains faster than V-JEPA.")
    x = _mentions(nlp, text)
    salt = [m for m in x.entities if m.text in ("SALT", "Static-teacher Asymmetric Latent Training")]
    assert [m.text for m in salt] == ["SALT", "Static-teacher Asymmetric Latent Training", "SALT"]
    assert {m.canonical for m in salt} == {"static teacher asymmetric latent training"} and len({m.label for m in salt}) == 1


def _aligned_long_forms(text: str, recognised: list[str]) -> tuple[list[str], list[str]]:
    """The long forms and recognised spans ``_aligned`` makes of ``text``'s pairs and these recognised names."""
    from kg.extractors.abbreviations import find_abbreviations
    from kg.extractors.indomain import _aligned

    found = [(text.index(r), text.index(r) + len(r), "Method", "ner") for r in recognised]
    pairs, spans = _aligned(find_abbreviations(text), text, found)
    return [a.long for a in pairs], [text[s:e] for s, e, _, _ in spans]


@pytest.mark.parametrize(
    "text,recognised,long_forms,spans",
    [
        # the recogniser's longer reading ends where the long form does: the letters stopped early
        ("the Copeland Confidence Bound (CCB) rule", ["Copeland Confidence Bound"], ["Copeland Confidence Bound"], ["Copeland Confidence Bound"]),
        # pieces inside the long form give way to it
        ("we propose flexible SVM (Flex-SVM) for", ["SVM"], ["flexible SVM"], ["flexible SVM"]),
        ("via Bayesian experimental design with large language models (BED-LLM).", ["Bayesian experimental design", "large language models"],
         ["Bayesian experimental design with large language models"], ["Bayesian experimental design with large language models"]),
        # a lower-case generic head goes when the words before it spell the acronym; a capitalised one is the name's
        ("a Dual-View Feature Interaction module (DVFI) fuses", ["Dual-View Feature Interaction"], ["Dual-View Feature Interaction"], ["Dual-View Feature Interaction"]),
        ("the Material Point Method (MPM) simulates", ["Material Point"], ["Material Point Method"], ["Material Point Method"]),
        # a recognised name that holds the acronym is left as it is
        ("the Key-Value (KV) cache grows", ["Key-Value (KV) cache"], ["Key-Value"], ["Key-Value (KV) cache"]),
    ],
)
def test_an_acronym_joins_the_name_the_recogniser_read(text, recognised, long_forms, spans) -> None:
    assert _aligned_long_forms(text, recognised) == (long_forms, spans)


def test_an_acronym_written_in_other_capitals_later_is_the_same_entity(nlp) -> None:
    text = ("We propose a new method that we call MIDSTEER (MInimal Disturbance concept STEERing). "
            "Our results show that MidSteer performs favourably on a variety of tasks.")
    x = _mentions(nlp, text)
    steer = [m for m in x.entities if m.text in ("MIDSTEER", "MidSteer", "MInimal Disturbance concept STEERing")]
    assert {m.text for m in steer} == {"MIDSTEER", "MidSteer", "MInimal Disturbance concept STEERing"}
    assert {m.canonical for m in steer} == {"minimal disturbance concept steering"}


def test_a_long_form_with_its_acronym_letters_in_bold_is_one_whole_name(nlp) -> None:
    """Papers bold the letters of their acronym inside the words ("**Re**current"); the NLP sees that
    markup blanked, which splits the words, so the spans are grown back over it."""
    text = ("Teaching is expensive for recurrent networks. To tackle this, we introduce a paradigm called "
            "**Re**current **N**eural **T**eaching (ReNT), which reinterprets the learning process. ReNT is fast.")
    x = _mentions(nlp, text)
    names = {m.text: m.canonical for m in x.entities}
    assert names.get("Re**current **N**eural **T**eaching") == "recurrent neural teaching"
    assert names.get("ReNT") == "recurrent neural teaching"
    assert not [n for n in names if n in ("Re", "Re**current") or n.startswith("current")]


def test_paper_roles_on_a_clear_abstract(nlp) -> None:
    text = ("Image classification with noisy labels remains hard. We propose NoiseNet, a robust training method "
            "that reweights samples. Experiments on CIFAR-10 and ImageNet show that NoiseNet outperforms "
            "co-teaching and mixup in accuracy.")
    x = _mentions(nlp, text, title="NoiseNet: robust training under label noise")
    names = {r.label: set() for r in x.relations}
    for r in x.relations:
        names[r.label].add(x.entities[r.tail].text)
    assert "NoiseNet" in names.get("PROPOSES", set())
    assert names.get("EVALUATED_ON", set()) & {"CIFAR-10", "ImageNet"}
    assert all(0.0 < r.confidence <= 1.0 for r in x.relations)
    proposed = {i for i, m in enumerate(x.entities) if m.text == "NoiseNet"}
    assert all(r.head in proposed for r in x.relations if r.label == "EVALUATED_ON")


def test_an_entity_is_proposed_or_used_never_both() -> None:
    """Both heads pass for both entities; the head further above its threshold keeps each one."""
    nlp = spacy.blank("en")
    text = "We propose FooNet. It beats BarNet."
    doc = nlp(text)
    doc._.kg_mentions = (Mention(11, 17, "FooNet", "Model", "foonet", 0, 18, "t", 1.0),
                         Mention(28, 34, "BarNet", "Model", "barnet", 19, 35, "t", 1.0))
    others = {role: -9.0 for role in ROLE_LABELS if role not in ("proposes", "uses")}
    heads = RoleHeads({role: {"rank=0|Model": 3.0} if role == "proposes" else {} for role in ROLE_LABELS},
                      {"proposes": 0.0, "uses": 1.0, **others}, dict.fromkeys(ROLE_LABELS, 0.5))
    found = RoleClassifier(heads)(doc)._.kg_relations
    assert sorted((r.label, r.head, r.tail) for r in found) == [("PROPOSES", None, 0), ("USES", 0, 1)]


def test_a_baseline_beaten_at_a_later_mention_is_outperformed_there() -> None:
    """The sentence that says the proposal does better is read at every mention spelled as the
    baseline's name, and that mention and sentence are the evidence; an acronym's sentence is not
    read, since the edge's mention would then be the acronym rather than the name."""
    nlp = spacy.blank("en")
    sentences = ["We propose FooNet.", "Prior work used Best-of-N (BoN).", "FooNet beats Best-of-N.", "It also beats BoN."]
    text = " ".join(sentences)
    bounds = [(text.index(x), text.index(x) + len(x)) for x in sentences]

    def mention(name: str, sentence: int, canonical: str, aliases: tuple[str, ...] = ()) -> Mention:
        start = text.index(name, bounds[sentence][0])
        return Mention(start, start + len(name), name, "Method", canonical, *bounds[sentence], "t", 1.0, aliases)

    mentions = (mention("FooNet", 0, "foonet"), mention("Best-of-N", 1, "best of n"),
                mention("BoN", 1, "best of n", ("BoN", "Best-of-N")), mention("FooNet", 2, "foonet"),
                mention("Best-of-N", 2, "best of n"), mention("BoN", 3, "best of n", ("BoN", "Best-of-N")))
    weights = {"proposes": {"rank=0|Method": 4.0}, "compared_with": {"rank=1|Method": 4.0}}
    heads = RoleHeads({role: weights.get(role, {}) for role in ROLE_LABELS},
                      {role: -2.0 if role in weights else -9.0 for role in ROLE_LABELS}, dict.fromkeys(ROLE_LABELS, 0.5))
    compared = []
    for kept in (mentions, mentions[:4] + mentions[5:]):  # then only the acronym's sentence says it
        doc = nlp(text)
        doc._.kg_mentions = kept
        compared += [(r.label, r.head, r.tail, r.sentence_start) for r in RoleClassifier(heads)(doc)._.kg_relations
                     if r.label != "PROPOSES"]
    assert compared == [("OUTPERFORMS", 0, 4, bounds[2][0]), ("COMPARED_WITH", 0, 1, bounds[1][0])]


def test_without_a_proposed_entity_the_likeliest_own_method_heads_the_other_roles() -> None:
    """An evaluation paper proposes nothing: its model, not the paper, is what was evaluated on the
    benchmark (so ``methods_on_dataset`` finds it); with no method or model named, the paper is."""
    nlp = spacy.blank("en")
    text = "We evaluate GPT-4 and Llama on MMLU."
    mentions = (Mention(12, 17, "GPT-4", "Model", "GPT-4", 0, 36, "t", 1.0),
                Mention(22, 27, "Llama", "Model", "llama", 0, 36, "t", 1.0),
                Mention(31, 35, "MMLU", "Dataset", "MMLU", 0, 36, "t", 1.0))
    heads = RoleHeads({role: {"rank=0|Model": 1.0} if role == "proposes" else {} for role in ROLE_LABELS},
                      {role: 2.0 if role == "evaluated_on" else -2.0 for role in ROLE_LABELS}, dict.fromkeys(ROLE_LABELS, 0.5))
    doc = nlp(text)
    doc._.kg_mentions = mentions
    found = RoleClassifier(heads)(doc)._.kg_relations
    assert [(r.label, r.head, r.tail) for r in found] == [("EVALUATED_ON", 0, 2)]
    doc = nlp(text)
    doc._.kg_mentions = mentions[2:]
    found = RoleClassifier(heads)(doc)._.kg_relations
    assert [(r.label, r.head, r.tail) for r in found] == [("EVALUATED_ON", None, 0)]


def test_a_benchmark_the_paper_introduces_and_evaluates_on_is_both() -> None:
    """The proposal cannot head its own EVALUATED_ON (it was dropped): the model evaluated on it does."""
    nlp = spacy.blank("en")
    text = "We introduce XBench and evaluate GPT-4 on XBench."
    doc = nlp(text)
    doc._.kg_mentions = (Mention(13, 19, "XBench", "Dataset", "XBench", 0, 49, "t", 1.0),
                         Mention(33, 38, "GPT-4", "Model", "GPT-4", 0, 49, "t", 1.0),
                         Mention(42, 48, "XBench", "Dataset", "XBench", 0, 49, "t", 1.0))
    proposes = {"rank=0|Dataset": 4.0, "rank=0|Model": 1.0}
    heads = RoleHeads({role: proposes if role == "proposes" else {} for role in ROLE_LABELS},
                      {role: {"proposes": -2.0, "evaluated_on": 2.0}.get(role, -9.0) for role in ROLE_LABELS},
                      dict.fromkeys(ROLE_LABELS, 0.5))
    found = RoleClassifier(heads)(doc)._.kg_relations
    assert sorted((r.label, r.head, r.tail) for r in found) == [("EVALUATED_ON", 1, 0), ("PROPOSES", None, 0)]


def test_mention_confidence_is_a_probability(nlp) -> None:
    x = _mentions(nlp, "We fine-tune large language models with LoRA on GSM8K and report accuracy.")
    assert x.entities and all(0.0 < m.confidence < 1.0 for m in x.entities)


def test_role_features_read_cues_title_and_position() -> None:
    text = "We propose FooNet. FooNet beats BarNet on ImageNet."
    foo = Entity("foonet", "Model", ((11, 17), (19, 25)))
    bar = Entity("barnet", "Model", ((32, 38),))
    seen = {"barnet": 40}
    f = features(text, "FooNet: fast nets", foo, [foo, bar], seen)
    assert {"in_title|Model", "title_starts|Model", "b1:propose|Model", "rank=0|Model", "before_outperform|Model",
            "n:foonet|Model", "seen=0|Model"} <= set(f)
    g = features(text, "", bar, [foo, bar], seen)
    assert {"after_outperform|Model", "seen=5|Model"} <= set(g)
    assert sentences(text) == [(0, 18), (19, len(text))]


def test_linear_heads_sum_weights_of_present_features(tmp_path: Path) -> None:
    heads = LinearHeads({"proposes": {"a": 2.0, "b": -1.0}}, {"proposes": -1.0}, {"proposes": 0.5})
    assert heads.probability("proposes", ["a"]) == pytest.approx(1 / (1 + 2.718281828 ** -1.0))
    heads.to_disk(tmp_path / "h.json")
    assert LinearHeads.from_disk(tmp_path / "h.json").probability("proposes", ["a", "b", "c"]) == pytest.approx(0.5)


def test_role_heads_keep_their_name_counts_gzipped(tmp_path: Path) -> None:
    heads = RoleHeads({"proposes": {"seen=5|Model": -2.0}}, {"proposes": 0.0}, {"proposes": 0.5}, seen={"barnet": 40})
    heads.to_disk(tmp_path / "roles.json.gz")
    again = RoleHeads.from_disk(tmp_path / "roles.json.gz")
    assert again.seen == {"barnet": 40} and again.weights == heads.weights
    assert (tmp_path / "roles.json.gz").read_bytes()[:2] == b"\x1f\x8b"
    heads.to_disk(tmp_path / "again.json.gz")  # no time stamp: the same heads, the same bytes
    assert (tmp_path / "again.json.gz").read_bytes() == (tmp_path / "roles.json.gz").read_bytes()


def test_shipped_role_heads_count_common_names_and_not_new_ones() -> None:
    """The shipped count says a name everybody uses is common and a paper's coined name is not."""
    seen = RoleHeads.from_disk(MODEL / "roles.json.gz").seen
    assert seen["imagenet"] > 100 and seen["reinforcement learning"] > 500
    assert "foonetplus" not in seen and min(seen.values()) >= 2


def test_entity_component_without_a_recogniser_marks_nothing() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    doc = EntityMentions(None)(nlp("Nothing recognised here."))
    assert doc._.kg_mentions == ()


def test_mentions_below_the_threshold_go_last_unless_a_relation_stands_on_them() -> None:
    nlp = spacy.blank("en")
    doc = nlp("FooNet beats BarNet on Widget with BazNet. FooNet again.")
    doc._.kg_mentions = (Mention(0, 6, "FooNet", "Model", "foonet", confidence=0.3),
                         Mention(13, 19, "BarNet", "Model", "barnet", confidence=0.9),
                         Mention(23, 29, "Widget", "Dataset", "widget", confidence=0.2),
                         Mention(35, 41, "BazNet", "Model", "baznet", confidence=0.1),
                         Mention(43, 49, "FooNet", "Model", "foonet", confidence=0.8))
    doc._.kg_relations = (Relation(None, 0, "PROPOSES"), Relation(0, 1, "COMPARED_WITH"), Relation(4, 1, "COMPARED_WITH"),
                          Relation(0, 3, "USES"))
    doc._.kg_results = (Result(7, 12, "3%", 3.0, 3.0, method="FooNet", dataset="Widget", method_entity=0, dataset_entity=2),)
    doc._.bounds = (Bound(0, 1, "O(n)", "O", "O(n)", subject_entity=4),)
    ConfidentMentions(0.39)(doc)
    assert [m.text for m in doc._.kg_mentions] == ["FooNet", "BarNet", "BazNet", "FooNet"]  # relations stand on them
    assert [(r.head, r.tail, r.label) for r in doc._.kg_relations] == [
        (None, 0, "PROPOSES"), (0, 1, "COMPARED_WITH"), (3, 1, "COMPARED_WITH"), (0, 2, "USES")]
    [result] = doc._.kg_results
    assert (result.method_entity, result.dataset_entity, result.dataset) == (0, None, "Widget")
    assert doc._.bounds[0].subject_entity == 3


def test_a_result_name_on_a_dropped_mention_moves_to_a_kept_one_of_the_same_name() -> None:
    nlp = spacy.blank("en")
    doc = nlp("FooNet gets 3%. FooNet again.")
    doc._.kg_mentions = (Mention(0, 6, "FooNet", "Model", "foonet", confidence=0.2),
                         Mention(16, 22, "FooNet", "Model", "foonet", confidence=0.9))
    doc._.kg_relations = ()
    doc._.kg_results = (Result(12, 14, "3%", 3.0, 3.0, method="FooNet", method_entity=0),)
    doc._.bounds = ()
    ConfidentMentions(0.39)(doc)
    assert [m.start for m in doc._.kg_mentions] == [16] and doc._.kg_results[0].method_entity == 0


def test_the_mention_threshold_is_half_the_f1_it_gives() -> None:
    """A calibrated model's F1-optimal cut is half the F1 at that cut, found from no cut on."""
    scored = [(0.95, 1)] * 60 + [(0.6, 1)] * 20 + [(0.6, 0)] * 10 + [(0.25, 1)] * 5 + [(0.25, 0)] * 15
    threshold = T.half_f1_threshold(scored, gold=100)
    kept = [y for p, y in scored if p >= threshold]
    assert threshold == round(2 * sum(kept) / (len(kept) + 100) / 2, 2) == 0.42
    assert T.fit_confidence([], []).thresholds["mention"] == 0.0  # nothing to learn from: nothing dropped


def test_shipped_weights_are_stored_at_half_precision_and_computed_at_single() -> None:
    """Every shipped file stays under 20 MB, and the loaded pipeline computes in float32."""
    assert max(f.stat().st_size for f in model_path().rglob("*") if f.is_file()) < 20 * 2**20
    stored = {str(node.get_param(name).dtype) for pipe in ("tok2vec", "ner") for node in spacy.load(model_path()).get_pipe(pipe).model.walk()
              for name in node.param_names if node.has_param(name)}
    assert stored == {"float16"}
    nlp = load_pipeline()
    used = {str(node.get_param(name).dtype) for pipe in ("indomain_tok2vec", "indomain_ner") for node in nlp.get_pipe(pipe).model.walk()
            for name in node.param_names if node.has_param(name)}
    assert used == {"float32"}
    assert str(spacy.load(model_path()).vocab.vectors.data.dtype) == "float16"
    assert str(nlp.vocab.vectors.data.dtype) == "float32"
