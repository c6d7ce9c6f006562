"""The package as pip builds it: a wheel with the modules, py.typed and the httpx dependency."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import engram_client

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_the_typed_package(tmp_path: Path) -> None:
    # Built from a copy with setuptools' PEP 517 hooks (what `pip install ./clients/python` runs),
    # so no build/ or *.egg-info is left in the checkout.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info", ".pytest_cache"))
    out = tmp_path / "dist"
    out.mkdir()
    script = f"from setuptools import build_meta; print(build_meta.build_wheel({str(out)!r}))"
    built = subprocess.run([sys.executable, "-c", script], cwd=source, capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    wheel = out / built.stdout.strip().splitlines()[-1]
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("__init__.py", "client.py", "async_client.py", "models.py", "errors.py", "py.typed"):
        assert f"engram_client/{module}" in names
    assert not any(name.startswith("tests/") for name in names)
    metadata = next(name for name in names if name.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert f"Version: {engram_client.__version__}" in text
    assert "Requires-Dist: httpx" in text


def test_a_body_is_sent_as_utf_8_not_escaped() -> None:
    # httpx before 0.28 escaped non-ASCII as \uXXXX (6 bytes a character): a batch of Chinese
    # memories within the per-item limits outgrew the API's BODY_LIMIT.
    from engram_client._core import Call, Config, build_request
    import httpx

    content = "我住在北京" * 100
    call = Call("POST", "/v1/memory", lambda r: r, json={"category": "note", "content": content})
    with httpx.Client() as http:
        request = build_request(http, Config(base_url="http://localhost:3000", api_key="k", mind_id=None), call)
    assert request.headers["Content-Type"] == "application/json"
    assert request.content == ('{"category":"note","content":"%s"}' % content).encode("utf-8")
    assert len(request.content) < len(content.encode("utf-8")) + 40
