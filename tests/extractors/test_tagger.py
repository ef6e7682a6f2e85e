"""The in-domain tagger: word pieces in windows, BIO decoding, its second reading of the recogniser's names."""

from __future__ import annotations

import json

import pytest

from kg.extractors.indomain import model_path
from kg.extractors.pipeline import load_pipeline
from kg.extractors.tagger import SETTINGS_FILE, PieceTagger, Tagged, decode, second_reading, windows
from kg.training.tagger import BIO, _batches, piece_labels


@pytest.fixture(scope="module")
def tagger() -> PieceTagger:
    return PieceTagger(model_path())


def test_windows_cover_every_piece_and_overlap() -> None:
    for n in (1, 255, 256, 257, 700):
        spans = windows(n, 256, 192)
        assert spans[0][0] == 0 and spans[-1][1] == n
        assert all(b - a <= 256 for a, b in spans)
        assert all(a2 < b1 for (_, b1), (a2, _) in zip(spans, spans[1:]))  # overlapping: no piece at a seam only


def test_decoding_keeps_words_whole_and_splits_at_a_new_begin() -> None:
    offsets = [(0, 4), (5, 8), (8, 10), (11, 15), (16, 20)]
    pieces = ["deep", "res", "##et", "beats", "bert"]
    tagged = decode(offsets, pieces, ["B-Model", "I-Model", "B-Method", "O", "I-Model"], [0.8, 0.6, 0.1, 0.9, 0.5])
    assert tagged == [Tagged(0, 10, "Model", 0.5), Tagged(16, 20, "Model", 0.5)]
    assert decode(offsets, pieces, ["O"] * 5, [1.0] * 5) == []


def test_training_labels_round_trip_through_decoding() -> None:
    offsets = [(0, 3), (4, 9), (10, 12), (13, 20), (21, 24)]
    gold = [(4, 12, "Model"), (21, 24, "Dataset")]
    labels = [BIO[i] for i in piece_labels(offsets, gold)]
    assert labels == ["O", "B-Model", "I-Model", "O", "B-Dataset"]
    assert [(t.start, t.end, t.label) for t in decode(offsets, ["a", "b", "c", "d", "e"], labels, [1.0] * 5)] == gold


def test_fine_tuning_batches_hold_every_window_once_and_alike_in_length() -> None:
    import random

    examples = [([7] * n, [0] * n) for n in random.Random(1).choices(range(20, 257), k=1000)]
    batches = _batches(examples, 16, random.Random(0), pool=10)
    assert len(batches) == 63 and sorted(map(id, (ex for b in batches for ex in b))) == sorted(map(id, examples))
    padded = sum(max(len(ids) for ids, _ in b) * len(b) for b in batches)
    shuffled = [examples[k : k + 16] for k in range(0, 1000, 16)]
    assert padded < 0.8 * sum(max(len(ids) for ids, _ in b) * len(b) for b in shuffled)
    assert _batches(examples, 16, random.Random(0), pool=10) == batches  # seeded


def test_second_reading_relabels_and_adds_only_when_sure() -> None:
    names = [(0, 4, "Method")]
    add = {"Model": 0.8, "Dataset": 0.8, "Problem": 0.8}
    unsure = [Tagged(0, 4, "Model", 0.6), Tagged(10, 14, "Dataset", 0.6)]
    assert second_reading(names, unsure, relabel=0.9, add=add) == names
    sure = [Tagged(0, 4, "Model", 0.95), Tagged(10, 14, "Dataset", 0.9), Tagged(2, 6, "Problem", 0.99)]
    assert second_reading(names, sure, relabel=0.9, add=add) == [(0, 4, "Model"), (10, 14, "Dataset")]


def test_second_reading_adds_each_type_at_its_own_threshold() -> None:
    tagged = [Tagged(10, 14, "Dataset", 0.7), Tagged(20, 24, "Problem", 0.7), Tagged(30, 34, "Problem", 0.9)]
    assert second_reading([], tagged, relabel=0.9, add={"Dataset": 0.65, "Problem": 0.75}) == [(10, 14, "Dataset"), (30, 34, "Problem")]
    assert second_reading([], tagged, relabel=0.9, add={"Dataset": 1.01, "Problem": 0.65}) == [(20, 24, "Problem"), (30, 34, "Problem")]


def test_a_tagger_saved_with_one_add_threshold_applies_it_to_every_type(tagger: PieceTagger) -> None:
    """The form ``tagger.json`` had before the thresholds were per type: such a model still loads."""
    from kg.extractors.tagger import TaggerPipe

    pipe = TaggerPipe(tagger, relabel=0.6, add=0.7)
    assert pipe.add == {"Method": 0.7, "Model": 0.7, "Problem": 0.7, "Dataset": 0.7, "Metric": 0.7}


def test_shipped_tagger_reads_names_with_offsets_into_the_text(tagger: PieceTagger) -> None:
    text = ("We propose FlashNet, a convolutional network for image classification, and evaluate it on ImageNet "
            "and CIFAR-10, where it improves top-1 accuracy over ResNet-50.")
    [found] = tagger.tag([text])
    add = json.loads((model_path() / SETTINGS_FILE).read_text(encoding="utf-8"))["thresholds"]["add"]
    by_text = {text[t.start : t.end]: t.label for t in found if t.probability >= min(add.values())}  # what it may add
    assert by_text == {"FlashNet": "Model", "image classification": "Problem", "ImageNet": "Dataset",
                       "CIFAR-10": "Dataset", "top-1 accuracy": "Metric", "ResNet-50": "Model"}
    assert all(0.5 < t.probability <= 1.0 for t in found)
    long = " ".join([text] * 12)  # several windows
    [again] = tagger.tag([long])
    datasets = [t.start for t in again if long[t.start : t.end] in ("ImageNet", "CIFAR-10") and t.label == "Dataset"]
    assert len(datasets) == 24 and max(datasets) > len(long) - len(text)  # the last window too
    assert tagger.tag([""]) == [[]]


def test_pipeline_runs_the_tagger_with_the_thresholds_chosen_in_training() -> None:
    nlp = load_pipeline("indomain.v1")
    assert nlp.pipe_names.index("kg_tagger") == nlp.pipe_names.index("indomain_ner") + 1
    settings = json.loads((model_path() / SETTINGS_FILE).read_text())
    pipe = nlp.get_pipe("kg_tagger")
    assert (pipe.relabel, pipe.add) == (settings["thresholds"]["relabel"], settings["thresholds"]["add"])
