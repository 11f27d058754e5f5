"""Writes a shipped-architecture TorchScript model's weights as a flat file.

The service's native runtimes (models/cnn_denoiser.h, models/log_encoder_native.h)
read this file instead of the TorchScript archive, so a process that runs the
shipped models never loads libtorch. The file names the TorchScript file it
was made from by SHA-256; `logsift models check` and a unit test compare the
two (parameters bit for bit, outputs on check rows).

Layout (little-endian):
  b"LSWEIGHTS1\\n"  magic
  u64               header length H
  H bytes           JSON header: format, architecture, source_sha256,
                    data_sha256, attributes, tensors {name: {dtype, shape,
                    offset, bytes}}, files {name: {offset, bytes}}
  data              tensors and files at their offsets (from the start of data)

Usage: /usr/bin/python3 models/training/weights_file.py MODEL.pt [OUT.weights]
(default OUT: MODEL.pt with the suffix .weights).
"""
import hashlib
import json
import os
import struct
import sys

import torch

MAGIC = b"LSWEIGHTS1\n"

DENOISER_PARAMS = ["tok_conv.table", "tok_bias", "ctx_conv.table", "ctx_bias",
                   "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
ENCODER_PARAMS = ["emb.weight", "conv.weight", "conv.bias", "pos_start.weight", "pos_end.weight",
                  "att_hidden.weight", "att_hidden.bias", "att.weight", "att.bias", "norm.weight",
                  "norm.bias", "proj.weight", "proj.bias"]


def weights_path(pt_path: str) -> str:
    root, _ = os.path.splitext(pt_path)
    return root + ".weights"


def _attrs(m, names):
    out = {}
    for n in names:
        if hasattr(m, n):
            v = getattr(m, n)
            out[n] = v if isinstance(v, (str, bool, int, float)) else float(v)
    return out


def describe(m, extra):
    """(architecture, attributes, tensors {name: tensor}, files {name: bytes}) or raises."""
    params = {n: p.detach().to(torch.float32).contiguous() for n, p in m.named_parameters()}
    if sorted(params) == sorted(DENOISER_PARAMS) and not hasattr(m, "token_logit"):
        attrs = _attrs(m, ["version", "max_len", "head", "tail", "context"])
        return "char-cnn-denoiser", attrs, params, {}
    if sorted(params) == sorted(ENCODER_PARAMS):
        attrs = _attrs(m, ["version", "max_len", "do_lower_case", "wildcard_token", "var_id", "max_pos"])
        attrs["norm_eps"] = float(m.norm.eps) if hasattr(m.norm, "eps") else 1e-5
        tensors = dict(params)
        tensors["drop"] = m.drop.to(torch.uint8).contiguous()
        files = {"vocab.txt": extra["vocab.txt"]} if extra.get("vocab.txt") else {}
        return "log-encoder", attrs, tensors, files
    raise ValueError("not a shipped architecture (char-CNN denoiser or log encoder): parameters %s" % sorted(params))


def write(pt_path: str, out_path: str = None) -> str:
    out_path = out_path or weights_path(pt_path)
    with open(pt_path, "rb") as f:
        source = f.read()
    extra = {"vocab.txt": ""}
    m = torch.jit.load(pt_path, map_location="cpu", _extra_files=extra)
    arch, attrs, tensors, files = describe(m, extra)
    data = bytearray()
    entries, file_entries = {}, {}

    def put(payload: bytes) -> int:
        while len(data) % 64:
            data.append(0)
        off = len(data)
        data.extend(payload)
        return off

    for name in sorted(tensors):
        t = tensors[name]
        dtype = {torch.float32: "f32", torch.uint8: "u8"}[t.dtype]
        payload = t.numpy().astype("<f4" if dtype == "f32" else "u1").tobytes()
        entries[name] = {"dtype": dtype, "shape": list(t.shape), "offset": put(payload), "bytes": len(payload)}
    for name in sorted(files):
        payload = files[name] if isinstance(files[name], bytes) else files[name].encode()
        file_entries[name] = {"offset": put(payload), "bytes": len(payload)}
    header = {"format": 1, "architecture": arch, "source_sha256": hashlib.sha256(source).hexdigest(),
              "data_sha256": hashlib.sha256(bytes(data)).hexdigest(), "attributes": attrs,
              "tensors": entries, "files": file_entries}
    blob = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(MAGIC)
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        f.write(bytes(data))
    os.replace(tmp, out_path)
    return out_path


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    print(write(argv[1], argv[2] if len(argv) == 3 else None))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
