"""A small hand-made graph that gives every canned query something to find.

Eight papers over three years and three areas; online facility location has upper, prior and lower
bounds (a frontier and a gap), linear regression has an improvement chain of two steps, and two
equally short paths join online facility location to image generation (the tie-break picks the
one through the smaller ids).
"""

from __future__ import annotations

from kg.records import Edge, Evidence, GraphDocument, Node

PAPERS = {
    # id: (year, area, title, mentioned entities)
    "p1": (2016, "optimization", "A primal-dual view of facility location",
           ["problem:online facility location", "method:primal-dual algorithm", "concept:competitive ratio"]),
    "p2": (2019, "optimization", "Online rounding for facility location",
           ["problem:online facility location", "method:online rounding", "method:primal-dual algorithm",
            "dataset:uci benchmarks", "metric:competitive ratio"]),
    "p3": (2026, "learning theory", "Learning-augmented facility location",
           ["problem:online facility location", "method:learning-augmented algorithm", "method:online rounding",
            "concept:machine learning advice", "method:stochastic gradient descent", "concept:quantization"]),
    "p4": (2026, "learning theory", "Quantized SGD for linear regression",
           ["problem:linear regression", "method:stochastic gradient descent", "concept:quantization"]),
    "p5": (2026, "generative models", "Diffusion transformers",
           ["model:diffusion transformer", "model:transformer", "dataset:imagenet", "metric:fid",
            "problem:image generation", "model:u-net"]),
    "p6": (2026, "generative models", "U-Nets revisited",
           ["model:u-net", "dataset:imagenet", "problem:image generation", "method:stochastic gradient descent"]),
    "p7": (2026, "generative models", "Quantized diffusion",
           ["model:diffusion transformer", "dataset:imagenet", "metric:fid", "concept:quantization",
            "problem:image generation"]),
    "p8": (None, "", "An undated note on transformers", ["concept:competitive ratio", "model:transformer"]),
}

NAMES = {
    "problem:online facility location": ("Online Facility Location", ("OFL",)),
    "method:primal-dual algorithm": ("primal-dual algorithm", ()),
    "concept:competitive ratio": ("competitive ratio", ()),
    "method:online rounding": ("online rounding", ("online rounding algorithms",)),
    "dataset:uci benchmarks": ("UCI benchmarks", ()),
    "metric:competitive ratio": ("competitive ratio", ()),
    "method:learning-augmented algorithm": ("learning-augmented algorithm", ()),
    "concept:machine learning advice": ("machine learning advice", ()),
    "method:stochastic gradient descent": ("stochastic gradient descent", ("SGD",)),
    "concept:quantization": ("quantization", ("low-bit quantization",)),
    "problem:linear regression": ("linear regression", ()),
    "model:diffusion transformer": ("Diffusion Transformer", ("DiT",)),
    "model:transformer": ("Transformer", ("transformers",)),
    "dataset:imagenet": ("ImageNet", ()),
    "metric:fid": ("FID", ("Frechet Inception Distance",)),
    "problem:image generation": ("image generation", ()),
    "model:u-net": ("U-Net", ("UNet",)),
}

RELATIONS = [
    # (source, type, target, supporting papers)
    ("paper:p1", "PROPOSES", "method:primal-dual algorithm", ["p1"]),
    ("paper:p1", "ADDRESSES", "problem:online facility location", ["p1"]),
    ("method:primal-dual algorithm", "ADDRESSES", "problem:online facility location", ["p1", "p2"]),
    ("paper:p2", "PROPOSES", "method:online rounding", ["p2"]),
    ("paper:p2", "ADDRESSES", "problem:online facility location", ["p2"]),
    ("method:online rounding", "OUTPERFORMS", "method:primal-dual algorithm", ["p2"]),
    ("method:online rounding", "EVALUATED_ON", "dataset:uci benchmarks", ["p2"]),
    ("method:online rounding", "MEASURED_BY", "metric:competitive ratio", ["p2"]),
    ("paper:p3", "PROPOSES", "method:learning-augmented algorithm", ["p3"]),
    ("paper:p3", "ADDRESSES", "problem:online facility location", ["p3"]),
    ("method:learning-augmented algorithm", "USES", "method:online rounding", ["p3"]),
    ("method:learning-augmented algorithm", "USES", "concept:machine learning advice", ["p3"]),
    ("method:learning-augmented algorithm", "OUTPERFORMS", "method:online rounding", ["p3"]),
    ("method:stochastic gradient descent", "ADDRESSES", "problem:linear regression", ["p4"]),
    ("paper:p4", "ADDRESSES", "problem:linear regression", ["p4"]),
    ("method:stochastic gradient descent", "USES", "concept:quantization", ["p4"]),
    ("paper:p5", "PROPOSES", "model:diffusion transformer", ["p5"]),
    ("paper:p5", "ADDRESSES", "problem:image generation", ["p5"]),
    ("model:diffusion transformer", "IS_A", "model:transformer", ["p5"]),
    ("model:diffusion transformer", "EVALUATED_ON", "dataset:imagenet", ["p5", "p7"]),
    ("model:diffusion transformer", "OUTPERFORMS", "model:u-net", ["p5", "p7"]),
    ("model:diffusion transformer", "COMPARED_WITH", "model:u-net", ["p5"]),
    ("dataset:imagenet", "MEASURED_BY", "metric:fid", ["p5", "p7"]),
    ("model:u-net", "EVALUATED_ON", "dataset:imagenet", ["p6"]),
    ("model:u-net", "ADDRESSES", "problem:image generation", ["p6"]),
    ("model:u-net", "PART_OF", "model:diffusion transformer", ["p6"]),
    ("method:stochastic gradient descent", "USES", "model:u-net", ["p6"]),
    ("model:diffusion transformer", "USES", "concept:quantization", ["p7"]),
]

BOUNDS = [
    # (paper, n, expression, notation, quantity, role, subject, improves_on n)
    ("p1", 0, "log(n)", "O", "other", "new", "problem:online facility location", None),
    ("p2", 0, "log(n)/log(log(n))", "O", "other", "new", "problem:online facility location", 1),
    ("p2", 1, "log(n)", "O", "other", "prior", "problem:online facility location", None),
    ("p3", 0, "log(n)/log(log(n))", "Omega", "other", "lower", "problem:online facility location", None),
    ("p3", 1, "sqrt(T)", "O", "regret", "new", "method:learning-augmented algorithm", None),
    ("p4", 0, "1/T", "O", "error", "new", "problem:linear regression", 1),
    ("p4", 1, "1/sqrt(T)", "O", "error", "prior", "problem:linear regression", 2),
    ("p4", 2, "log(T)/sqrt(T)", "O", "error", "prior", "problem:linear regression", None),
    ("p4", 3, "1/T", "Omega", "error", "lower", "problem:linear regression", None),
]


RESULTS = [
    # (paper, n, value, low, high, unit, kind, direction, achieved by, dataset, metric, against)
    ("p5", 0, "2.27", 2.27, 2.27, "", "score", None, "model:diffusion transformer", "dataset:imagenet", "metric:fid", None),
    ("p5", 1, "20%", 20.0, 20.0, "%", "change", "down", "model:diffusion transformer", "dataset:imagenet", "metric:fid", "model:u-net"),
    ("p6", 0, "3.5", 3.5, 3.5, "", "score", None, "model:u-net", "dataset:imagenet", "metric:fid", None),
    ("p7", 0, "2.10", 2.1, 2.1, "", "score", None, "model:diffusion transformer", "dataset:imagenet", "metric:fid", None),
    ("p7", 1, "3.5", 3.5, 3.5, "", "score", None, "model:u-net", "dataset:imagenet", "metric:fid", None),  # ties p6's
    ("p2", 0, "1.5×", 1.5, 1.5, "x", "change", "down", "method:online rounding", "dataset:uci benchmarks",
     "metric:competitive ratio", "method:primal-dual algorithm"),
]
"""Reported results: FID on ImageNet (lower is better) gives a leaderboard with a tie and a claim over U-Net."""

METRIC_BETTER = {"metric:fid": "down", "metric:competitive ratio": "unknown"}


def _evidence(abstracts: dict[str, list[str]], paper: str, text: str) -> Evidence:
    """Evidence in the sentence "In PAPER, TEXT appears.", added once to that paper's abstract."""
    sentence = f"In {paper}, {text} appears."
    sentences = abstracts.setdefault(paper, [])
    if sentence not in sentences:
        sentences.append(sentence)
    offset = sum(len(s) + 1 for s in sentences[: sentences.index(sentence)])
    start = offset + sentence.index(text)
    return Evidence(f"paper:{paper}", start, start + len(text), offset, offset + len(sentence), "fixture", 1.0)


def fixture_graph() -> GraphDocument:
    """The graph described in the module docstring, with MENTIONS edges matching node papers."""
    nodes, edges = [], []
    mentioned: dict[str, list[str]] = {}
    abstracts: dict[str, list[str]] = {}
    for pid, (year, area, title, entities) in PAPERS.items():
        for entity in entities:
            mentioned.setdefault(entity, []).append(pid)
            name = NAMES[entity][0]
            # the paper names the entity twice in two sentences: evidence lists have two entries
            evidence = (_evidence(abstracts, pid, name), _evidence(abstracts, pid, f"{name} again"))
            edges.append(Edge(f"paper:{pid}", entity, "MENTIONS", evidence))
    for entity, papers in mentioned.items():
        name, aliases = NAMES[entity]
        props = {"better": METRIC_BETTER[entity]} if entity in METRIC_BETTER else {}
        nodes.append(Node(entity, entity.split(":")[0].capitalize(), name, aliases,
                          tuple(sorted(f"paper:{p}" for p in papers)), 2 * len(papers), props))
    for source, etype, target, papers in RELATIONS:
        edges.append(Edge(source, target, etype, tuple(_evidence(abstracts, p, NAMES.get(target, (target,))[0]) for p in papers)))
    for paper, n, expression, notation, quantity, role, subject, improves in BOUNDS:
        bid = f"bound:{paper}:{n}"
        props = {"text": f"${notation}({expression})$", "expression": expression, "unicode": f"{notation}({expression})",
                 "notation": notation, "quantity": quantity, "role": role, "kind": "bound", "variables": ["n"],
                 "parsed": True, "subject": NAMES[subject][0], "paper": f"paper:{paper}"}
        nodes.append(Node(bid, "Bound", props["unicode"], (), (f"paper:{paper}",), 1, props))
        ev = (_evidence(abstracts, paper, props["text"]),)
        edges.append(Edge(f"paper:{paper}", bid, "STATES_BOUND", ev))
        edges.append(Edge(bid, subject, "BOUNDS", ev))
        if improves is not None:
            edges.append(Edge(bid, f"bound:{paper}:{improves}", "IMPROVES_ON", ev))
    for paper, n, value, low, high, unit, kind, direction, method, dataset, metric, baseline in RESULTS:
        rid = f"result:{paper}:{n}"
        ev = _evidence(abstracts, paper, value)
        props = {"value": value, "low": low, "high": high, "unit": unit, "kind": kind, "direction": direction,
                 "methodName": NAMES[method][0], "datasetName": NAMES[dataset][0], "metricName": NAMES[metric][0],
                 "baselineName": NAMES[baseline][0] if baseline else None, "better": METRIC_BETTER[metric],
                 "paper": f"paper:{paper}", "start": ev.start, "end": ev.end, "sentenceStart": ev.sentence_start,
                 "sentenceEnd": ev.sentence_end}
        nodes.append(Node(rid, "Result", f"{value} {NAMES[metric][0]}", (), (f"paper:{paper}",), 1,
                          {k: v for k, v in props.items() if v not in (None, "")}))
        edges.append(Edge(f"paper:{paper}", rid, "REPORTS", (ev,)))
        for etype, target in (("ACHIEVED_BY", method), ("ON_DATASET", dataset), ("ON_METRIC", metric), ("AGAINST", baseline)):
            if target:
                edges.append(Edge(rid, target, etype, (ev,)))
    for pid, (year, area, title, entities) in PAPERS.items():
        props = {"sourceId": pid, "title": title, "venue": "ICLR", "abstract": " ".join(abstracts.get(pid, [f"Abstract of {title}."]))}
        props |= {"year": year} if year else {}
        props |= {"primaryArea": area} if area else {}
        nodes.append(Node(f"paper:{pid}", "Paper", title, (), (f"paper:{pid}",), len(entities), props))
    return GraphDocument(tuple(sorted(nodes, key=lambda n: n.id)), tuple(sorted(edges, key=lambda e: e.key)))
