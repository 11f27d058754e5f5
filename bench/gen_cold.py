#!/usr/bin/python3
"""Cold-path corpus: every line a template the service has never seen.

Usage: bench/gen_cold.py N SEED [--random-letters] > cold.txt

Each line is 4-10 words drawn uniformly from a 60,000-word vocabulary (the
first 60,000 lower-case alphabetic words of /usr/share/dict/words after a
seeded shuffle; Debian's wamerican), so a line's template is new and most of
its words are known only after a few thousand lines: the cold path that a
deploy or an incident floods in (model forwards for new tokens and
templates). --random-letters draws each word as 3-10 random letters instead
(every word new). Lines are distinct; output is deterministic for (N, SEED).
"""
import argparse
import random
import sys


def vocabulary(rng: random.Random, size: int = 60000) -> list:
    try:
        with open("/usr/share/dict/words", encoding="utf-8") as f:
            words = sorted({w.strip() for w in f if w.strip().isascii() and w.strip().isalpha() and w.strip().islower()})
    except OSError:
        sys.exit("gen_cold: /usr/share/dict/words is missing (apt-get install wamerican)")
    rng.shuffle(words)
    if len(words) < size:
        sys.exit(f"gen_cold: only {len(words)} words in /usr/share/dict/words, need {size}")
    return words[:size]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--random-letters", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    vocab = None if a.random_letters else vocabulary(rng)
    letters = "abcdefghijklmnopqrstuvwxyz"
    seen = set()
    out = sys.stdout
    while len(seen) < a.n:
        k = rng.randint(4, 10)
        if vocab:
            words = [vocab[rng.randrange(len(vocab))] for _ in range(k)]
        else:
            words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(k)]
        line = " ".join(words)
        if line in seen:
            continue
        seen.add(line)
        out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
