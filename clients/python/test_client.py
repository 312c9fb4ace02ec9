"""Tests of trainprint_client.py (unittest, standard library only).

Against a running API (``LiveApiTest``): set ``TRAINPRINT_BASE_URL`` and ``TRAINPRINT_API_KEY``
(a key with every scope, ``datasets:write`` included, e.g. made with ``POST /api/v1/keys`` by an
operator key). Optional ``TRAINPRINT_LIMITED_BASE_URL`` / ``TRAINPRINT_LIMITED_API_KEY``: a key
whose plan allows one call a day on a server far from its window's reset (a real 429).
The retry rules are also checked against a small local stub server (``RetryTest``).

    TRAINPRINT_BASE_URL=http://127.0.0.1:8787 TRAINPRINT_API_KEY=tp_test_... python3 clients/python/test_client.py
"""

import http.server
import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from trainprint_client import Client, TrainprintApiError, parse_retry_after, utf16_slice  # noqa: E402

BASE_URL = os.environ.get("TRAINPRINT_BASE_URL")
API_KEY = os.environ.get("TRAINPRINT_API_KEY")
MIT_GRANT = ("Permission is hereby granted, free of charge, to any person obtaining a copy of this software and "
             "associated documentation files (the \"Software\"), to deal in the Software without restriction, including "
             "without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell "
             "copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the "
             "following conditions:")


@unittest.skipUnless(BASE_URL and API_KEY, "set TRAINPRINT_BASE_URL and TRAINPRINT_API_KEY to test against a running API")
class LiveApiTest(unittest.TestCase):
    def setUp(self):
        self.tp = Client(api_key=API_KEY, base_url=BASE_URL)

    def test_status_and_openapi(self):
        anon = Client(base_url=BASE_URL + "/")
        self.assertIn(anon.status()["status"], ("operational", "degraded", "major_outage"))
        self.assertEqual(anon.openapi()["openapi"], "3.1.0")

    def test_analyze_compare_fingerprint(self):
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

    def test_works_score_monitors(self):
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
        with self.assertRaises(TrainprintApiError) as cm:
            self.tp.get_work(w["work_id"])
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "NOT_FOUND"))

    def test_datasets_and_kb(self):
        docs = [{"id": "p1", "text": "Quizzical porcupines audit the lighthouse ledgers every other Thursday in winter."}]
        self.assertEqual(self.tp.datasets.create({"id": "py-test", "documents": docs})["documents"], 1)
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

    def test_account(self):
        self.assertEqual(self.tp.usage()["window"], "day")
        k = self.tp.keys.create(name="py kb", scopes=["kb"], mode="test")
        self.assertIn(k["key_id"], [x["key_id"] for x in self.tp.keys.list()["keys"]])
        self.assertTrue(Client(api_key=k["key"], base_url=BASE_URL).kb.factors()["success"])
        self.assertTrue(self.tp.keys.revoke(k["key_id"])["revoked"])
        c = self.tp.oauth.create_client(name="py", scopes=["kb"])
        tok = self.tp.oauth.token(c["client_id"], c["client_secret"], scope=["kb"])
        self.assertEqual(tok["token_type"], "Bearer")
        self.assertTrue(Client(api_key=tok["access_token"], base_url=BASE_URL).kb.providers()["success"])
        self.assertIn(c["client_id"], [x["client_id"] for x in self.tp.oauth.list_clients()["clients"]])
        self.assertTrue(self.tp.oauth.revoke_client(c["client_id"])["revoked"])

    def test_errors(self):
        with self.assertRaises(TrainprintApiError) as cm:
            self.tp.analyze({"content": "x", "content_type": "pdf"})
        e = cm.exception
        self.assertEqual((e.status, e.code), (422, "INVALID_INPUT"))
        self.assertEqual(e.details["field"], "content_type")
        self.assertTrue(e.request_id)
        with self.assertRaises(TrainprintApiError) as cm:
            Client(api_key="tp_live_" + "0" * 32, base_url=BASE_URL).usage()
        self.assertEqual((cm.exception.status, cm.exception.code), (401, "UNAUTHORIZED"))
        r = self.tp.request("GET", "/api/v1/kb/models", query={"provider": "meta"})
        self.assertTrue(r["success"])

    @unittest.skipUnless(os.environ.get("TRAINPRINT_BUYER_API_KEY"), "no buyer key (another account, scope marketplace) given")
    def test_marketplace(self):
        buyer = Client(api_key=os.environ["TRAINPRINT_BUYER_API_KEY"], base_url=BASE_URL)
        usd = lambda n: {"amount_minor": n, "currency": "USD"}  # noqa: E731
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
    def test_memorization(self):
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

    @unittest.skipUnless(os.environ.get("TRAINPRINT_LIMITED_API_KEY"), "no limited key given")
    def test_real_429_with_a_long_retry_after_is_raised_at_once(self):
        c = Client(api_key=os.environ["TRAINPRINT_LIMITED_API_KEY"], base_url=os.environ.get("TRAINPRINT_LIMITED_BASE_URL", BASE_URL))
        c.kb.factors()
        t0 = time.monotonic()
        with self.assertRaises(TrainprintApiError) as cm:
            c.kb.factors()
        self.assertEqual((cm.exception.status, cm.exception.code), (429, "RATE_LIMITED"))
        self.assertGreater(cm.exception.retry_after, 3600)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(c.rate_limit["remaining"], 0)


class _Stub(http.server.BaseHTTPRequestHandler):
    """Answers from a script: a list of (status, headers, body) per path; records every request."""
    script = {}
    seen = []

    def _answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        _Stub.seen.append((self.command, self.path, self.headers.get("Idempotency-Key")))
        queue = _Stub.script.get(self.path) or [(200, {}, {"success": True, "ok": True})]
        status, headers, body = queue.pop(0) if len(queue) > 1 else queue[0]
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args):
        pass


def _unavailable(status=503, headers=None):
    return (status, headers or {}, {"success": False, "error": {"code": "SERVICE_UNAVAILABLE", "message": "try later"}})


class RetryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
        cls.thread = threading.Thread(target=cls.server.serve_forever, daemon=True)
        cls.thread.start()
        cls.url = "http://127.0.0.1:%d" % cls.server.server_address[1]

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        _Stub.script = {}
        _Stub.seen = []
        self.waits = []
        self.tp = Client(api_key="tp_test_" + "a" * 32, base_url=self.url, sleep=self.waits.append)

    def test_429_waits_retry_after_for_any_method(self):
        _Stub.script["/api/v1/attribution/analyze"] = [_unavailable(429, {"Retry-After": "2"}), (200, {}, {"success": True, "analysis_id": "an_1"})]
        self.assertEqual(self.tp.analyze({"content": "x", "content_type": "text"})["analysis_id"], "an_1")
        self.assertEqual(self.waits, [2.0])
        self.assertEqual(len(_Stub.seen), 2)

    def test_429_beyond_max_retry_delay_is_raised(self):
        _Stub.script["/api/v1/usage"] = [_unavailable(429, {"Retry-After": "3600"})]
        with self.assertRaises(TrainprintApiError) as cm:
            self.tp.usage()
        self.assertEqual((cm.exception.status, cm.exception.retry_after), (429, 3600))
        self.assertEqual(self.waits, [])

    def test_5xx_retried_only_when_idempotent(self):
        _Stub.script["/api/v1/kb/factors"] = [_unavailable(502), _unavailable(503), (200, {}, {"success": True, "factors": []})]
        self.assertEqual(self.tp.kb.factors()["factors"], [])
        self.assertEqual(len(self.waits), 2)
        _Stub.script["/api/v1/content/register"] = [_unavailable(503), (200, {}, {"success": True, "work_id": "wk_1"})]
        with self.assertRaises(TrainprintApiError) as cm:
            self.tp.register_work({"content": "x"})
        self.assertEqual(cm.exception.status, 503)
        _Stub.script["/api/v1/content/register"] = [_unavailable(503), (201, {}, {"success": True, "work_id": "wk_1"})]
        self.assertEqual(self.tp.register_work({"content": "x"}, idempotency_key="k1")["work_id"], "wk_1")
        self.assertEqual([s[2] for s in _Stub.seen if s[1] == "/api/v1/content/register"][-2:], ["k1", "k1"])

    def test_max_retries_bounds_the_attempts(self):
        _Stub.script["/api/v1/kb/datasets"] = [_unavailable(503)]
        c = Client(base_url=self.url, max_retries=2, sleep=self.waits.append)
        with self.assertRaises(TrainprintApiError):
            c.kb.datasets()
        self.assertEqual(len(_Stub.seen), 3)

    def test_network_error(self):
        with self.assertRaises(TrainprintApiError) as cm:
            Client(base_url="http://127.0.0.1:9", max_retries=1, sleep=self.waits.append).status()
        self.assertEqual((cm.exception.status, cm.exception.code), (0, "NETWORK_ERROR"))
        self.assertEqual(len(self.waits), 1)

    def test_helpers(self):
        self.assertEqual(parse_retry_after("7"), 7)
        self.assertEqual(parse_retry_after("Tue, 01 Jan 2030 00:00:30 GMT", now=1893456000), 30)
        self.assertIsNone(parse_retry_after("soon"))
        self.assertEqual(utf16_slice("a\U0001F680bc", 3, 5), "bc")
        with self.assertRaises(ValueError):
            Client(base_url="ftp://x")
        self.assertEqual(Client(base_url="https://example.org/tp/").base_url, "https://example.org/tp")


if __name__ == "__main__":
    unittest.main(verbosity=2)
