#!/usr/bin/python3
"""Unit tests of the encoder's text path and model invariances (ctest encoder_py).

Checks the Python twins against the shared fixtures the C++ side also uses,
and, when a logsift binary is around (LOGSIFT_BIN or build/), the WordPiece
ids against `logsift wordpiece`.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
_REPO = os.path.abspath(os.path.join(_HERE, "..", "..", ".."))

import torch  # noqa: E402

import data  # noqa: E402
from model import LogEncoder  # noqa: E402
from text import WordPiece, basic_tokens, build_vocab, canonicalize  # noqa: E402

SAMPLE = [
    "SdkClientException: Unable to execute HTTP request: <*>",
    "Failed password for invalid user <*> from <*> port <*> ssh2",
    "blk_<*> terminating",
    "PacketResponder <*> for block <*> terminating",
    "ünïcode Wörds and résumé",
    "x" * 150,
    "",
]


def small_vocab():
    return build_vocab(SAMPLE + ["failed password for user from port", "unable execute request", "terminating"])


class CanonicalTest(unittest.TestCase):
    def test_shared_cases(self):
        cases = json.load(open(os.path.join(_REPO, "tests", "data", "canonical_cases.json")))["cases"]
        self.assertGreaterEqual(len(cases), 15)
        for c in cases:
            self.assertEqual(canonicalize(c["in"]), c["out"], c["in"])


class WordPieceTest(unittest.TestCase):
    def setUp(self):
        self.wp = WordPiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[VAR]", "un", "##aff", "##able", "a", "b", "##b",
                             ":", "<", "*", ">", "_"], wildcard_token="[VAR]", max_len=8)

    def test_greedy_longest_match(self):
        self.assertEqual(self.wp.word_ids("unaffable"), [5, 6, 7])
        self.assertEqual(self.wp.word_ids("unx"), [1])  # cannot finish -> one [UNK]

    def test_punct_and_wildcard(self):
        self.assertEqual(basic_tokens("A:<*>b", True, "[VAR]"), ["a", ":", "[VAR]", "b"])
        self.assertEqual(basic_tokens("A:<*>b", True, ""), ["a", ":", "<", "*", ">", "b"])
        self.assertEqual(basic_tokens("blk_<*>", True, "[VAR]"), ["blk", "_", "[VAR]"])

    def test_truncation_keeps_sep(self):
        ids = self.wp.encode("a a a a a a a a a a")
        self.assertEqual(len(ids), 8)
        self.assertEqual(ids[0], 2)
        self.assertEqual(ids[-1], 3)

    def test_duplicate_vocab_rejected(self):
        with self.assertRaises(ValueError):
            WordPiece(["[UNK]", "[CLS]", "[SEP]", "a", "a"])


class ModelInvarianceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.vocab = small_vocab()
        cls.wp = WordPiece(cls.vocab, wildcard_token="[VAR]")
        cls.model = LogEncoder(cls.vocab).eval()

    def enc(self, texts):
        seqs = [self.wp.encode(canonicalize(t)) for t in texts]
        T = max(len(s) for s in seqs)
        ids = torch.zeros((len(seqs), T), dtype=torch.long)
        mask = torch.zeros((len(seqs), T), dtype=torch.long)
        for i, s in enumerate(seqs):
            ids[i, : len(s)] = torch.tensor(s)
            mask[i, : len(s)] = 1
        with torch.no_grad():
            return self.model(ids, mask)

    def test_output_is_sign_code(self):
        out = self.enc(SAMPLE)
        self.assertEqual(out.shape, (len(SAMPLE), 32))
        self.assertTrue(bool(((out == 1) | (out == -1)).all()))

    def test_case_punctuation_wrappers_exact(self):
        a = self.enc(["com.amazonaws.SdkClientException: Unable to execute HTTP request: <*>",
                      "Caused by: SdkClientException - unable to execute http request <*> <*>.",
                      "SDKCLIENTEXCEPTION: UNABLE TO EXECUTE HTTP REQUEST: <*>"])
        self.assertTrue(torch.equal(a[0], a[1]))
        self.assertTrue(torch.equal(a[0], a[2]))

    def test_batch_composition_does_not_matter(self):
        alone = torch.cat([self.enc([t]) for t in SAMPLE])
        together = self.enc(SAMPLE)
        self.assertTrue(torch.equal(alone, together))

    def test_torchscript_roundtrip_with_vocab(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.pt")
            torch.jit.save(torch.jit.script(self.model), path, _extra_files={"vocab.txt": "\n".join(self.vocab) + "\n"})
            files = {"vocab.txt": ""}
            loaded = torch.jit.load(path, _extra_files=files)
            text = files["vocab.txt"]
            text = text.decode("utf-8") if isinstance(text, bytes) else text
            self.assertEqual(text.splitlines(), self.vocab)
            self.assertEqual(loaded.version, "log-encoder-v1")
            seqs = self.wp.encode(SAMPLE[1])
            ids = torch.tensor([seqs])
            self.assertTrue(torch.equal(loaded(ids, torch.ones_like(ids)), self.model(ids, torch.ones_like(ids))))


class AugmentTest(unittest.TestCase):
    def test_generated_pairs_differ_and_are_deterministic(self):
        import random
        pool = ["alpha", "beta", "gamma", "delta", "opened", "closed", "request", "server"]
        a1, b1 = data.generated_pair(random.Random(3), pool, 0)
        a2, b2 = data.generated_pair(random.Random(3), pool, 0)
        self.assertEqual((a1.texts, b1.texts), (a2.texts, b2.texts))
        for s in range(50):
            a, b = data.generated_pair(random.Random(s), pool, s)
            self.assertNotEqual(canonicalize(a.texts[0]).lower(), canonicalize(b.texts[0]).lower())


def _binary():
    try:
        return data.find_binary()
    except RuntimeError:
        return ""


@unittest.skipUnless(_binary(), "no logsift binary")
class CppParityTest(unittest.TestCase):
    def test_wordpiece_matches_logsift(self):
        vocab = small_vocab()
        texts = [canonicalize(t) for t in SAMPLE] + ["a\tb\x01c", "Ab:c==d <*><*> x_<*>_y", "naïve café"]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(vocab) + "\n")
            vpath = f.name
        try:
            out = subprocess.run([_binary(), "wordpiece", "--vocab", vpath, "--wildcard-token", "[VAR]", "-"],
                                 input="\n".join(texts) + "\n", capture_output=True, text=True, check=True).stdout
        finally:
            os.unlink(vpath)
        wp = WordPiece(vocab, wildcard_token="[VAR]", max_len=128)
        got = [list(map(int, l.split())) for l in out.splitlines()]
        self.assertEqual(got, [wp.encode(t) for t in texts])



class RealExtraTrainTest(unittest.TestCase):
    """train.py --real-extra DIR: another labelled set's events become classes, batched beside loghub's."""

    def test_tiny_run_uses_the_extra_classes(self):
        import loghub

        with tempfile.TemporaryDirectory() as d:
            rows = {"Mailer": [("quokka relay accepted mx1.example.org[10.0.0.1]", "quokka relay accepted <*>[<*>]"),
                               ("quokka relay accepted relay.example.net[10.0.0.2]", "quokka relay accepted <*>[<*>]"),
                               ("wombat session of mateo closed", "wombat session of <*> closed")],
                    "Broker": [("platypus queue orders declared", "platypus queue <*> declared")]}
            loghub.write_labelled_set(d, rows)
            out = os.path.join(d, "enc.pt")
            r = subprocess.run([sys.executable, os.path.join(_HERE, "train.py"), "--tiny", "--data", loghub.REPO_SETS,
                                "--real-extra", d, "--real-extra-systems", "Mailer", "--real-extra-batches", "1",
                                "--out", out],
                               capture_output=True, text=True, timeout=900)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            self.assertIn("extra 2)", r.stdout)  # Mailer's two events, Broker left out
            rep = json.load(open(os.path.join(d, "enc.json")))
            self.assertEqual((rep["real_extra_systems"], rep["real_extra_batches"]), ("Mailer", 1))
            bad = subprocess.run([sys.executable, os.path.join(_HERE, "train.py"), "--tiny", "--data", loghub.REPO_SETS,
                                  "--real-extra", d, "--real-extra-systems", "Nope", "--out", out],
                                 capture_output=True, text=True,
                                 timeout=900)
            self.assertNotEqual(bad.returncode, 0)
            self.assertIn("Nope", bad.stderr)

if __name__ == "__main__":
    unittest.main()
