"""Names in abstracts that emphasise letters inside words ("**Re**current **N**eural **T**eaching",
"$\\textbf{P}$seudo-$\\textbf{L}$abeling"): how many come out with markup left in their shown name,
and how many were cut inside a word.

About 670 corpus abstracts spell out their acronym this way, most often the proposed method's long form.
Run it on two commits to compare them (the package is imported from the working tree).

usage: python bench/markup_names.py [--n 400] [--jobs 2] [--examples 10]
Prints abstracts, mentions, names with markup left in, names cut inside a word, and examples.
"""

from __future__ import annotations

import argparse
import re

from kg.extractors import extract
from kg.names import tidy_name
from kg.records import Abstract
from kg.training.annotations import corpus, forbidden_ids

IN_WORD_EMPHASIS = re.compile(r"\*\*[A-Za-z]{1,3}\*\*[a-z]|\\(?:textbf|underline|textit|emph|textsc)\{[A-Za-z]{1,3}\}\$?[a-z]")
MARKUP_LEFT = re.compile(r"\*\*|\\(?:textbf|underline|textit|emph|textsc)\b|[A-Za-z]\}")
CUT_BEFORE = re.compile(r"[A-Za-z](?:\*\*|\}\$?)$")
CUT_AFTER = re.compile(r"(?:\*\*|\}\$?|\$?\\textbf\{)[A-Za-z]")


def cut_inside_a_word(text: str, start: int, end: int) -> bool:
    """The span starts or ends where emphasis, not a word boundary, separates letters."""
    before = text[start].isalpha() and CUT_BEFORE.search(text, max(0, start - 6), start)
    after = text[end - 1].isalpha() and CUT_AFTER.match(text, end)
    return bool(before or after)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--examples", type=int, default=10)
    args = parser.parse_args()
    forbidden = forbidden_ids()
    docs = [Abstract(r.id, r.abstract, title=r.title) for r in corpus().values()
            if r.id not in forbidden and IN_WORD_EMPHASIS.search(r.abstract)][: args.n]
    mentions, left, cut, examples = 0, 0, 0, []
    for doc, x in zip(docs, extract(docs, extractor="indomain.v1", jobs=args.jobs)):
        for m in x.entities:
            mentions += 1
            name = tidy_name(m.text)
            if MARKUP_LEFT.search(name):
                left += 1
                examples.append(f"markup left in: {name}")
            if cut_inside_a_word(doc.text, m.start, m.end):
                cut += 1
                examples.append(f"cut inside a word: {doc.text[max(0, m.start - 12):m.end + 12]!r}")
    print(f"{'abstracts':>10} {'mentions':>9} {'markup left in':>15} {'cut inside a word':>18}")
    print(f"{len(docs):>10} {mentions:>9} {left:>15} {cut:>18}")
    for line in examples[: args.examples]:
        print("  " + line)


if __name__ == "__main__":
    main()
