"""A real nginx in front of `agon serve` processes, run from ``deploy/nginx.conf`` with the test's own
ports, certificate and temporary folders; and a throwaway TLS certificate for it."""

from __future__ import annotations

import datetime
import ipaddress
import re
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.e2e.conftest import free_port

DEPLOY_NGINX = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"


def throwaway_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and 127.0.0.1, valid for a day: (certificate, key)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "fullchain.pem", folder / "privkey.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def _substitute(text: str, pattern: str, replacement: str, count: int = 1) -> str:
    """Replace exactly ``count`` matches, so a change to deploy/nginx.conf cannot slip past the test."""
    changed, found = re.subn(pattern, replacement, text, flags=re.MULTILINE)
    assert found == count, f"deploy/nginx.conf: expected {count} match(es) of {pattern!r}, found {found}"
    return changed


def config_for_test(folder: Path, backends: list[int], port: int, cert: Path, key: Path) -> str:
    """deploy/nginx.conf with loopback ports, this certificate and everything else under ``folder``."""
    text = DEPLOY_NGINX.read_text()
    text = _substitute(text, r"^worker_processes auto;", "daemon off;\nworker_processes 1;")
    text = _substitute(text, r"^error_log .*;", f"error_log {folder / 'error.log'} info;")
    text = _substitute(text, r"^pid .*;", f"pid {folder / 'nginx.pid'};")
    text = _substitute(text, r"^    access_log .*;", f"    access_log {folder / 'access.log'};")
    text = _substitute(text, r"(_temp_path) /tmp/", rf"\1 {folder}/", count=5)
    servers = "".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=10s;\n" for p in backends)
    text = _substitute(text, r"^        server agon-\d:8765 .*;\n", "", count=2)
    text = _substitute(text, r"^    upstream agon \{\n", "    upstream agon {\n" + servers)
    text = _substitute(text, r"^        listen 443 ssl;", f"        listen 127.0.0.1:{port} ssl;")
    text = _substitute(text, r"^        listen 80;", f"        listen 127.0.0.1:{free_port()};")
    text = _substitute(text, r"/etc/nginx/tls/fullchain.pem", str(cert))
    text = _substitute(text, r"/etc/nginx/tls/privkey.pem", str(key))
    return text


class Nginx:
    """nginx as this test's own foreground process (``-p`` prefix in a temp folder), killed at the end."""

    def __init__(self, folder: Path, backends: list[int], cert: Path, key: Path) -> None:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not Path(binary).exists():
            pytest.fail("nginx is not installed: tests/run installs the distribution's package", pytrace=False)
        self.binary = binary
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.config = folder / "nginx.conf"
        self.config.write_text(config_for_test(folder, backends, self.port, cert, key))
        self.cert = cert
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 15.0) -> Nginx:
        command = [self.binary, "-p", str(self.folder), "-c", str(self.config)]
        checked = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, checked.stderr
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        context = ssl.create_default_context(cafile=str(self.cert))
        deadline = time.monotonic() + timeout
        while True:
            try:
                with (
                    socket.create_connection(("127.0.0.1", self.port), timeout=1) as raw,
                    context.wrap_socket(raw, server_hostname="localhost"),
                ):
                    return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = self.folder / "error.log"
                    self.stop()
                    pytest.fail(f"nginx did not start:\n{log.read_text() if log.exists() else ''}", pytrace=False)
                time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM: nginx's fast shutdown, where the master stops its workers (a SIGKILLed master would
        leave them running); SIGKILL only if it does not exit."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None
