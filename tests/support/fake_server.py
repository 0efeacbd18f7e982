"""A stand-in inference service for `dslint nsys capture` tests (loopback
only). Usage: fake_server.py PORT DELAY_SECONDS ok|crash

ok: after DELAY_SECONDS, answers GET /v1/models and streams a chat
completion for POST /v1/chat/completions, touching $FAKE_NSYS_TRIGGER when
it does (the fake nsys then writes its report). crash: prints a Python
traceback and hangs without answering.
"""
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

port, delay, mode = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
print("fake server starting", flush=True)
if mode == "crash":
    print("Traceback (most recent call last):", flush=True)
    print('  File "serve.py", line 1, in <module>', flush=True)
    print("RuntimeError: CUDA error: out of memory", flush=True)
    time.sleep(3600)
time.sleep(delay)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/v1/models":
            body = json.dumps({"object": "list", "data": [{"id": "fake-model", "object": "model"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(404)
            self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        req = json.loads(self.rfile.read(n) or b"{}")
        trigger = os.environ.get("FAKE_NSYS_TRIGGER")
        if trigger:
            with open(trigger, "w") as f:
                f.write(json.dumps(req))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for i in range(3):
            chunk = {"choices": [{"delta": {"content": f"token{i} "}}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")


HTTPServer(("127.0.0.1", port), Handler).serve_forever()
