"""Tests of the trainprint_client package (unittest, standard library only).

- ``RetryTest``, ``ErrorTest``, ``PackageTest``: no server needed (a local stub answers from a script).
- ``LiveApiTest``: against a running API; set ``TRAINPRINT_BASE_URL`` and ``TRAINPRINT_API_KEY``
  (a key with every scope, ``datasets:write`` included). ``TRAINPRINT_BUYER_API_KEY`` (another
  account, scope marketplace) adds the marketplace test; ``TRAINPRINT_MODEL_BASE_URL`` /
  ``TRAINPRINT_MODEL_NAME`` / ``TRAINPRINT_MODEL_WORK`` (an OpenAI-compatible model the server may
  call, and a text it was trained on) the memorization test.

    cd clients/python && python3 -m unittest discover -s tests -v
"""

from __future__ import annotations

import http.server
import json
import os
import pickle
import sys
import tempfile
import threading
import time
import unittest
import zipfile
from typing import Any, ClassVar, Dict, List, Tuple

import trainprint_client
from trainprint_client import (
    Client, ConflictError, ErrorCode, ForbiddenError, InvalidInputError, NetworkError, NotFoundError, RateLimitedError,
    RequestTimeoutError, ServerError, TrainprintApiError, UnauthorizedError, UpstreamError, error_class, parse_retry_after,
    utf16_slice,
)

BASE_URL = os.environ.get("TRAINPRINT_BASE_URL")
API_KEY = os.environ.get("TRAINPRINT_API_KEY")
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIT_GRANT = ("Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
             "associated documentation files (the \"Software\"), to deal in the Software without restriction, including "
             "without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell "
             "copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the "
             "following conditions:")


@unittest.skipUnless(BASE_URL and API_KEY, "set TRAINPRINT_BASE_URL and TRAINPRINT_API_KEY to test against a running API")
class LiveApiTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tp = Client(api_key=API_KEY, base_url=str(BASE_URL))

    def test_status_and_openapi(self) -> None:
        anon = Client(base_url=str(BASE_URL) + "/")
        self.assertIn(anon.status()["status"], ("operational", "degraded", "major_outage"))
        self.assertEqual(anon.openapi()["openapi"], "3.1.0")

    def test_analyze_compare_fingerprint(self) -> None:
        content = "Our project \U0001F680 is free software.\n\n" + MIT_GRANT
        r = self.tp.analyze({"content": content, "content_type": "text"})
        self.assertTrue(r["success"])
        mit = [m for m in r["matches"] if m.get("document_id") == "MIT"]
        self.assertTrue(mit, "the MIT licence is found")
        # spans are UTF-16 offsets: the emoji before the passage counts as two units
        self.assertIn("to deal in the Software", utf16_slice(content, mit[0]["query_start"], mit[0]["query_end"]))
        self.assertEqual(self.tp.get_analysis(r["analysis_id"])["analysis_id"], r["analysis_id"])
        self.assertGreater(self.tp.compare(MIT_GRANT, "Preface. " + MIT_GRANT)["similarity"], 0.9)
        fp = self.tp.fingerprint({"content": MIT_GRANT})
        self.assertTrue(fp["work_hash"].startswith("sha256:"))
        self.assertIsNotNone(self.tp.rate_limit)

    def test_works_score_monitors(self) -> None:
        w = self.tp.register_work({"content": "Python client work. " + MIT_GRANT, "title": "py"},
                                  idempotency_key="py-%d" % time.time_ns())
        self.assertEqual(self.tp.get_work(w["work_id"])["work_hash"], w["work_hash"])
        self.assertIn(w["work_id"], [x["work_id"] for x in self.tp.list_works(limit=1000)["works"]])
        self.assertTrue(self.tp.verify_receipt(w["receipt"])["valid"])
        model = self.tp.kb.models(modality="text")["models"][0]["id"]
        self.assertEqual(self.tp.kb.model(model)["id"], model)
        s = self.tp.score({"work_hash": w["work_hash"], "target_model": model, "jurisdiction": "US"})
        self.assertEqual(s["work_id"], w["work_id"])
        m = self.tp.monitors.create({"work_id": w["work_id"], "models": [model]})
        self.assertIn(m["monitor_id"], [x["monitor_id"] for x in self.tp.monitors.list(work_id=w["work_id"])["monitors"]])
        self.assertEqual(self.tp.monitors.pause(m["monitor_id"])["state"], "paused")
        self.assertEqual(self.tp.monitors.resume(m["monitor_id"])["state"], "active")
        self.assertIsInstance(self.tp.monitors.events(m["monitor_id"], limit=5)["events"], list)
        self.assertEqual(self.tp.monitors.get(m["monitor_id"])["monitor_id"], m["monitor_id"])
        self.assertTrue(self.tp.monitors.delete(m["monitor_id"])["deleted"])
        self.assertTrue(self.tp.delete_work(w["work_id"])["deleted"])
        with self.assertRaises(NotFoundError) as cm:
            self.tp.get_work(w["work_id"])
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "NOT_FOUND"))

    def test_datasets_and_kb(self) -> None:
        docs = [{"id": "p1", "text": "Quizzical porcupines audit the lighthouse ledgers every other Thursday in winter."}]
        self.assertEqual(self.tp.datasets.create({"id": "py-test", "documents": docs})["documents"], 1)
        with self.assertRaises(ConflictError) as cm:
            self.tp.datasets.create({"id": "py-test"})
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "ALREADY_EXISTS"))
        self.tp.datasets.add_documents("py-test", [{"id": "p2", "text": "Velvet otters smuggle lemon drops past sleepy customs officers."}])
        self.assertEqual(self.tp.datasets.get("py-test")["documents"], 2)
        self.assertIn("py-test", [d["id"] for d in self.tp.datasets.list()["datasets"]])
        data = self.tp.datasets.export("py-test")
        self.assertIsInstance(data, bytes)
        self.tp.datasets.delete("py-test")
        self.assertEqual(self.tp.datasets.import_(data)["documents"], 2)
        self.tp.datasets.delete("py-test")
        self.assertTrue(self.tp.kb.providers()["providers"])
        self.assertIn("the-pile", [d["id"] for d in self.tp.kb.datasets()["datasets"]])
        self.assertTrue(self.tp.kb.dataset("the-pile")["name"])
        self.assertTrue(self.tp.kb.jurisdictions()["jurisdictions"])
        self.assertTrue(self.tp.kb.factors()["factors"])

    def test_account(self) -> None:
        self.assertEqual(self.tp.usage()["window"], "day")
        k = self.tp.keys.create(name="py kb", scopes=["kb"], mode="test")
        self.assertIn(k["key_id"], [x["key_id"] for x in self.tp.keys.list()["keys"]])
        narrow = Client(api_key=k["key"], base_url=str(BASE_URL))
        self.assertTrue(narrow.kb.factors()["success"])
        with self.assertRaises(ForbiddenError) as cm:
            narrow.list_works()
        self.assertEqual((cm.exception.status, cm.exception.code), (403, "FORBIDDEN"))
        self.assertTrue(self.tp.keys.revoke(k["key_id"])["revoked"])
        c = self.tp.oauth.create_client(name="py", scopes=["kb"])
        tok = self.tp.oauth.token(c["client_id"], c["client_secret"], scope=["kb"])
        self.assertEqual(tok["token_type"], "Bearer")
        self.assertTrue(Client(api_key=tok["access_token"], base_url=str(BASE_URL)).kb.providers()["success"])
        self.assertIn(c["client_id"], [x["client_id"] for x in self.tp.oauth.list_clients()["clients"]])
        self.assertTrue(self.tp.oauth.revoke_client(c["client_id"])["revoked"])
        with self.assertRaises(UnauthorizedError) as cm2:
            self.tp.oauth.token(c["client_id"], c["client_secret"])
        self.assertEqual((cm2.exception.status, cm2.exception.code), (401, "invalid_client"))

    def test_catalogue_job(self) -> None:
        quoted = "Quoted \U0001F680 " + MIT_GRANT
        items = [{"id": f"o{i}", "text": quoted if i == 2 else "plain words"} for i in range(5)]
        job = self.tp.create_job("scan", items, options={"min_words": 10})
        self.assertEqual(job["total"], 5)
        self.assertRegex(job["job_id"], r"^job_[0-9a-f]{32}$")
        lines = list(self.tp.job_results(job["job_id"], limit=2, poll_seconds=0.05))
        self.assertEqual([line["index"] for line in lines], [0, 1, 2, 3, 4])
        self.assertEqual(lines[0]["result"]["id"], "o0")
        # a hit's spans are UTF-16 offsets into the item's text: the emoji before the passage counts two units
        mit = [h for h in lines[2]["result"]["hits"] if h["document_id"] == "MIT"]
        self.assertEqual([h["id"] for h in mit], ["o2"])
        self.assertTrue(utf16_slice(quoted, mit[0]["query_start"], mit[0]["query_end"]).startswith("Permission is hereby"))
        self.assertEqual(self.tp.get_job(job["job_id"])["state"], "done")
        listed = self.tp.list_jobs(limit=100)
        self.assertIn((job["job_id"], "done"), [(j["job_id"], j["state"]) for j in listed["jobs"]])
        self.assertTrue(self.tp.cancel_job(job["job_id"])["deleted"])
        with self.assertRaises(NotFoundError):
            self.tp.get_job(job["job_id"])

    def test_errors(self) -> None:
        with self.assertRaises(InvalidInputError) as cm:
            self.tp.analyze({"content": "x", "content_type": "rtf"})  # type: ignore[typeddict-item]
        e = cm.exception
        self.assertEqual((e.status, e.code), (422, "INVALID_INPUT"))
        self.assertEqual((e.details or {})["field"], "content_type")
        self.assertTrue(e.request_id)
        with self.assertRaises(UnauthorizedError) as cm2:
            Client(api_key="tp_live_" + "0" * 32, base_url=str(BASE_URL)).usage()
        self.assertEqual((cm2.exception.status, cm2.exception.code), (401, "UNAUTHORIZED"))
        r = self.tp.request("GET", "/api/v1/kb/models", query={"provider": "meta"})
        self.assertTrue(r["success"])
        # a lone surrogate (not Unicode text) is the server's refusal naming the field, as from any client
        with self.assertRaises(InvalidInputError) as cm3:
            self.tp.analyze({"content": "A text \ud800 with half a pair.", "content_type": "text"})
        self.assertEqual((cm3.exception.status, (cm3.exception.details or {}).get("field")), (422, "content"))

    @unittest.skipUnless(os.environ.get("TRAINPRINT_BUYER_API_KEY"), "no buyer key (another account, scope marketplace) given")
    def test_marketplace(self) -> None:
        buyer = Client(api_key=os.environ["TRAINPRINT_BUYER_API_KEY"], base_url=str(BASE_URL))

        def usd(n: int) -> Dict[str, Any]:
            return {"amount_minor": n, "currency": "USD"}

        w = self.tp.register_work({"content": "A work for sale. " + MIT_GRANT + " Ends here %d." % time.time_ns()})
        draft = self.tp.marketplace.create_listing({"work_id": w["work_id"], "licence_type": "training", "territory": ["US"],
                                                    "term_months": 12, "price": usd(100_000)}, idempotency_key="py-list-" + w["work_id"])
        self.assertEqual(self.tp.marketplace.update_listing(draft["listing_id"], {"description": "py"})["description"], "py")
        listing = self.tp.marketplace.publish_listing(draft["listing_id"])
        self.assertIn(listing["listing_id"], [x["listing_id"] for x in buyer.marketplace.list_listings(licence_type="training", limit=1000)["listings"]])
        self.assertEqual(buyer.marketplace.get_listing(listing["listing_id"])["status"], "active")
        offer = buyer.marketplace.make_offer(listing["listing_id"], {"amount": usd(90_000)})
        self.assertEqual(self.tp.marketplace.get_offer(offer["offer_id"])["status"], "pending")
        self.assertIn(offer["offer_id"], [o["offer_id"] for o in self.tp.marketplace.list_offers(role="seller", limit=1000)["offers"]])
        counter = self.tp.marketplace.counter_offer(offer["offer_id"], {"amount": usd(95_000)})
        lic = buyer.marketplace.accept_offer(counter["offer_id"], idempotency_key="py-accept-" + counter["offer_id"])
        self.assertTrue(buyer.marketplace.get_licence(lic["licence_id"])["verified"])
        self.assertIn(lic["licence_id"], [x["licence_id"] for x in buyer.marketplace.list_licences(role="licensee")["licences"]])
        doc = {k: v for k, v in lic.items() if k != "success"}
        self.assertTrue(buyer.marketplace.verify_licence(doc)["valid"])
        other = buyer.marketplace.make_offer(listing["listing_id"], {"amount": usd(1)})
        self.assertEqual(self.tp.marketplace.decline_offer(other["offer_id"])["status"], "declined")
        mine = buyer.marketplace.make_offer(listing["listing_id"], {"amount": usd(2)})
        self.assertEqual(buyer.marketplace.withdraw_offer(mine["offer_id"])["status"], "withdrawn")
        self.assertTrue(self.tp.marketplace.audit(listing["listing_id"])["entries"])
        self.assertEqual(self.tp.marketplace.withdraw_listing(listing["listing_id"])["status"], "withdrawn")

    @unittest.skipUnless(os.environ.get("TRAINPRINT_MODEL_BASE_URL"), "no model service (TRAINPRINT_MODEL_BASE_URL, TRAINPRINT_MODEL_NAME) given")
    def test_memorization(self) -> None:
        spec = {"base_url": os.environ["TRAINPRINT_MODEL_BASE_URL"], "model": os.environ.get("TRAINPRINT_MODEL_NAME", "ngram")}
        work = os.environ["TRAINPRINT_MODEL_WORK"]  # the text the model was trained on
        t = self.tp.memorization.track_work({"work": {"content": work}})
        ref = ["Reference document %d: %s" % (i, " ".join("word%d" % ((i * 37 + j) % 500) for j in range(300))) for i in range(6)]
        self.assertEqual(self.tp.memorization.create_reference_set({"id": "py-ref", "texts": ref, "basis": "unverified"})["documents"], 6)
        self.assertIn("py-ref", [r["id"] for r in self.tp.memorization.list_reference_sets()["reference_sets"]])
        self.assertGreater(self.tp.memorization.extract({"work_id": t["work_id"], "model": spec, "prefixes": 2})["summary"]["verified"], 0)
        self.assertEqual(self.tp.memorization.probe({"work_id": t["work_id"], "model": spec, "reference": {"reference_set": "py-ref"},
                                                     "chunk_tokens": 64})["reference"]["id"], "py-ref")
        self.assertTrue(self.tp.memorization.compare_output({"output": " ".join(work.split()[100:200])})["works"])
        a = self.tp.memorization.assess({"work_id": t["work_id"], "model": spec, "extract": {"prefixes": 2}, "probe": False})
        self.assertIn("Memorization risk report", self.tp.memorization.report(a["assessment_id"]))


Answer = Tuple[int, Dict[str, str], Any]


class _Stub(http.server.BaseHTTPRequestHandler):
    """Answers from a script: a list of (status, headers, body) per path; records every request."""
    script: ClassVar[Dict[str, List[Answer]]] = {}
    seen: ClassVar[List[Tuple[str, str, Any]]] = []

    def _answer(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        _Stub.seen.append((self.command, self.path, self.headers.get("Idempotency-Key")))
        queue = _Stub.script.get(self.path.split("?")[0]) or [(200, {}, {"success": True, "ok": True})]
        status, headers, body = queue.pop(0) if len(queue) > 1 else queue[0]
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = do_PATCH = _answer

    def log_message(self, *args: Any) -> None:
        pass


def _failure(status: int = 503, headers: Any = None, code: str = "SERVICE_UNAVAILABLE") -> Answer:
    return (status, headers or {}, {"success": False, "error": {"code": code, "message": "try later"}})


class _StubTest(unittest.TestCase):
    server: ClassVar[http.server.ThreadingHTTPServer]
    url: ClassVar[str]

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.url = "http://127.0.0.1:%d" % cls.server.server_address[1]

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self) -> None:
        _Stub.script = {}
        _Stub.seen = []
        self.waits: List[float] = []
        self.retries: List[Tuple[int, float, str]] = []
        self.tp = Client(api_key="tp_test_" + "a" * 32, base_url=self.url, sleep=self.waits.append,
                         on_retry=lambda n, w, e: self.retries.append((n, w, e.code)))


class RetryTest(_StubTest):
    def test_429_waits_retry_after_for_any_method(self) -> None:
        _Stub.script["/api/v1/attribution/analyze"] = [_failure(429, {"Retry-After": "2"}, "RATE_LIMITED"),
                                                       (200, {}, {"success": True, "analysis_id": "an_1"})]
        self.assertEqual(self.tp.analyze({"content": "x", "content_type": "text"})["analysis_id"], "an_1")
        self.assertEqual(self.waits, [2.0])
        self.assertEqual(self.retries, [(1, 2.0, "RATE_LIMITED")])
        self.assertEqual(len(_Stub.seen), 2)

    def test_retry_after_as_an_http_date(self) -> None:
        when = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 3))
        _Stub.script["/api/v1/usage"] = [_failure(503, {"Retry-After": when}), (200, {}, {"success": True, "used": 1})]
        self.assertEqual(self.tp.usage()["used"], 1)
        self.assertEqual(len(self.waits), 1)
        self.assertTrue(1 <= self.waits[0] <= 4, self.waits)

    def test_429_beyond_max_retry_delay_is_raised(self) -> None:
        _Stub.script["/api/v1/usage"] = [_failure(429, {"Retry-After": "3600"}, "RATE_LIMITED")]
        with self.assertRaises(RateLimitedError) as cm:
            self.tp.usage()
        self.assertEqual((cm.exception.status, cm.exception.retry_after), (429, 3600))
        self.assertEqual(self.waits, [])

    def test_max_total_wait_bounds_the_waiting(self) -> None:
        _Stub.script["/api/v1/kb/factors"] = [_failure(503, {"Retry-After": "4"})]
        c = Client(base_url=self.url, max_retries=10, max_total_wait=10, sleep=self.waits.append)
        with self.assertRaises(ServerError):
            c.kb.factors()
        self.assertEqual(self.waits, [4.0, 4.0])  # a third wait would make 12 s > 10 s
        self.assertEqual(len(_Stub.seen), 3)

    def test_5xx_retried_only_when_idempotent(self) -> None:
        _Stub.script["/api/v1/kb/factors"] = [_failure(502), _failure(503), (200, {}, {"success": True, "factors": []})]
        self.assertEqual(self.tp.kb.factors()["factors"], [])
        self.assertEqual(len(self.waits), 2)
        self.assertTrue(all(0 <= w <= 8 for w in self.waits))
        _Stub.script["/api/v1/content/register"] = [_failure(503), (200, {}, {"success": True, "work_id": "wk_1"})]
        with self.assertRaises(ServerError) as cm:
            self.tp.register_work({"content": "x"})
        self.assertEqual(cm.exception.status, 503)
        _Stub.script["/api/v1/content/register"] = [_failure(503), (201, {}, {"success": True, "work_id": "wk_1"})]
        self.assertEqual(self.tp.register_work({"content": "x"}, idempotency_key="k1")["work_id"], "wk_1")
        self.assertEqual([s[2] for s in _Stub.seen if s[1] == "/api/v1/content/register"][-2:], ["k1", "k1"])
        _Stub.script["/api/v1/attribution/compare"] = [_failure(500, code="INTERNAL"), (200, {}, {"success": True, "similarity": 1})]
        self.assertEqual(self.tp.compare("a", "b")["similarity"], 1)

    def test_cancel_job_is_not_retried(self) -> None:
        # DELETE of a job cancels it while it runs and deletes it once finished: a cancel whose answer was lost must
        # not be repeated as a delete
        _Stub.script["/api/v1/jobs/job_1"] = [_failure(502), (200, {}, {"success": True, "job_id": "job_1", "deleted": True})]
        with self.assertRaises(TrainprintApiError) as cm:
            self.tp.cancel_job("job_1")
        self.assertEqual(cm.exception.status, 502)
        self.assertEqual([s[:2] for s in _Stub.seen], [("DELETE", "/api/v1/jobs/job_1")])
        self.assertEqual(self.waits, [])
        with self.assertRaises(NetworkError):
            Client(base_url="http://127.0.0.1:9", sleep=self.waits.append).cancel_job("job_1")
        self.assertEqual(self.waits, [])
        # a 429 is still retried (nothing ran), and other DELETEs keep their retries
        _Stub.script["/api/v1/jobs/job_2"] = [_failure(429, {"Retry-After": "1"}, "RATE_LIMITED"),
                                              (200, {}, {"success": True, "job_id": "job_2", "deleted": False})]
        self.assertFalse(self.tp.cancel_job("job_2")["deleted"])
        _Stub.script["/api/v1/content/wk_1"] = [_failure(503), (200, {}, {"success": True, "deleted": True})]
        self.assertTrue(self.tp.delete_work("wk_1")["deleted"])
        self.assertEqual(len([s for s in _Stub.seen if s[1] == "/api/v1/content/wk_1"]), 2)

    def test_max_retries_bounds_the_attempts(self) -> None:
        _Stub.script["/api/v1/kb/datasets"] = [_failure(503)]
        c = Client(base_url=self.url, max_retries=2, sleep=self.waits.append)
        with self.assertRaises(TrainprintApiError):
            c.kb.datasets()
        self.assertEqual(len(_Stub.seen), 3)
        _Stub.seen.clear()
        with self.assertRaises(TrainprintApiError):
            Client(base_url=self.url, max_retries=0, sleep=self.waits.append).kb.datasets()
        self.assertEqual(len(_Stub.seen), 1)

    def test_network_error(self) -> None:
        with self.assertRaises(NetworkError) as cm:
            Client(base_url="http://127.0.0.1:9", max_retries=1, sleep=self.waits.append).status()
        self.assertEqual((cm.exception.status, cm.exception.code), (0, "NETWORK_ERROR"))
        self.assertEqual(len(self.waits), 1)
        with self.assertRaises(NetworkError):  # a POST that is not idempotent is not retried
            Client(base_url="http://127.0.0.1:9", max_retries=1, sleep=self.waits.append).register_work({"content": "x"})
        self.assertEqual(len(self.waits), 1)

    def test_rate_limit_headers_are_kept(self) -> None:
        _Stub.script["/api/v1/usage"] = [(200, {"RateLimit-Limit": "100", "RateLimit-Remaining": "7", "RateLimit-Reset": "60",
                                                "RateLimit-Policy": "100;w=86400"}, {"success": True})]
        self.assertIsNone(self.tp.rate_limit)
        self.tp.usage()
        self.assertEqual(self.tp.rate_limit, {"limit": 100, "remaining": 7, "reset": 60, "policy": "100;w=86400"})


class ErrorTest(_StubTest):
    def test_classes_by_code_and_status(self) -> None:
        cases = [
            ("INVALID_INPUT", 422, InvalidInputError), ("MALFORMED_JSON", 400, InvalidInputError),
            ("UNAUTHORIZED", 401, UnauthorizedError), ("invalid_client", 401, UnauthorizedError),
            ("FORBIDDEN", 403, ForbiddenError), ("NOT_FOUND", 404, NotFoundError), ("ALREADY_EXISTS", 409, ConflictError),
            ("CONFLICT", 409, ConflictError), ("RATE_LIMITED", 429, RateLimitedError), ("UPSTREAM_TIMEOUT", 504, UpstreamError),
            ("INTERNAL", 500, ServerError), ("STORE_LOCKED", 503, ServerError), ("SOMETHING_NEW", 418, TrainprintApiError),
            ("METHOD_NOT_ALLOWED", 405, TrainprintApiError), ("TIMEOUT", 0, RequestTimeoutError), ("NETWORK_ERROR", 0, NetworkError),
        ]
        for code, status, cls in cases:
            self.assertIs(error_class(code, status), cls, code)
        self.assertTrue(issubclass(RequestTimeoutError, NetworkError))

    def test_envelope_fields(self) -> None:
        _Stub.script["/api/v1/content/wk_1"] = [(404, {"X-Request-Id": "req_abc"}, {"success": False, "error": {
            "code": "NOT_FOUND", "message": "no work", "details": {"id": "wk_1"}}})]
        with self.assertRaises(NotFoundError) as cm:
            self.tp.get_work("wk_1")
        e = cm.exception
        self.assertEqual((e.status, e.code, e.message, e.details, e.request_id, e.retry_after), (404, "NOT_FOUND", "no work", {"id": "wk_1"}, "req_abc", None))
        self.assertEqual(str(e), "NOT_FOUND (404): no work")
        copy = pickle.loads(pickle.dumps(e))
        self.assertIsInstance(copy, NotFoundError)
        self.assertEqual((copy.code, copy.request_id), ("NOT_FOUND", "req_abc"))

    def test_a_body_that_is_not_an_envelope(self) -> None:
        _Stub.script["/api/v1/usage"] = [(502, {}, b"<html>bad gateway</html>")]
        with self.assertRaises(UpstreamError) as cm:
            Client(base_url=self.url, max_retries=0).usage()
        self.assertEqual((cm.exception.status, cm.exception.code), (502, ErrorCode.HTTP_ERROR))
        self.assertIn("bad gateway", cm.exception.message)

    def test_timeout(self) -> None:
        class Slow(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                time.sleep(1.5)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with self.assertRaises(RequestTimeoutError) as cm:
                Client(base_url="http://127.0.0.1:%d" % server.server_address[1], timeout=0.3, max_retries=0).status()
            self.assertEqual((cm.exception.status, cm.exception.code), (0, "TIMEOUT"))
        finally:
            server.shutdown()
            server.server_close()


class PackageTest(unittest.TestCase):
    def test_helpers(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7)
        self.assertEqual(parse_retry_after("Tue, 01 Jan 2030 00:00:30 GMT", now=1893456000), 30)
        self.assertEqual(parse_retry_after("Tue, 01 Jan 2030 00:00:30 GMT", now=1893456100), 0)
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after(None))
        self.assertEqual(utf16_slice("a\U0001F680bc", 3, 5), "bc")
        with self.assertRaises(ValueError):
            Client(base_url="ftp://x")
        with self.assertRaises(ValueError):
            Client(base_url="http://x/?q=1")
        with self.assertRaises(ValueError):
            Client(max_retries=-1)
        self.assertEqual(Client(base_url="https://example.org/tp/").base_url, "https://example.org/tp")
        self.assertNotIn("secret", repr(Client(api_key="secret")))

    def test_from_env(self) -> None:
        saved = {k: os.environ.get(k) for k in ("TRAINPRINT_BASE_URL", "TRAINPRINT_API_KEY")}
        try:
            os.environ["TRAINPRINT_BASE_URL"] = "http://127.0.0.1:1234/x"
            os.environ["TRAINPRINT_API_KEY"] = "tp_test_k"
            c = Client.from_env(max_retries=1)
            self.assertEqual((c.base_url, c.api_key, c.max_retries), ("http://127.0.0.1:1234/x", "tp_test_k", 1))
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_typed_and_versioned(self) -> None:
        pkg = os.path.dirname(trainprint_client.__file__)
        self.assertTrue(os.path.isfile(os.path.join(pkg, "py.typed")), "PEP 561 marker shipped")
        pyproject = os.path.join(PACKAGE_ROOT, "pyproject.toml")
        if os.path.isfile(pyproject):
            with open(pyproject, encoding="utf-8") as f:
                self.assertIn(f'version = "{trainprint_client.__version__}"', f.read())

    @unittest.skipUnless(os.path.isfile(os.path.join(PACKAGE_ROOT, "_backend", "trainprint_build.py")), "not in the source tree")
    def test_build_backend(self) -> None:
        sys.path.insert(0, os.path.join(PACKAGE_ROOT, "_backend"))
        try:
            import trainprint_build as backend  # type: ignore[import-not-found,unused-ignore]
        finally:
            sys.path.pop(0)
        with open(os.path.join(PACKAGE_ROOT, "pyproject.toml"), encoding="utf-8") as f:
            text = f.read()
        try:
            import tomllib  # type: ignore[import-not-found,unused-ignore]
            self.assertEqual(backend.parse_toml_subset(text), tomllib.loads(text))
        except ImportError:
            pass
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        with tempfile.TemporaryDirectory() as out:
            name = backend.build_wheel(out)
            self.assertEqual(name, f"trainprint_client-{trainprint_client.__version__}-py3-none-any.whl")
            with zipfile.ZipFile(os.path.join(out, name)) as z:
                names = z.namelist()
                self.assertIn("trainprint_client/py.typed", names)
                self.assertIn("trainprint_client/__init__.py", names)
                self.assertFalse([n for n in names if "__pycache__" in n or n.startswith("tests/")], names)
                meta = z.read(f"trainprint_client-{trainprint_client.__version__}.dist-info/METADATA").decode()
                self.assertIn("Name: trainprint-client", meta)
                self.assertIn("Requires-Python: >=3.8", meta)
                record = z.read(f"trainprint_client-{trainprint_client.__version__}.dist-info/RECORD").decode().splitlines()
                self.assertEqual(len(record), len(names))
            self.assertTrue(backend.build_sdist(out).endswith(".tar.gz"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
