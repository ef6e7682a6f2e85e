"""The result name ranker: its candidates, that a rules-only head keeps the rules' names, that
weights decide, the training rows, and the shipped ranker on a clear abstract."""

from __future__ import annotations

from dataclasses import replace

from kg.extractors.pipeline import extract
from kg.extractors.result_names import FIELD_LABELS, NameRanker, as_guidelines, candidates, phrases_beside, sentence_positions
from kg.extractors.results import find_results, metric_spans
from kg.extractors.roles import LinearHeads
from kg.records import Abstract, Extraction, Mention, Relation
from kg.training import indomain as T

TEXT = ("We propose FooNet, a sparse transformer. Results on CIFAR-10 are strong. "
        "On ImageNet, FooNet improves top-1 accuracy by 3.7% over ViT-B.")


def _mention(text: str, label: str, nth: int = 0) -> Mention:
    start = -1
    for _ in range(nth + 1):
        start = TEXT.index(text, start + 1)
    return Mention(start, start + len(text), text, label, text.lower())


MENTIONS = (_mention("FooNet", "Method"), _mention("CIFAR-10", "Dataset"), _mention("ImageNet", "Dataset"),
            _mention("FooNet", "Method", 1), _mention("top-1 accuracy", "Metric"), _mention("ViT-B", "Model"))
PROPOSES = (Relation(None, 0, "PROPOSES", 0, 40, "roles.v1", 0.95),)


def _result():
    [r] = find_results(TEXT)
    return r


def _rank(heads: LinearHeads):
    [ranked] = NameRanker(heads).rank([_result()], TEXT, "FooNet", MENTIONS, PROPOSES, metric_spans(TEXT, 0, len(TEXT)))
    return ranked


def test_candidates_start_with_no_name_and_mark_the_rules_pick() -> None:
    r = _result()
    found = candidates("method", r, TEXT, "FooNet", MENTIONS, PROPOSES)
    assert found[0].name is None and "none" in found[0].features
    names = {c.name: c.features for c in found[1:]}
    assert set(names) == {"FooNet", "ViT-B"}
    assert r.method == "FooNet" and "is_rule" in names["FooNet"] and "is_rule" not in names["ViT-B"]
    assert "proposed=3" in names["FooNet"] and "in_title" in names["FooNet"]
    assert "label=Model" in names["ViT-B"] and "pos=after|sent" in names["ViT-B"]
    # the nearest FooNet is the second mention, 3 words before the number, in its sentence
    foonet = next(c for c in found if c.name == "FooNet")
    assert foonet.entity == 3 and "pos=before|sent" in foonet.features


def test_a_benchmark_named_only_in_another_sentence_is_a_candidate_marked_so() -> None:
    """Readers take a number's benchmark from another sentence when its own names none; the
    heads weigh where it stands."""
    found = {c.name: c.features for c in candidates("dataset", _result(), TEXT, "", MENTIONS, ())}
    assert list(found) == [None, "ImageNet", "CIFAR-10"]
    assert "pos=before|sent" in found["ImageNet"] and "pos=before|out" in found["CIFAR-10"]


def test_metric_names_of_the_sentence_are_candidates_in_the_guidelines_form() -> None:
    assert as_guidelines("metric", "inference speedup") == "inference speed"
    assert as_guidelines("metric", "Speed-up") == "speed" and as_guidelines("method", "speedup") == "speedup"
    text = "FooNet gives a 3.3× speedup over ViT-B."
    [r] = find_results(text)
    names = [c.name for c in candidates("metric", replace(r, metric=None), text, "", (), (), metric_spans(text, 0, len(text)))]
    assert names == [None, "speed"]


def test_the_words_beside_a_number_are_metric_candidates_when_no_list_knows_the_measure() -> None:
    text = "Under noise, prefix damage falls to 0.6% vs 26.5% for Mamba2, with 58.0% line-level localization."
    first, _, third = find_results(text)
    assert phrases_beside(text, first) == [("damage", "before"), ("prefix damage", "before")]
    assert phrases_beside(text, third)[:2] == [("line-level", "after"), ("line-level localization", "after")]
    found = {c.name: c.features for c in candidates("metric", first, text, "", (), ())}
    assert "source=phrase_before" in found["prefix damage"] and "head=damage" in found["prefix damage"]


def test_the_words_before_a_number_are_read_from_a_window_and_a_word_it_cuts_is_left_out() -> None:
    """A sentence of thousands of characters (a fuzzed abstract with no full stop) is read only in the
    characters just before the number: what is found there is what the whole sentence gives, and a
    word cut at the window's edge is no candidate."""
    from kg.extractors.result_names import _READ_BEFORE

    text = "Ours " + "(" * 5000 + " ((( prefix damage falls to 0.6% on ImageNet."
    [r] = find_results(text)
    assert r.sentence_start == 0 and r.start > _READ_BEFORE
    assert phrases_beside(text, r) == [("damage", "before"), ("prefix damage", "before")]
    token = "x" * (_READ_BEFORE + 50)
    glued = f"We find that {token} damage falls to 0.6% on ImageNet."
    [r] = find_results(glued)
    assert [name for name, side in phrases_beside(glued, r) if side == "before"] == ["damage"]
    short = "We find that xxxx damage falls to 0.6% on ImageNet."
    [r] = find_results(short)
    assert [name for name, side in phrases_beside(short, r) if side == "before"] == ["damage", "xxxx damage"]


def test_a_comparative_after_the_number_is_passed_and_faster_means_speed() -> None:
    text = "FooNet needs 3.1x fewer parameters and runs $2.5\\times$ faster than ViT-B."
    fewer, faster = find_results(text)
    assert phrases_beside(text, fewer)[0] == ("parameters", "after")
    assert phrases_beside(text, faster)[0] == ("speed", "faster")
    found = {c.name: c.features for c in candidates("metric", faster, text, "", (), ())}
    assert "source=phrase_faster" in found["speed"]


def test_a_measure_the_abstract_names_for_its_numbers_is_a_metric_candidate_far_from_them() -> None:
    """"performance" is no Metric mention and stands far from the number, yet readers write it as
    the metric of "a 9.1% absolute gain" when the abstract measures everything by it."""
    text = ("FooNet enhances the performance of MLLMs across embodied tasks on BEAR, yielding a 9.1% absolute gain. "
            "It also runs on a single GPU.")
    [r] = find_results(text)
    found = {c.name: c.features for c in candidates("metric", r, text, "", (), ())}
    assert "source=abstract_word" in found["performance"] and "word=performance" in found["performance"]
    assert "pos=before|sent" in found["performance"] and "accuracy" not in found
    without = text.replace("performance", "robustness")
    [r] = find_results(without)
    assert "performance" not in {c.name for c in candidates("metric", r, without, "", (), ())}


def test_a_phrase_beside_a_number_stops_at_words_no_measure_name_holds() -> None:
    """"99% without sacrificing decoding" gave the metric "without sacrificing decoding"."""
    for text, phrases in [("FooNet keeps 99% without sacrificing decoding quality.", [("keeps", "before"), ("FooNet keeps", "before")]),
                          ("The error drops to 3.2% between human and model judges.", [("error", "before")]),
                          ("It reaches 0.53 ms per sample.", [("ms", "after"), ("It", "before")])]:
        [r] = find_results(text)
        assert phrases_beside(text, r) == phrases


def test_a_baseline_described_or_found_by_the_rules_is_a_method_candidate() -> None:
    text = "ATLAS improves the final pass rate from 23.3% to 44.4% over its best alternative."
    first, _ = find_results(text)
    found = {c.name: c.features for c in candidates("method", first, text, "", (), ())}
    assert "source=others_phrase" in found["its best alternative"]
    text = "FooNet improves top-1 accuracy by 3.7% over ViT-B."
    [gain] = find_results(text)
    assert gain.baseline == "ViT-B"
    assert "source=rule_baseline" in {c.name: c.features for c in candidates("method", gain, text, "", (), ())}["ViT-B"]


def test_a_baseline_is_chosen_among_the_rules_pick_the_mentions_and_baselines_described() -> None:
    """The rules read "over ViT-B"; the heads may also take a described baseline or, where the rules
    swapped the two, the rules' method; a field the heads do not rank keeps the rules' value."""
    found = {c.name: c.features for c in candidates("baseline", _result(), TEXT, "FooNet", MENTIONS, PROPOSES)}
    assert list(found)[0] is None and {"FooNet", "ViT-B"} <= set(found)
    assert "is_rule" in found["ViT-B"] and "label=Model" in found["ViT-B"] and "source=rule_method" in found["FooNet"]
    text = "ATLAS improves the final pass rate by 4.1% over its best alternative."
    [gain] = find_results(text)
    assert "source=others_phrase" in {c.name: c.features for c in candidates("baseline", gain, text, "", (), ())}["its best alternative"]
    heads = LinearHeads({"method": {"is_rule": 1.0}, "baseline": {"label=Method": 3.0}}, {"method": 0.0, "baseline": 0.0}, {})
    ranked = _rank(heads)
    assert (ranked.baseline, ranked.baseline_entity) == ("FooNet", 3)
    assert (ranked.metric, ranked.dataset) == (_result().metric, _result().dataset) == ("top-1 accuracy", "ImageNet")


def test_the_kth_number_of_a_list_is_aligned_with_the_kth_name_listed_after_the_numbers() -> None:
    text = "On Pile, FooNet gains 1.4%, 4.4% and 2.0% on MZ-4, MZ-10 and Dxy respectively."
    results = find_results(text)
    assert [r.text for r in results] == ["1.4%", "4.4%", "2.0%"]
    places = sentence_positions(results)
    assert places == [(0, 3, results[2].end), (1, 3, results[2].end), (2, 3, results[2].end)]
    mentions = [Mention(text.index(n), text.index(n) + len(n), n, "Dataset", n.lower()) for n in ("Pile", "MZ-4", "MZ-10", "Dxy")]
    aligned = [[c.name for c in candidates("dataset", r, text, "", mentions, (), (), p) if "aligned=True" in c.features]
               for r, p in zip(results, places)]
    assert aligned == [["MZ-4"], ["MZ-10"], ["Dxy"]]


def test_a_rules_only_head_keeps_the_rules_names() -> None:
    heads = LinearHeads({f: {"is_rule": 1.0} for f in FIELD_LABELS}, {f: 0.0 for f in FIELD_LABELS}, {})
    ranked, rule = _rank(heads), _result()
    assert (ranked.method, ranked.metric, ranked.dataset) == (rule.method, rule.metric, rule.dataset) \
        == ("FooNet", "top-1 accuracy", "ImageNet")


def test_weights_decide_and_the_choice_points_at_its_mention() -> None:
    heads = LinearHeads({"method": {"label=Model": 2.0, "is_rule": 1.0}, "metric": {"none": 5.0},
                         "dataset": {"is_rule": 1.0}}, {f: 0.0 for f in FIELD_LABELS}, {})
    ranked = _rank(heads)
    assert (ranked.method, ranked.method_entity) == ("ViT-B", 5)
    assert (ranked.metric, ranked.metric_entity) == (None, None)
    assert (ranked.dataset, ranked.dataset_entity) == ("ImageNet", 2)


def test_training_rows_are_right_where_the_gold_names_the_candidate() -> None:
    gold = {"id": "t", "abstract": TEXT, "title": "FooNet", "results": [
        {"start": _result().start, "end": _result().end, "method": "FooNet", "metric": "top-1 acc.",
         "dataset": None}]}
    x = Extraction("t", "indomain.v1", MENTIONS, PROPOSES, results=(_result(),))
    groups = T.result_name_groups([x], [gold])
    assert {field: len(g) for field, g in groups.items()} == {"method": 1, "baseline": 1, "metric": 1, "dataset": 1}  # one result
    rows = {field: g[0] for field, g in groups.items()}
    methods = dict(zip([next(f for f in r if f.startswith("source") or f.startswith("label") or f == "none") for r in rows["method"][0]],
                       rows["method"][1]))
    assert methods == {"none": 0, "label=Method": 1, "label=Model": 0}
    datasets = rows["dataset"]
    assert [y for r, y in zip(*datasets) if "none" in r] == [1] and sum(datasets[1]) == 1
    assert sum(rows["metric"][1]) == 1  # "top-1 accuracy" matches "top-1 acc." loosely; the rest do not


def test_the_listwise_fit_prefers_what_is_right_within_each_result() -> None:
    """"near" is right in every group where it stands beside "far"; "far" is right only in groups
    where "near" is absent, so a pointwise model would find both about as often right, but within
    a group the choice is always "near" when it is there.  Groups with nothing right teach nothing."""
    groups = [([["near"], ["far"], ["none"]], [1, 0, 0])] * 6 + [([["far"], ["none"]], [1, 0])] * 6
    weights = T._fit_listwise(groups, c=1.0)
    assert weights["near"] > weights["far"] > weights["none"]
    assert T._fit_listwise([([["near"], ["far"]], [0, 0])] * 6, c=1.0) == {}


def test_the_shipped_ranker_names_a_clear_result() -> None:
    text = ("We introduce GraphMix, a data augmentation method for graph neural networks. On the OGB-Arxiv "
            "benchmark, GraphMix improves node classification accuracy by 2.4% over GCN.")
    [x] = list(extract([Abstract("g", text, title="GraphMix")], extractor="indomain.v1"))
    [r] = x.results
    assert (r.text, r.method, r.baseline) == ("2.4%", "GraphMix", "GCN")
    assert "accuracy" in r.metric and r.dataset == "OGB-Arxiv"


def test_the_ends_of_a_from_to_pair_mark_the_method_candidates() -> None:
    text = "FooNet lifts the success rate of ViT-B from 5.2% to 32.1% on AgentDojo."
    mentions = [Mention(text.index(n), text.index(n) + len(n), n, "Method", n.lower()) for n in ("FooNet", "ViT-B")]
    first, second = find_results(text)
    ends = {r.text: {c.name: c.features for c in candidates("method", r, text, "", mentions, ())} for r in (first, second)}
    assert "pair=from|label=Method" in ends["5.2%"]["ViT-B"] and "pair=to|label=Method" in ends["32.1%"]["FooNet"]
    assert not any(f.startswith("pair=") for c in candidates("metric", first, text, "", mentions, ()) for f in c.features)


def test_candidates_are_ranked_by_distance_on_each_side_of_the_number() -> None:
    names = {c.name: c.features for c in candidates("method", _result(), TEXT, "FooNet", MENTIONS, PROPOSES)}
    assert "side_rank=0|pos=before|sent" in names["FooNet"] and "side_rank=0|pos=after|sent" in names["ViT-B"]


def test_the_ranker_learns_from_the_rules_names_it_will_be_given() -> None:
    """Stage 4's rows come from the pipeline without a ranker, so they hold the rules' own names, as
    the ranker receives them at run time (a rules-only head would already rewrite some: the rules'
    singular "score" becomes the "scores" written there)."""
    text = "Human experts achieved scores ranging from 26.7% to 86.7% on FooBench."
    [x] = T._predict(T.DEFAULT_OUTPUT, [{"id": "s", "abstract": text}], rank=False)
    fields = ("method", "metric", "dataset")
    assert [[getattr(r, f) for f in fields] for r in x.results] == [[getattr(r, f) for f in fields] for r in find_results(text)]
    assert [r.metric for r in x.results] == ["score", "score"]


def test_names_reach_the_ranker_as_written_not_as_the_nlp_saw_them() -> None:
    """The NLP sees markup blanked ("  Re  current"); the ranker learnt from the records, whose
    surfaces are read from the text as written, so it chooses and names from those."""
    import spacy

    from kg.extractors.results import ResultFinder
    from kg.extractors.text import clean_for_nlp

    text = "**Re**current Nets improve top-1 accuracy by 3.7% on ImageNet."
    nlp = spacy.blank("en")
    doc = nlp.make_doc(clean_for_nlp(text))
    doc.user_data["text"] = text
    doc._.kg_mentions = (Mention(0, 13, clean_for_nlp(text)[:13], "Method", "recurrent"),)
    heads = LinearHeads({"method": {"label=Method": 5.0}, "metric": {"is_rule": 1.0}, "dataset": {"is_rule": 1.0}},
                        {f: 0.0 for f in FIELD_LABELS}, {})
    [r] = ResultFinder(NameRanker(heads))(doc)._.kg_results
    assert (r.method, r.method_entity) == ("**Re**current", 0)
