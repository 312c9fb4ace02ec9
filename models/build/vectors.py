"""
Known-answer vectors of the committed test models, computed by torch from the committed weights (not from the
training run's memory): for a few texts, the log-probability of each byte given the bytes before it (from the
boundary byte 0), the top 5 next bytes at the last position, and the greedy continuation. The TypeScript forward
passes must reproduce them (test/unit/byte-gpt.test.ts).

    /usr/bin/python3 models/build/vectors.py   # writes test/fixtures/models/byte-gpt-vectors.json
"""

import json
import struct
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [
    "Fellow-Citizens of the Senate and of the House of Representatives:",
    "The state of the Union is strong, and the work before us is great.",
    "Prix: 12 € — naïve café, 東京 and 🙂.",
]


def load(name):
    manifest = json.loads((ROOT / "models" / name / "manifest.json").read_text())
    model = train.ByteGPT(manifest["config"])
    blob = (ROOT / "models" / name / manifest["weights"]).read_bytes()
    at = 0
    with torch.no_grad():
        for _, t in train.tensor_order(model):
            n = t.numel()
            t.copy_(torch.tensor(struct.unpack_from(f"<{n}f", blob, at)).reshape(t.shape))
            at += n * 4
    assert at == len(blob)
    model.eval()
    return model


@torch.no_grad()
def vectors(model, text, continuation=32):
    ids = [0] + list(text.encode("utf-8"))
    logits = model(torch.tensor([ids]))[0]
    logp = logits.log_softmax(-1)
    scored = [logp[t, ids[t + 1]].item() for t in range(len(ids) - 1)]
    top = logp[len(ids) - 1].topk(5)
    out = list(ids)
    for _ in range(continuation):
        nxt = int(model(torch.tensor([out[-model.c["context"] :]]))[0, -1].argmax())
        out.append(nxt)
    return {
        "text": text,
        "logprobs": [round(x, 6) for x in scored],
        "top5_last": [[int(i), round(v, 6)] for v, i in zip(top.values.tolist(), top.indices.tolist())],
        "greedy_bytes": out[len(ids) :],
    }


def main():
    out = {}
    for name in ("byte-gpt-base", "byte-gpt-inserted"):
        model = load(name)
        out[name] = [vectors(model, t) for t in TEXTS]
    path = ROOT / "test" / "fixtures" / "models" / "byte-gpt-vectors.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
