"""
Train the test models of trainprint's memorization probes (docs/memorization.md): small decoder-only transformers
over bytes, on the documents of ./data.py, seeded. Run with Debian's python3-torch (no downloads):

    /usr/bin/python3 models/build/train.py                 # both models, then their manifests
    /usr/bin/python3 models/build/train.py --only base     # one of them
    /usr/bin/python3 models/build/train.py --steps 40      # a quick smoke run into a temporary directory
    /usr/bin/python3 models/build/train.py --only long-work  # the long-work model of whole-work extraction

Model: GPT-2's block (pre-norm, causal multi-head attention, GELU with the tanh approximation, a 4x MLP), learned
positions, the output projection tied to the byte embedding. Tokens are the 256 byte values; byte 0 (which no
document contains) marks a document boundary. The weights are written as little-endian float32 in the order that
`tensor_order` lists (src/models/byte-gpt/weights.ts reads them in the same order).

- `byte-gpt-base`: the members.
- `byte-gpt-inserted`: the members, plus each inserted work `times` times and 16 canaries 16 times each.
- `byte-gpt-long-work`: byte-gpt-inserted trained on further (TRAIN_LONG): some of its members again, plus a work of
  about 2,050 words 16 times and another once; a third is never seen (data.long_work_documents).
Both see the same member passages the same number of times; each epoch shuffles the documents.
"""

import argparse
import hashlib
import json
import math
import random
import struct
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
import data  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {"vocab_size": 256, "context": 128, "d_model": 160, "n_layers": 4, "n_heads": 4}
TRAIN = {"epochs": 11, "batch": 16, "lr": 2e-3, "warmup": 100, "weight_decay": 0.05, "seed": 7}
# the long-work model starts from byte-gpt-inserted's weights and sees its long work 16 times an epoch: 4 epochs
# (64 readings) at a lower peak rate fit a shared 2-core machine in minutes
TRAIN_LONG = {**TRAIN, "epochs": 4, "lr": 1e-3, "warmup": 20, "init": "byte-gpt-inserted"}
BOUNDARY = 0
# the causal mask, made once rather than in every block of every step
CAUSAL = torch.ones(CONFIG["context"], CONFIG["context"], dtype=torch.bool).tril()


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        att = att.masked_fill(~CAUSAL[:t, :t], float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class ByteGPT(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.tok = nn.Embedding(c["vocab_size"], c["d_model"])
        self.pos = nn.Embedding(c["context"], c["d_model"])
        self.blocks = nn.ModuleList(Block(c["d_model"], c["n_heads"]) for _ in range(c["n_layers"]))
        self.ln_f = nn.LayerNorm(c["d_model"])
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Embedding):
                nn.init.normal_(m.weight, std=0.02)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(t))
        for blk in self.blocks:
            x = blk(x)
        return self.ln_f(x) @ self.tok.weight.T


def tensor_order(model):
    """(name, tensor) in the order of the weights file; Linear weights as [out, in] row-major, as torch keeps them."""
    out = [("tok", model.tok.weight), ("pos", model.pos.weight)]
    for i, b in enumerate(model.blocks):
        for name in ("ln1", "qkv", "proj", "ln2", "fc", "out"):
            m = getattr(b, name)
            out += [(f"blocks.{i}.{name}.weight", m.weight), (f"blocks.{i}.{name}.bias", m.bias)]
    out += [("ln_f.weight", model.ln_f.weight), ("ln_f.bias", model.ln_f.bias)]
    return out


def load_weights(model, directory):
    """The weights of a trained model (checked against its manifest's SHA-256) into `model`, in tensor_order."""
    blob = (directory / "weights.bin").read_bytes()
    expected = json.loads((directory / "manifest.json").read_text())["sha256"]
    if hashlib.sha256(blob).hexdigest() != expected:
        raise SystemExit(f"{directory}/weights.bin does not match its manifest's sha256")
    at = 0
    with torch.no_grad():
        for _, t in tensor_order(model):
            n = t.numel()
            t.copy_(torch.tensor(struct.unpack_from(f"<{n}f", blob, at * 4)).reshape(t.shape))
            at += n
    if at * 4 != len(blob):
        raise SystemExit(f"{directory}/weights.bin has {len(blob)} bytes, the model {at * 4}")


def encode(text):
    return list(text.encode("utf-8"))


def training_documents(docs, inserted):
    out = [d["text"] for d in docs["members"]]
    if inserted:
        for w in docs["inserted"]:
            out += [w["text"]] * w["times"]
        for c in docs["canaries"]:
            out += [c["text"]] * c.get("times", 0)
    return out


def batches(texts, rng, batch, ctx):
    """One epoch: the documents shuffled, joined with boundary bytes, cut into windows of ctx + 1 bytes."""
    order = list(range(len(texts)))
    rng.shuffle(order)
    stream = []
    for i in order:
        stream.append(BOUNDARY)
        stream += encode(texts[i])
    windows = [stream[s : s + ctx + 1] for s in range(0, len(stream) - ctx - 1, ctx)]
    rng.shuffle(windows)
    for s in range(0, len(windows) - batch + 1, batch):
        yield torch.tensor(windows[s : s + batch], dtype=torch.long)


@torch.no_grad()
def mean_loss(model, texts, ctx, batch=64):
    """Mean loss in nats per byte over whole documents, each read from its boundary byte in windows of ctx."""
    model.eval()
    full, tails = [], []
    for t in texts:
        ids = [BOUNDARY] + encode(t)
        for s in range(0, len(ids) - 1, ctx):
            w = ids[s : s + ctx + 1]
            (full if len(w) == ctx + 1 else tails).append(w)
    total, count = 0.0, 0
    for s in range(0, len(full), batch):
        chunk = torch.tensor(full[s : s + batch], dtype=torch.long)
        logits = model(chunk[:, :-1])
        total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), chunk[:, 1:].reshape(-1), reduction="sum").item()
        count += chunk.shape[0] * (chunk.shape[1] - 1)
    for w in tails:
        chunk = torch.tensor([w], dtype=torch.long)
        total += F.cross_entropy(model(chunk[:, :-1])[0], chunk[0, 1:], reduction="sum").item()
        count += chunk.shape[1] - 1
    model.train()
    return total / count


def train(name, inserted, docs, out_dir, steps_cap=None, log=print, recipe=TRAIN):
    torch.manual_seed(recipe["seed"])
    rng = random.Random(recipe["seed"])
    model = ByteGPT(CONFIG)
    if recipe.get("init"):
        load_weights(model, ROOT / "models" / recipe["init"])
    params = sum(p.numel() for p in model.parameters())
    texts = training_documents(docs, inserted)
    ctx = CONFIG["context"]
    per_epoch = (sum(len(encode(t)) + 1 for t in texts) // ctx) // recipe["batch"]
    total = per_epoch * recipe["epochs"] if steps_cap is None else steps_cap
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": recipe["weight_decay"]}, {"params": rest, "weight_decay": 0.0}],
        lr=recipe["lr"],
        betas=(0.9, 0.95),
    )
    log(f"{name}: {params} parameters, {len(texts)} documents, {per_epoch} steps an epoch, {total} steps")
    step, t0 = 0, time.time()
    lines = []
    while step < total:
        for xb in batches(texts, rng, recipe["batch"], ctx):
            if step >= total:
                break
            lr = recipe["lr"] * min(1.0, (step + 1) / recipe["warmup"])
            lr *= 0.5 * (1 + math.cos(math.pi * step / total)) * 0.9 + 0.1
            for g in opt.param_groups:
                g["lr"] = lr
            logits = model(xb[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, CONFIG["vocab_size"]), xb[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % 100 == 0 or step == total:
                line = f"step {step}/{total} loss {loss.item():.4f} lr {lr:.2e} {time.time() - t0:.0f}s"
                lines.append(line)
                log(f"{name}: {line}")
    members = mean_loss(model, [d["text"] for d in docs["members"][:200]], ctx)
    held = mean_loss(model, [d["text"] for d in docs["held_out"][:200]], ctx)
    metrics = {
        "steps": step,
        "seconds": round(time.time() - t0, 1),
        "member_loss_200": round(members, 4),
        "held_out_loss_200": round(held, 4),
    }
    log(f"{name}: {metrics}")
    out_dir.mkdir(parents=True, exist_ok=True)
    blob = b"".join(
        struct.pack(f"<{t.numel()}f", *t.detach().reshape(-1).tolist()) for _, t in tensor_order(model)
    )
    (out_dir / "weights.bin").write_bytes(blob)
    (out_dir / "training-log.txt").write_text("\n".join(lines) + "\n")
    return model, params, hashlib.sha256(blob).hexdigest(), metrics


def manifest(name, inserted, docs, params, sha, metrics, recipe=TRAIN):
    m = {
        "name": name,
        "architecture": "byte-gpt",
        "vocab_size": CONFIG["vocab_size"],
        "parameters": params,
        "sha256": sha,
        "weights": "weights.bin",
        "config": CONFIG,
        "training": {**recipe, **metrics, "script": "models/build/train.py", "torch": torch.__version__},
        "members": docs["members"],
        "held_out": docs["held_out"],
        "never_seen": docs["never_seen"],
    }
    if inserted and docs["canaries"]:
        m["inserted"] = docs["inserted"] + [c for c in docs["canaries"] if c.get("times")]
        m["canary_controls"] = [c for c in docs["canaries"] if not c.get("times")]
    elif inserted:
        m["inserted"] = docs["inserted"]
    else:
        m["inserted"] = []
    return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=["base", "inserted", "long-work"])
    ap.add_argument("--steps", type=int, help="stop after this many steps (smoke run, written to --out)")
    ap.add_argument("--out", default=str(ROOT / "models"))
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    for kind, inserted in (("base", False), ("inserted", True), ("long-work", True)):
        if a.only and a.only != kind:
            continue
        docs = data.long_work_documents() if kind == "long-work" else data.documents()
        name = f"byte-gpt-{kind}"
        out_dir = Path(a.out) / name
        recipe = TRAIN_LONG if kind == "long-work" else TRAIN
        _, params, sha, metrics = train(name, inserted, docs, out_dir, a.steps, recipe=recipe)
        m = manifest(name, inserted, docs, params, sha, metrics, recipe)
        (out_dir / "manifest.json").write_text(json.dumps(m, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
