"""``Client.analyze_file``: a file sent as a ``multipart/form-data`` upload (standard library only, a local stub).

    cd clients/python && python3 -m unittest discover -s tests -v
"""

from __future__ import annotations

import email.parser
import email.policy
import http.server
import json
import threading
import unittest
from typing import Any, ClassVar, Dict, List, Tuple

from trainprint_client import Client, InvalidInputError


class _Capture(http.server.BaseHTTPRequestHandler):
    """Keeps every request's Content-Type and body; answers an analysis."""
    seen: ClassVar[List[Tuple[str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        _Capture.seen.append((self.headers.get("Content-Type") or "", body))
        data = json.dumps({"success": True, "analysis_id": "an_1", "content_type": "pdf"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


def _parts(content_type: str, body: bytes) -> Dict[str, Tuple[str, bytes]]:
    """The form's parts by name: (filename or "", bytes)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    out: Dict[str, Tuple[str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        out[str(name)] = (part.get_filename() or "", part.get_payload(decode=True))
    return out


class UploadTest(unittest.TestCase):
    server: ClassVar[http.server.ThreadingHTTPServer]

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Capture)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.shutdown()
        cls.server.server_close()

    def test_analyze_file_sends_the_file_and_the_fields_as_a_form(self) -> None:
        _Capture.seen = []
        tp = Client(api_key="tp_test_" + "a" * 32, base_url="http://127.0.0.1:%d" % self.server.server_address[1])
        pdf = b"%PDF-1.4\r\n--not-a-boundary\r\n\x00\xff"
        r = tp.analyze_file(pdf, 'annual "report".pdf', {"include_text": True, "search_remote": False,
                                                         "metadata": {"title": "Annual report"}, "content": "x"})
        self.assertEqual(r["analysis_id"], "an_1")
        content_type, body = _Capture.seen[0]
        self.assertTrue(content_type.startswith("multipart/form-data; boundary="))
        parts = _parts(content_type, body)
        self.assertEqual(parts["file"], ('annual %22report%22.pdf', pdf))
        self.assertEqual(parts["include_text"], ("", b"true"))
        self.assertEqual(parts["search_remote"], ("", b"false"))
        self.assertEqual(json.loads(parts["metadata"][1]), {"title": "Annual report"})
        self.assertNotIn("content", parts)


class _RefuseUnread(http.server.BaseHTTPRequestHandler):
    """Answers 413 from the headers and closes without reading the body, as a server refuses an upload over its plan."""
    requests: ClassVar[int] = 0

    def do_POST(self) -> None:
        _RefuseUnread.requests += 1
        data = json.dumps({"success": False, "error": {"code": "PAYLOAD_TOO_LARGE",
                                                        "message": "The request is too large: over 1 MiB"}}).encode()
        self.send_response(413)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args: Any) -> None:
        pass


class RefusedUploadTest(unittest.TestCase):
    def test_an_upload_refused_before_its_body_is_the_servers_413_not_a_network_error_and_not_retried(self) -> None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RefuseUnread)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            retries: List[Any] = []
            tp = Client(api_key="tp_test_" + "a" * 32, base_url="http://127.0.0.1:%d" % server.server_address[1],
                        on_retry=lambda n, w, e: retries.append(e.code))
            _RefuseUnread.requests = 0
            with self.assertRaises(InvalidInputError) as caught:
                # 33 MiB: far more than the sockets' buffers hold, so the write fails once the server has closed
                tp.analyze_file(b"%PDF-1.4\n" + b"0" * (33 * 1024 * 1024), "big.pdf", idempotency_key="refused-once")
            self.assertEqual((caught.exception.status, caught.exception.code), (413, "PAYLOAD_TOO_LARGE"))
            self.assertEqual((retries, _RefuseUnread.requests), ([], 1))
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
