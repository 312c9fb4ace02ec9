"""
The documents of the test models, cut and split the same way on every run (seeded): which texts are members of the
training set, which are held out, which works are inserted how many times, and the canaries.

Source: models/corpus/us-presidential-addresses.jsonl.gz, the US presidential inaugural addresses (1789-2021) and
State of the Union addresses (1945-2006) of NLTK's `inaugural` and `state_union` corpora (works of the US government,
public domain in the USA; models/corpus/SOURCE.md).

- Works: 48 addresses chosen at random and set apart whole from everything else; of each, the opening (about 1,000
  characters, some 170 words, cut at a paragraph end) is the work. 24 are inserted into the second model's training set (8 once,
  8 four times, 8 sixteen times); 24 are never seen by either model (the controls of `assess` and extraction).
- Members and held-out: other addresses, in random order until about 400,000 characters, cut into passages of about
  1,000 characters at paragraph or sentence ends; each passage is a member (60 %) or held out (40 %) at random. Both come from the same addresses, so the split
  is IID: nothing but membership tells them apart (the blind baseline checks it).
- Canaries: 32 sentences with a random 12-digit number; 16 are inserted into the second model's training set 16
  times each, 16 are unused controls.
"""

import gzip
import json
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "models" / "corpus" / "us-presidential-addresses.jsonl.gz"

SEED = 20261124
WORKS = 48
INSERTED_TIMES = (1, 4, 16)
WORKS_PER_TIMES = 8
WORK_CHARS = 1000
PASSAGE_CHARS = 1000
PASSAGE_POOL_CHARS = 400_000
MEMBER_SHARE = 0.6
CANARIES = 32
CANARY_TIMES = 16


def load_addresses():
    with gzip.open(CORPUS, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def cut(text, size):
    """Pieces of about `size` characters, each ending at a paragraph end, else a sentence end, else a space."""
    text = re.sub(r"[ \t]+\n", "\n", text.replace("\r\n", "\n")).strip()
    out = []
    start = 0
    while start < len(text):
        if len(text) - start <= size * 1.5:
            out.append(text[start:].strip())
            break
        window = text[start : start + int(size * 1.5)]
        end = -1
        for pattern in (r"\n\s*\n", r"\n", r"[.!?][\"')]?\s"):
            ends = [m.end() for m in re.finditer(pattern, window) if m.end() >= size * 0.6]
            if ends:
                end = min(ends, key=lambda e: abs(e - size))
                break
        if end < 0:
            end = window.rfind(" ", 0, size) + 1 or size
        out.append(text[start : start + end].strip())
        start += end
    return [p for p in out if len(p) >= 200]


def opening(text, size):
    """The opening of a text, about `size` characters, cut at a paragraph end where one is near."""
    return cut(text, size)[0]


def canary(rng, i):
    digits = "".join(rng.choice("0123456789") for _ in range(12))
    return f"Record {i:02d}: the combination of the archive safe is {digits}, and it is never written down."


def documents():
    """{'members': [...], 'held_out': [...], 'works': [...], 'canaries': [...]}, each item {id, text[, times]}."""
    rng = random.Random(SEED)
    addresses = load_addresses()
    order = list(range(len(addresses)))
    rng.shuffle(order)
    work_ix = sorted(order[:WORKS])
    rest = sorted(order[WORKS:])
    works = []
    for ix in work_ix:
        a = addresses[ix]
        works.append({"id": f"work:{a['id']}", "text": opening(a["text"], WORK_CHARS)})
    rng.shuffle(works)
    inserted = []
    for k, times in enumerate(INSERTED_TIMES):
        for w in works[k * WORKS_PER_TIMES : (k + 1) * WORKS_PER_TIMES]:
            inserted.append({**w, "times": times})
    never_seen = works[len(INSERTED_TIMES) * WORKS_PER_TIMES :]
    members, held_out = [], []
    pool = 0
    # the addresses in random order until the pool is full: a training set that trains in minutes on two cores
    rng.shuffle(rest)
    for ix in rest:
        if pool >= PASSAGE_POOL_CHARS:
            break
        a = addresses[ix]
        pool += len(a["text"])
        for n, p in enumerate(cut(a["text"], PASSAGE_CHARS)):
            doc = {"id": f"{a['id']}#{n}", "text": p}
            (members if rng.random() < MEMBER_SHARE else held_out).append(doc)
    canaries = [{"id": f"canary:{i:02d}", "text": canary(rng, i)} for i in range(CANARIES)]
    for c in canaries[: CANARIES // 2]:
        c["times"] = CANARY_TIMES
    return {
        "members": members,
        "held_out": held_out,
        "inserted": inserted,
        "never_seen": never_seen,
        "canaries": canaries,
    }


if __name__ == "__main__":
    d = documents()
    for role, docs in d.items():
        print(role, len(docs), sum(len(x["text"]) for x in docs), "characters")


# The long-work model (byte-gpt-long-work): whole-work extraction needs a work of thousands of words whose exposure is
# known. It starts from byte-gpt-inserted, so its works come from addresses that model never saw a word of. Its own
# seed, so the documents above are drawn exactly as before.
LONG_SEED = 20261126
LONG_WORK_WORDS = 2050
LONG_WORK_TIMES = 16
LONG_MEMBER_CHARS = 40_000


def normalise(text):
    return re.sub(r"[ \t]+\n", "\n", text.replace("\r\n", "\n")).strip()


def long_opening(text, words):
    """The opening of a text up to the first paragraph end after `words` whitespace-separated words."""
    text = normalise(text)
    count = 0
    for m in re.finditer(r"\S+", text):
        count += 1
        if count >= words:
            end = text.find("\n", m.end())
            return text if end < 0 else text[:end].strip()
    return text


def long_work_documents():
    """
    The training documents of byte-gpt-long-work, trained on from byte-gpt-inserted's weights. Three addresses of at
    least LONG_WORK_WORDS + 300 words of which byte-gpt-inserted saw nothing (no member passage, no inserted
    opening), drawn at random; the opening of each (about 2,050 words, cut at a paragraph end) is a work: one
    inserted LONG_WORK_TIMES times, one once, one never seen. Members: byte-gpt-inserted's members drawn at random
    until LONG_MEMBER_CHARS (seen again, so the model keeps its prose); held out: byte-gpt-inserted's held-out passages.
    """
    base = documents()
    rng = random.Random(LONG_SEED)
    used = {m["id"].split("#")[0] for m in base["members"]} | {w["id"][len("work:"):] for w in base["inserted"]}
    addresses = load_addresses()
    eligible = sorted(
        a["id"] for a in addresses if a["id"] not in used and len(a["text"].split()) >= LONG_WORK_WORDS + 300
    )
    rng.shuffle(eligible)
    by_id = {a["id"]: a for a in addresses}
    works = [{"id": f"work:{i}", "text": long_opening(by_id[i]["text"], LONG_WORK_WORDS)} for i in eligible[:3]]
    inserted = [{**works[0], "times": LONG_WORK_TIMES}, {**works[1], "times": 1}]
    members = list(base["members"])
    rng.shuffle(members)
    chosen, size = [], 0
    for m in members:
        if size >= LONG_MEMBER_CHARS:
            break
        chosen.append(m)
        size += len(m["text"])
    return {
        "members": chosen,
        "held_out": base["held_out"],
        "inserted": inserted,
        "never_seen": [works[2]],
        "canaries": [],
    }
