"""A PEP 517 / PEP 660 build backend for this package, standard library only.

It exists so that ``pip install ./clients/python`` needs nothing but pip: no network, no
setuptools or wheel. It builds a pure-Python ``py3-none-any`` wheel of the packages named in
``[tool.trainprint-build] packages`` with the metadata of the ``[project]`` table (name,
version, description, readme, requires-python, license, keywords, classifiers), an sdist, and
an editable wheel (a ``.pth`` file pointing at this directory). Archives are reproducible:
fixed timestamps (``SOURCE_DATE_EPOCH`` when set) and sorted entries.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from typing import Any, Dict, List, Optional, Tuple

__all__ = [
    "get_requires_for_build_wheel", "get_requires_for_build_sdist", "get_requires_for_build_editable",
    "prepare_metadata_for_build_wheel", "prepare_metadata_for_build_editable",
    "build_wheel", "build_sdist", "build_editable", "load_pyproject",
]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = "trainprint_build 1"
SDIST_FILES = ("pyproject.toml", "README.md", "_backend/trainprint_build.py")
SDIST_DIRS = ("tests",)


# ---------------------------------------------------------------- pyproject.toml

def load_pyproject(path: Optional[str] = None) -> Dict[str, Any]:
    """pyproject.toml as a dict: ``tomllib`` (Python 3.11+), else a reader of the TOML subset this file uses."""
    with open(path or os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return parse_toml_subset(data.decode("utf-8"))
    return tomllib.loads(data.decode("utf-8"))  # type: ignore[no-any-return]


def parse_toml_subset(text: str) -> Dict[str, Any]:
    """Tables (``[a.b]``), ``key = value`` with strings, integers, booleans, arrays (over several
    lines too) and inline tables; ``#`` comments. Enough for this package's pyproject.toml."""
    root: Dict[str, Any] = {}
    table = root
    pending = ""
    for raw in text.splitlines():
        line = pending + ("\n" if pending else "") + raw
        stripped = _strip_comment(line).strip()
        if not stripped:
            pending = ""
            continue
        if not pending and stripped.startswith("["):
            name = stripped.strip("[]").strip()
            table = root
            for part in _split_key(name):
                table = table.setdefault(part, {})
            continue
        key, sep, value = stripped.partition("=")
        if not sep:
            raise ValueError(f"pyproject.toml: cannot read {raw!r}")
        if _depth(value) > 0:
            pending = line
            continue
        pending = ""
        parsed, rest = _value(value.strip())
        if rest.strip():
            raise ValueError(f"pyproject.toml: trailing text after the value of {key.strip()}: {rest!r}")
        target = table
        parts = _split_key(key.strip())
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = parsed
    if pending:
        raise ValueError("pyproject.toml: an array or table is not closed")
    return root


def _split_key(key: str) -> List[str]:
    return [p.strip().strip('"') for p in key.split(".")]


def _strip_comment(line: str) -> str:
    out, quoted, i = [], False, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and quoted:
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c == "#" and not quoted:
            # a comment runs to the end of its physical line
            nl = line.find("\n", i)
            if nl < 0:
                break
            i = nl
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _depth(text: str) -> int:
    depth, quoted, escaped = 0, False, False
    for c in _strip_comment(text):
        if quoted:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
    return depth


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r", "b": "\b", "f": "\f"}


def _value(s: str) -> Tuple[Any, str]:
    s = _strip_comment(s).lstrip()
    if s.startswith('"'):
        out, i = [], 1
        while i < len(s) and s[i] != '"':
            if s[i] == "\\":
                nxt = s[i + 1]
                if nxt == "u":
                    out.append(chr(int(s[i + 2:i + 6], 16)))
                    i += 6
                    continue
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            out.append(s[i])
            i += 1
        return "".join(out), s[i + 1:]
    if s.startswith("["):
        items: List[Any] = []
        s = s[1:].lstrip()
        while not s.startswith("]"):
            v, s = _value(s)
            items.append(v)
            s = s.lstrip()
            if s.startswith(","):
                s = s[1:].lstrip()
        return items, s[1:]
    if s.startswith("{"):
        table: Dict[str, Any] = {}
        s = s[1:].lstrip()
        while not s.startswith("}"):
            key, _, s = s.partition("=")
            v, s = _value(s)
            table[key.strip().strip('"')] = v
            s = s.lstrip()
            if s.startswith(","):
                s = s[1:].lstrip()
        return table, s[1:]
    m = re.match(r"(true|false|[+-]?\d+)", s)
    if not m:
        raise ValueError(f"pyproject.toml: unsupported value {s[:40]!r}")
    word = m.group(1)
    return (word == "true") if word in ("true", "false") else int(word), s[m.end():]


# ---------------------------------------------------------------- metadata

def _project() -> Dict[str, Any]:
    pp = load_pyproject()
    project = pp["project"]
    for field in ("name", "version"):
        if not isinstance(project.get(field), str):
            raise ValueError(f"pyproject.toml: [project] {field} must be a string")
    return pp


def _dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _metadata(pp: Dict[str, Any]) -> str:
    p = pp["project"]
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}"]
    if p.get("description"):
        lines.append(f"Summary: {p['description']}")
    if p.get("keywords"):
        lines.append("Keywords: " + ",".join(p["keywords"]))
    lic = p.get("license")
    if isinstance(lic, dict) and lic.get("text"):
        lines.append(f"License: {lic['text']}")
    for c in p.get("classifiers", []):
        lines.append(f"Classifier: {c}")
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    for d in p.get("dependencies", []):
        lines.append(f"Requires-Dist: {d}")
    readme = p.get("readme")
    body = ""
    if isinstance(readme, str):
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = f.read()
        lines.append("Description-Content-Type: text/markdown" if readme.endswith(".md") else "Description-Content-Type: text/plain")
    return "\n".join(lines) + "\n\n" + body


def _packages(pp: Dict[str, Any]) -> List[str]:
    packages = pp.get("tool", {}).get("trainprint-build", {}).get("packages")
    if not isinstance(packages, list) or not packages:
        raise ValueError("pyproject.toml: [tool.trainprint-build] packages must list the packages to ship")
    return [str(x) for x in packages]


def _package_files(pp: Dict[str, Any]) -> List[str]:
    """Paths (relative to ROOT, with /) of every file of the packages, caches left out."""
    files = []
    for pkg in _packages(pp):
        base = os.path.join(ROOT, pkg)
        if not os.path.isfile(os.path.join(base, "__init__.py")):
            raise ValueError(f"package {pkg} has no __init__.py")
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for fn in sorted(filenames):
                if fn.endswith((".pyc", ".pyo")) or fn.startswith("."):
                    continue
                files.append(os.path.relpath(os.path.join(dirpath, fn), ROOT).replace(os.sep, "/"))
    return files


def _epoch_seconds() -> int:
    """``SOURCE_DATE_EPOCH`` when set, else 1980-01-01 (the earliest time a zip entry can hold)."""
    sde = os.environ.get("SOURCE_DATE_EPOCH")
    return max(int(sde), 315532800) if sde and sde.isdigit() else 315532800


def _epoch() -> Tuple[int, int, int, int, int, int]:
    t = time.gmtime(_epoch_seconds())
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec)


def _dist_info_files(pp: Dict[str, Any]) -> Dict[str, bytes]:
    top = "\n".join(_packages(pp)) + "\n"
    wheel = f"Wheel-Version: 1.0\nGenerator: {GENERATOR}\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return {"METADATA": _metadata(pp).encode("utf-8"), "WHEEL": wheel.encode("ascii"), "top_level.txt": top.encode("utf-8")}


def _write_wheel(wheel_directory: str, editable: bool) -> str:
    pp = _project()
    name, version = _dist_name(pp["project"]["name"]), pp["project"]["version"]
    dist_info = f"{name}-{version}.dist-info"
    entries: List[Tuple[str, bytes]] = []
    if editable:
        entries.append((f"__editable__.{name}.pth", (ROOT + "\n").encode("utf-8")))
    else:
        for rel in _package_files(pp):
            with open(os.path.join(ROOT, rel), "rb") as f:
                entries.append((rel, f.read()))
    for fn, data in sorted(_dist_info_files(pp).items()):
        entries.append((f"{dist_info}/{fn}", data))
    record = io.StringIO()
    for path, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.write(f"{path},sha256={digest},{len(data)}\n")
    record.write(f"{dist_info}/RECORD,,\n")
    entries.append((f"{dist_info}/RECORD", record.getvalue().encode("utf-8")))
    filename = f"{name}-{version}-py3-none-any.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", compression=zipfile.ZIP_DEFLATED) as z:
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=_epoch())
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return filename


def _write_metadata_dir(metadata_directory: str, editable: bool) -> str:
    pp = _project()
    dist_info = f"{_dist_name(pp['project']['name'])}-{pp['project']['version']}.dist-info"
    target = os.path.join(metadata_directory, dist_info)
    os.makedirs(target, exist_ok=True)
    for fn, data in _dist_info_files(pp).items():
        with open(os.path.join(target, fn), "wb") as f:
            f.write(data)
    return dist_info


# ---------------------------------------------------------------- PEP 517 / PEP 660 hooks

def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    return _write_metadata_dir(metadata_directory, editable=False)


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    return _write_metadata_dir(metadata_directory, editable=True)


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    pp = _project()
    base = f"{_dist_name(pp['project']['name'])}-{pp['project']['version']}"
    files = list(SDIST_FILES) + _package_files(pp)
    for d in SDIST_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, d)):
            dirnames[:] = sorted(x for x in dirnames if x != "__pycache__")
            files += [os.path.relpath(os.path.join(dirpath, fn), ROOT).replace(os.sep, "/")
                      for fn in sorted(filenames) if not fn.endswith(".pyc")]
    mtime = _epoch_seconds()
    os.makedirs(sdist_directory, exist_ok=True)
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        def add(arcname: str, data: bytes) -> None:
            info = tarfile.TarInfo(f"{base}/{arcname}")
            info.size, info.mtime, info.mode = len(data), mtime, 0o644
            tar.addfile(info, io.BytesIO(data))
        add("PKG-INFO", _metadata(pp).encode("utf-8"))
        for rel in sorted(set(files)):
            with open(os.path.join(ROOT, rel), "rb") as f:
                add(rel, f.read())
    return filename
