"""The client conformance scenario (clients/conformance.json) against a real server.

Each step of the scenario is one test, run in order (test_00_status, test_01_analyze, ...):
later steps use values saved by earlier ones. Environment: TRAINPRINT_BASE_URL and
TRAINPRINT_API_KEY (and TRAINPRINT_LIMITED_BASE_URL / TRAINPRINT_LIMITED_API_KEY for the
rate-limit steps); see the scenario's "about" for what the servers must be. Without
TRAINPRINT_BASE_URL every step is skipped. TRAINPRINT_CONFORMANCE overrides the scenario path.

    TRAINPRINT_BASE_URL=http://127.0.0.1:8787 TRAINPRINT_API_KEY=tp_test_... python3 -m unittest tests.test_conformance -v
"""

from __future__ import annotations

import json
import os
import re
import time
import unittest
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Type

import trainprint_client
from trainprint_client import (
    Client, ConflictError, ForbiddenError, InvalidInputError, NetworkError, NotFoundError, RateLimitedError, ServerError,
    TrainprintApiError, UnauthorizedError, UpstreamError, utf16_slice,
)

SCENARIO_PATH = os.environ.get("TRAINPRINT_CONFORMANCE") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "conformance.json")

KINDS: Mapping[str, Type[TrainprintApiError]] = {
    "invalid_input": InvalidInputError, "unauthorized": UnauthorizedError, "forbidden": ForbiddenError,
    "not_found": NotFoundError, "conflict": ConflictError, "rate_limited": RateLimitedError,
    "upstream": UpstreamError, "server": ServerError, "network": NetworkError,
}

Call = Callable[[Client, Dict[str, Any], Dict[str, Any]], Any]

#: step.op -> the typed method (args: the step's args; options: the step's options)
OPS: Mapping[str, Call] = {
    "status": lambda c, a, o: c.status(),
    "analyze": lambda c, a, o: c.analyze(a, **o),  # type: ignore[arg-type]
    "get_analysis": lambda c, a, o: c.get_analysis(a["analysis_id"]),
    "compare": lambda c, a, o: c.compare(a["a"], a["b"]),
    "register_work": lambda c, a, o: c.register_work(a, **o),  # type: ignore[arg-type]
    "get_work": lambda c, a, o: c.get_work(a["work_id"]),
    "score": lambda c, a, o: c.score(a),  # type: ignore[arg-type]
    "list_works": lambda c, a, o: c.list_works(**a),
    "usage": lambda c, a, o: c.usage(),
}

with open(SCENARIO_PATH, encoding="utf-8") as _f:
    SCENARIO: Dict[str, Any] = json.load(_f)


# ---------------------------------------------------------------- patterns

def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return type(v).__name__


def _equal(want: Any, got: Any) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(want, bool) and isinstance(got, bool) and want == got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return float(want) == float(got)
    return bool(want == got)


def match(pattern: Any, actual: Any, path: str = "$") -> List[str]:
    """Mismatches of ``actual`` against a scenario pattern (empty: it matches)."""
    if isinstance(pattern, dict) and any(k.startswith("$") for k in pattern):
        return _operators(pattern, actual, path)
    if isinstance(pattern, dict):
        if not isinstance(actual, dict):
            return [f"{path}: want an object, got {_kind(actual)} {actual!r:.80}"]
        out: List[str] = []
        for k, p in pattern.items():
            if k not in actual:
                out.append(f"{path}.{k}: missing")
            else:
                out += match(p, actual[k], f"{path}.{k}")
        return out
    if isinstance(pattern, list):
        if not isinstance(actual, list) or len(actual) != len(pattern):
            return [f"{path}: want a list of {len(pattern)}, got {actual!r:.200}"]
        return [m for i, p in enumerate(pattern) for m in match(p, actual[i], f"{path}[{i}]")]
    return [] if _equal(pattern, actual) else [f"{path}: want {pattern!r}, got {actual!r:.200}"]


def _operators(ops: Dict[str, Any], actual: Any, path: str) -> List[str]:
    out: List[str] = []
    kind = _kind(actual)
    number = kind in ("integer", "number")
    for op, arg in ops.items():
        ok = True
        if op == "$type":
            wanted = arg if isinstance(arg, list) else [arg]
            ok = kind in wanted or ("number" in wanted and kind == "integer")
        elif op == "$in":
            ok = any(_equal(x, actual) for x in arg)
        elif op == "$prefix":
            ok = isinstance(actual, str) and actual.startswith(arg)
        elif op == "$contains":
            ok = isinstance(actual, str) and arg in actual
        elif op in ("$gt", "$gte", "$lt", "$lte"):
            ok = number and {"$gt": actual > arg, "$gte": actual >= arg, "$lt": actual < arg, "$lte": actual <= arg}[op]
        elif op == "$len":
            ok = isinstance(actual, (list, str)) and len(actual) == arg
        elif op == "$min_items":
            ok = isinstance(actual, list) and len(actual) >= arg
        elif op == "$some":
            ok = isinstance(actual, list) and any(not match(arg, x) for x in actual)
        else:
            out.append(f"{path}: unknown operator {op}")
            continue
        if not ok:
            out.append(f"{path}: want {op} {arg!r}, got {actual!r:.200}")
    return out


_REF = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


def substitute(value: Any, env: Mapping[str, Any]) -> Any:
    """``${name}`` references replaced (a whole-string reference keeps the value's type)."""
    if isinstance(value, str):
        whole = _REF.fullmatch(value)
        if whole:
            return env[whole.group(1)]
        return _REF.sub(lambda m: str(env[m.group(1)]), value)
    if isinstance(value, list):
        return [substitute(v, env) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, env) for k, v in value.items()}
    return value


def dig(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        obj = obj[part]
    return obj


# ---------------------------------------------------------------- the runner

def make_client(spec: Mapping[str, Any], retries: List[Dict[str, Any]]) -> Client:
    for var in (spec["base_url_env"], spec.get("api_key_env")):
        if var is not None and not os.environ.get(var):
            raise unittest.SkipTest(f"set {var} to run this step")
    base_url = os.environ[spec["base_url_env"]]
    api_key = os.environ[spec["api_key_env"]] if "api_key_env" in spec else spec.get("api_key")

    def on_retry(n: int, wait: float, err: TrainprintApiError) -> None:
        retries.append({"retry": n, "wait_s": wait, "status": err.status, "code": err.code})

    options: Dict[str, Any] = {"on_retry": on_retry}
    if "max_retry_delay_s" in spec:
        options["max_retry_delay"] = float(spec["max_retry_delay_s"])
    return Client(api_key=api_key, base_url=base_url, **options)


def error_dict(e: TrainprintApiError) -> Dict[str, Any]:
    return {"status": e.status, "code": e.code, "message": e.message, "details": e.details,
            "request_id": e.request_id, "retry_after": e.retry_after}


def run_step(step: Mapping[str, Any], env: Dict[str, Any]) -> List[str]:
    """Runs one step; returns its failures (and saves its values into ``env``)."""
    if step["op"] not in OPS:
        return [f"unknown op {step['op']!r}"]
    retries: List[Dict[str, Any]] = []
    client = make_client(SCENARIO["clients"][step["client"]], retries)
    args = substitute(step.get("args", {}), env)
    options = substitute(step.get("options", {}), env)
    t0 = time.monotonic()
    result: Any = None
    error: Optional[TrainprintApiError] = None
    try:
        result = OPS[step["op"]](client, args, options)
    except TrainprintApiError as e:
        error = e
    elapsed = time.monotonic() - t0
    failures: List[str] = []
    if "error" in step:
        if error is None:
            return [f"want an error, the call succeeded: {json.dumps(result)[:300]}"]
        failures += match(substitute(step["error"], env), error_dict(error), "error")
        kind = step.get("error_kind")
        if kind is not None and not isinstance(error, KINDS[kind]):
            failures.append(f"want a {KINDS[kind].__name__}, got {type(error).__name__}")
    else:
        if error is not None:
            return [f"want success, got {type(error).__name__}: {error}"]
        failures += match(substitute(step.get("expect", {}), env), result, "result")
        span = step.get("span")
        if span:
            found = next((m for m in result[span["array"]] if not match(span["where"], m)), None)
            if found is None:
                failures.append(f"span: no element of {span['array']} matches {span['where']}")
            else:
                text = utf16_slice(args[span["text_arg"]], found[span["start"]], found[span["end"]])
                if span["contains"] not in text:
                    failures.append(f"span: {text!r} does not contain {span['contains']!r}")
        for name, dotted in step.get("save", {}).items():
            env[name] = dig(result, dotted)
    if "rate_limit" in step:
        failures += match(step["rate_limit"], client.rate_limit, "rate_limit")
    if "retries" in step:
        failures += match(step["retries"], retries, "retries")
    if "elapsed_s" in step:
        failures += match(step["elapsed_s"], elapsed, "elapsed_s")
    return failures


ENV: Dict[str, Any] = dict(SCENARIO["texts"], run_id=uuid.uuid4().hex[:12])


@unittest.skipUnless(os.environ.get("TRAINPRINT_BASE_URL"), "set TRAINPRINT_BASE_URL and TRAINPRINT_API_KEY to run the conformance scenario")
class ConformanceTest(unittest.TestCase):
    """One test per step, in the scenario's order."""

    @classmethod
    def setUpClass(cls) -> None:
        print(f"\nconformance: {len(SCENARIO['steps'])} steps, trainprint_client from {trainprint_client.__file__}", flush=True)


def _make_test(step: Mapping[str, Any]) -> Callable[[ConformanceTest], None]:
    def test(self: ConformanceTest) -> None:
        failures = run_step(step, ENV)
        self.assertEqual(failures, [], f"step {step['id']} ({step.get('title', '')})")
    test.__doc__ = f"{step['id']}: {step.get('title', '')}"
    return test


for _i, _step in enumerate(SCENARIO["steps"]):
    setattr(ConformanceTest, f"test_{_i:02d}_{_step['id']}", _make_test(_step))


class PatternTest(unittest.TestCase):
    """The pattern language itself (no server)."""

    def test_patterns(self) -> None:
        self.assertEqual(match({"a": 1, "b": {"$prefix": "x"}}, {"a": 1.0, "b": "xy", "c": 3}), [])
        self.assertTrue(match({"a": True}, {"a": 1}))
        self.assertTrue(match({"a": 1}, {}))
        self.assertEqual(match({"$some": {"id": 2}, "$min_items": 2}, [{"id": 1}, {"id": 2}]), [])
        self.assertTrue(match({"$some": {"id": 3}}, [{"id": 1}]))
        self.assertEqual(match({"$type": ["string", "null"]}, None), [])
        self.assertEqual(match({"$type": "number", "$gte": 0, "$lt": 1}, 0), [])
        self.assertTrue(match({"$type": "integer"}, 0.5))
        self.assertEqual(match([], []), [])
        self.assertTrue(match([], [1]))
        self.assertTrue(match({"$nope": 1}, 1))
        self.assertEqual(substitute({"a": "${n}", "b": "x${n}y", "c": ["${s}"]}, {"n": 3, "s": "t"}), {"a": 3, "b": "x3y", "c": ["t"]})

    def test_every_op_and_kind_of_the_scenario_is_known(self) -> None:
        for step in SCENARIO["steps"]:
            self.assertIn(step["op"], OPS, step["id"])
            self.assertIn(step["client"], SCENARIO["clients"], step["id"])
            if "error_kind" in step:
                self.assertIn(step["error_kind"], KINDS, step["id"])
        self.assertEqual(len({s["id"] for s in SCENARIO["steps"]}), len(SCENARIO["steps"]), "step ids are unique")


if __name__ == "__main__":
    unittest.main(verbosity=2)
