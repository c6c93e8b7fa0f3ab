#!/usr/bin/env python3
"""httpd.py DIR [--tls CERT KEY]: a small package index for the tests, serving the files of DIR
on 127.0.0.1 (a free port, printed as the first line of stdout), with failures on demand; HTTPS
with --tls (a PEM certificate and its key, as fixtures/tls has). Python 3 standard library only;
HTTP/1.1 with keep-alive, as real indexes are.

  /files/NAME            the file, with single range requests (206, 416) as files.pythonhosted.org
                         serves them; a multi-range request gets the whole file (200), as there
  /norange/NAME          the file, ranges ignored (200 and the whole file)
  /truncate/NAME         promises the whole length, sends half, and closes
  /slow/NAME             sends its headers and then nothing for 60 s
  /redirect/N/REST       302 to /redirect/N-1/REST, and at 0 to /REST
  /loop/NAME             302 to itself
  /status/CODE/NAME      that status
  /packages/AB/CD/HEX/NAME  the file, as /files/ serves it (PyPI's digest-addressed URLs)
  /simple/               the project list, PEP 691 JSON or PEP 503 HTML as /simple/PROJECT/ is
                         (/html/simple/: always HTML)
  /simple/PROJECT/       PEP 691 JSON when the Accept header asks for it, else PEP 503 HTML: the
                         files of DIR whose name is the project's (PEP 503 normalized), with
                         sha256 and requires-python (>=3.8), yanked where DIR has NAME.yanked
                         (its text the reason); /html/simple/... always HTML;
                         /json/simple/... always JSON; /badhash/simple/... JSON whose sha256s
                         are all zeros; /digest/simple/... JSON whose URLs are /packages/ ones
                         (the BLAKE2b-256 of the file, as PyPI's)
  /hostile/simple/PROJECT/  a page of hostile links (file:, javascript:, huge, unterminated)
  /served                the bytes of files sent so far (a test's proof that nothing was read)
  /store/PATH            DIR/PATH as it is, for a tree such as a facts store (not in /served)
  /mutate/HOW/OFFSET/NAME  the file as /files/ serves it the first time it is asked for, then
                         with the byte at OFFSET changed: HOW says what names its version, etag
                         (ETag "v1", then "v2"), modified (Last-Modified moving a day) or quiet
                         (nothing)
  /drip/REST             REST with its body sent one byte every 250 ms
  /throttle/REST         REST with its body sent 128 KiB every 100 ms (1.3 MB/s)
  /huge/simple/PROJECT/  PEP 691 JSON, gzip-encoded: the project's files among 1,000,000 entries
                         of other versions (some 200 MB, 2 MB on the wire); /hugehtml/simple/...
                         the same as PEP 503 HTML
  /bomb/simple/PROJECT/  a gzip-encoded JSON page that inflates to 320 MB of blanks
  /auth/REST             REST, for a client that logs in as __token__ with the password SECRET
                         (HTTP basic), else 401
  /leak/REST             302 to /auth/REST on this server, the credentials in the Location URL
"""
import base64
import hashlib
import html
import json
import os
import re
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
TLS = sys.argv[3:5] if len(sys.argv) == 5 and sys.argv[2] == "--tls" else None
_hashes = {}
_lock = threading.Lock()
_served = [0]
_asked = {}  # /mutate/ paths: how many times each was asked for
SECRET = "pypi-AgEIcHlwaS5vcmcSECRET-tests-0451"


def sha256_of(path):
    with _lock:
        if path not in _hashes:
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            _hashes[path] = h.hexdigest()
        return _hashes[path]


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def project_files(project):
    out = []
    for name in sorted(os.listdir(ROOT)):
        if not (name.endswith(".whl") or name.endswith(".tar.gz")):
            continue
        stem = name.split("-")[0]
        if normalize(stem) == normalize(project):
            out.append(name)
    return out


def yanked(name):
    """The reason a file is yanked (PEP 592): the text of NAME.yanked beside it, or None."""
    try:
        with open(os.path.join(ROOT, name + ".yanked")) as f:
            return f.read().strip() or "yanked"
    except OSError:
        return None


_made = {}  # the big pages, made once


def gzipped(pieces):
    """A gzip stream of the byte strings pieces yields."""
    import zlib
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    out = [z.compress(p) for p in pieces]
    out.append(z.flush())
    return b"".join(out)


def huge_page(project, html):
    key = (project, html)
    with _lock:
        if key in _made:
            return _made[key]
    files = project_files(project)
    stem = normalize(project).replace("-", "_")

    def pieces():
        if html:
            yield b"<!DOCTYPE html><html><body>\n"
        else:
            yield b'{"meta": {"api-version": "1.1"}, "name": "%s", "files": [' % project.encode()
        for k in range(1000000):
            name = "%s-0.%d-py3-none-any.whl" % (stem, k)
            if html:
                yield ('<a href="../../../files/%s#sha256=%s">%s</a><br/>\n'
                       % (name, "0" * 64, name)).encode()
            else:
                yield (('{"filename": "%s", "url": "../../../files/%s", "hashes": {"sha256": "%s"},'
                        ' "requires-python": ">=3.8", "yanked": false},')
                       % (name, name, "0" * 64)).encode()
        for i, f in enumerate(files):
            sha = sha256_of(os.path.join(ROOT, f))
            if html:
                yield ('<a href="../../../files/%s#sha256=%s">%s</a><br/>\n' % (f, sha, f)).encode()
            else:
                yield (('{"filename": "%s", "url": "../../../files/%s", "hashes": {"sha256": "%s"}}%s'
                        % (f, f, sha, "," if i + 1 < len(files) else "")).encode())
        yield b"</body></html>\n" if html else b"]}"
    body = gzipped(pieces())
    with _lock:
        _made[key] = body
    return body


def bomb_page():
    with _lock:
        if "bomb" in _made:
            return _made["bomb"]
    body = gzipped([b'{"files": ['] + [b" " * (1 << 20)] * 320 + [b"]}"])
    with _lock:
        _made["bomb"] = body
    return body


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    drip = False
    throttle = False

    def log_message(self, fmt, *args):  # quiet
        pass

    def emit(self, data):
        """A body's bytes, at once, (/drip/) one every 250 ms, or (/throttle/) 128 KiB every
        100 ms."""
        if self.throttle:
            for i in range(0, len(data), 128 << 10):
                self.wfile.write(data[i:i + (128 << 10)])
                self.wfile.flush()
                time.sleep(0.1)
            return None
        if not self.drip:
            return self.wfile.write(data)
        for i in range(len(data)):
            self.wfile.write(data[i:i + 1])
            self.wfile.flush()
            time.sleep(0.25)

    def send_body(self, code, body, ctype, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.emit(body)

    def redirect(self, where):
        self.send_response(302)
        self.send_header("Location", where)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def serve_file(self, name, ranges=True, truncate=False, slow=False, mutate=None):
        path = os.path.join(ROOT, os.path.basename(name))
        if not os.path.isfile(path):
            return self.send_body(404, b"not found\n", "text/plain")
        version, flip = [], None
        if mutate:
            how, at = mutate
            with _lock:
                n = _asked[self.path] = _asked.get(self.path, 0) + 1
            flip = at if n > 1 else None
            if how == "etag":
                version = [("ETag", '"v%d"' % min(n, 2))]
            elif how == "modified":
                version = [("Last-Modified", "Mon, 0%d Dec 2026 10:00:00 GMT" % min(n, 2))]
        size = os.path.getsize(path)
        rng = self.headers.get("Range")
        start, end = 0, size - 1
        partial = False
        if ranges and rng and rng.startswith("bytes=") and "," not in rng:
            a, _, b = rng[6:].partition("-")
            if a == "":
                n = int(b)
                start, end = max(0, size - n), size - 1
            else:
                start = int(a)
                end = min(int(b), size - 1) if b else size - 1
            if start >= size or start > end:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            partial = True
        self.send_response(206 if partial else 200)
        self.send_header("Content-Type", "application/octet-stream" if partial else "application/zip")
        self.send_header("Accept-Ranges", "bytes" if ranges else "none")
        if partial:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        for k, v in version:
            self.send_header(k, v)
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        if self.command == "HEAD":
            return
        if slow:
            time.sleep(60)
            return
        left = end - start + 1
        if truncate:
            left //= 2
        with open(path, "rb") as f:
            f.seek(start)
            try:
                while left > 0:
                    at = f.tell()
                    block = f.read(min(left, 1 << 16))
                    if not block:
                        break
                    if flip is not None and at <= flip < at + len(block):
                        block = bytearray(block)
                        block[flip - at] ^= 0xFF
                        block = bytes(block)
                    self.emit(block)
                    left -= len(block)
                    with _lock:
                        _served[0] += len(block)
            except (BrokenPipeError, ConnectionResetError):
                return
        if truncate:
            self.close_connection = True

    def simple(self, project, fmt, bad_hash=False, digest=False):
        files = project_files(project)
        if not files:
            return self.send_body(404, b"no such project\n", "text/plain")
        root = "../" * len(self.path.split("?")[0].strip("/").split("/"))
        up = root + "files/"

        def url(f):  # PyPI's digest-addressed URL, or /files/NAME
            if not digest:
                return up + f
            with open(os.path.join(ROOT, f), "rb") as fh:
                h = hashlib.blake2b(fh.read(), digest_size=32).hexdigest()
            return "%spackages/%s/%s/%s/%s" % (root, h[:2], h[2:4], h[4:], f)
        if fmt == "json":
            page = {"meta": {"api-version": "1.1"}, "name": normalize(project), "files": [
                {"filename": f, "url": url(f),
                 "hashes": {"sha256": "0" * 64 if bad_hash else sha256_of(os.path.join(ROOT, f))},
                 "requires-python": ">=3.8", "size": os.path.getsize(os.path.join(ROOT, f)),
                 "yanked": yanked(f) or False} for f in files]}
            return self.send_body(200, json.dumps(page).encode(), "application/vnd.pypi.simple.v1+json")
        links = "".join('<a href="%s%s#sha256=%s" data-requires-python="%s"%s>%s</a><br/>\n'
                        % (up, f, sha256_of(os.path.join(ROOT, f)), html.escape(">=3.8"),
                           ' data-yanked="%s"' % html.escape(yanked(f)) if yanked(f) else "", f)
                        for f in files)
        body = "<!DOCTYPE html><html><body>\n%s</body></html>\n" % links
        return self.send_body(200, body.encode(), "text/html")

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        p = self.path.split("?")[0]
        parts = p.strip("/").split("/")
        if parts[0] == "auth":
            login = "Basic " + base64.b64encode(b"__token__:" + SECRET.encode()).decode()
            if self.headers.get("Authorization") != login:
                return self.send_body(401, b"log in\n", "text/plain",
                                      [("WWW-Authenticate", 'Basic realm="tests"')])
            self.path = self.path[len("/auth"):]
            return self.do_GET()
        if parts[0] == "drip":
            self.drip = True
            self.path = self.path[len("/drip"):]
            return self.do_GET()
        if parts[0] == "throttle":
            self.throttle = True
            self.path = self.path[len("/throttle"):]
            return self.do_GET()
        if parts[0] == "leak":
            return self.redirect("http://__token__:%s@127.0.0.1:%d/auth%s" % (
                SECRET, self.server.server_address[1], self.path[len("/leak"):]))
        try:
            if parts[0] in ("files", "packages"):
                return self.serve_file(parts[-1])
            if parts[0] == "norange":
                return self.serve_file(parts[-1], ranges=False)
            if parts[0] == "truncate":
                return self.serve_file(parts[-1], truncate=True)
            if parts[0] == "slow":
                return self.serve_file(parts[-1], slow=True)
            if parts[0] == "mutate":
                return self.serve_file(parts[3], mutate=(parts[1], int(parts[2])))
            if parts[0] == "redirect":
                n = int(parts[1])
                rest = "/".join(parts[2:])
                return self.redirect("/redirect/%d/%s" % (n - 1, rest) if n > 0 else "/" + rest)
            if parts[0] == "loop":
                return self.redirect(p)
            if parts[0] == "served":
                with _lock:
                    return self.send_body(200, b"%d\n" % _served[0], "text/plain")
            if parts[0] == "store":  # a static tree under DIR (a facts store), not in /served
                rel = os.path.normpath("/".join(parts[1:]))
                path = os.path.join(ROOT, rel)
                if rel.startswith("..") or os.path.isabs(rel) or not os.path.isfile(path):
                    return self.send_body(404, b"not found\n", "text/plain")
                with open(path, "rb") as f:
                    return self.send_body(200, f.read(), "application/json")
            if parts[0] == "status":
                return self.send_body(int(parts[1]), b"status on demand\n", "text/plain")
            if p.strip("/") in ("simple", "html/simple"):
                # the index's project list (PEP 691 JSON, or PEP 503 HTML): DIR's wheels' names
                names = sorted({normalize(n.split("-")[0]) for n in os.listdir(ROOT)
                                if n.endswith(".whl") or n.endswith(".tar.gz")})
                if parts[0] == "simple" and "vnd.pypi.simple.v1+json" in self.headers.get("Accept", ""):
                    body = json.dumps({"meta": {"api-version": "1.1"},
                                       "projects": [{"name": n} for n in names]}).encode()
                    return self.send_body(200, body, "application/vnd.pypi.simple.v1+json")
                body = "".join('<a href="/simple/%s/">%s</a>\n' % (n, n) for n in names).encode()
                return self.send_body(200, b"<html><body>\n" + body + b"</body></html>\n",
                                      "text/html")
            if parts[0] == "simple" and len(parts) >= 2:
                accept = self.headers.get("Accept", "")
                return self.simple(parts[1], "json" if "vnd.pypi.simple.v1+json" in accept else "html")
            if parts[0] in ("html", "json") and len(parts) >= 3 and parts[1] == "simple":
                return self.simple(parts[2], parts[0])
            if parts[0] == "badhash" and len(parts) >= 3 and parts[1] == "simple":
                return self.simple(parts[2], "json", bad_hash=True)
            if parts[0] == "digest" and len(parts) >= 3 and parts[1] == "simple":
                return self.simple(parts[2], "json", digest=True)
            if parts[0] in ("huge", "hugehtml") and len(parts) >= 3 and parts[1] == "simple":
                html_page = parts[0] == "hugehtml"
                return self.send_body(200, huge_page(parts[2], html_page),
                                      "text/html" if html_page else
                                      "application/vnd.pypi.simple.v1+json",
                                      [("Content-Encoding", "gzip")])
            if parts[0] == "bomb":
                return self.send_body(200, bomb_page(), "application/vnd.pypi.simple.v1+json",
                                      [("Content-Encoding", "gzip")])
            if parts[0] == "hostile":
                body = ('<a href="file:///etc/passwd">x-1.0-py3-none-any.whl</a>'
                        '<a href="javascript:alert(1)">x-1.0-py3-none-any.whl</a>'
                        '<a href="' + "A" * 100000 + '">x-1.0-py3-none-any.whl</a>'
                        '<a href="../../files/x-1.0-py3-none-any.whl').encode()
                return self.send_body(200, body, "text/html")
        except (ValueError, IndexError):
            pass
        return self.send_body(404, b"not found\n", "text/plain")


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A client that drops a transfer it no longer wants (smcheck moving its stream, or
        stopping at a cap) is ordinary here: said by nobody."""
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError, ssl.SSLError)):
            super().handle_error(request, client_address)


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if TLS:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(TLS[0], TLS[1])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
