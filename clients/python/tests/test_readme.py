"""The README's Python examples: they compile, and the quick start and the errors example run as written."""

from __future__ import annotations

import ast
import contextlib
import io
import logging
import re
import time
import uuid
from pathlib import Path
from typing import Dict, List

import pytest

from _support import need

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks() -> List[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_every_python_block_compiles() -> None:
    blocks = python_blocks()
    assert len(blocks) >= 4
    for block in blocks:
        # The asyncio example awaits at the top level, as in a notebook or `python -m asyncio`.
        compile(block, "README.md", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def block_with(text: str) -> str:
    found = [block for block in python_blocks() if text in block]
    assert len(found) == 1, f"one README block with {text!r}"
    return found[0]


def test_the_quick_start_the_saas_flow_and_the_errors_example_run(monkeypatch: pytest.MonkeyPatch, api_url: str, fresh_mind_key: str) -> None:
    monkeypatch.setenv("ENGRAM_URL", api_url)
    namespace: Dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block_with('Engram(api_key="emk_...")').replace('"emk_..."', repr(fresh_mind_key)), "README.md", "exec"), namespace)
    assert "synapse_status v1.5.0 deployed" in out.getvalue(), out.getvalue()
    assert "Michael Schäfer" in str(namespace["prompt"])

    namespace.update(time=time, log=logging.getLogger("readme"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block_with("except BadRequestError"), "README.md", "exec"), namespace)
    printed = out.getvalue()
    assert "400 Bad Request: importance: must be from 0 to 1 (request " in printed
    assert "[{'field': 'importance', 'message': 'must be from 0 to 1'}]" in printed

    saas = block_with('Engram(api_key="esk_...")').replace('"esk_..."', repr(need("ENGRAM_TEST_SERVICE_KEY")))
    saas = saas.replace('"user-123"', repr(f"user-{uuid.uuid4().hex[:8]}"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(saas, "README.md", "exec"), {"Engram": namespace["Engram"]})
    assert "Prefers tea over coffee" in out.getvalue()


SAAS_DOC = Path(__file__).resolve().parents[3] / "docs" / "saas.md"


def test_the_saas_guide_runs_as_written(monkeypatch: pytest.MonkeyPatch, api_url: str) -> None:
    """docs/saas.md's Python block: a service key, the end user's mind by external id, remember, recall."""
    monkeypatch.setenv("ENGRAM_URL", api_url)
    blocks = re.findall(r"```python\n(.*?)```", SAAS_DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) == 1
    user = f"user-{uuid.uuid4().hex[:8]}"
    code = blocks[0].replace('"esk_..."', repr(need("ENGRAM_TEST_SERVICE_KEY"))).replace('"user_42"', repr(user))
    namespace: Dict[str, object] = {}
    exec(compile(code, "docs/saas.md", "exec"), namespace)
    assert "vegetarian" in str(namespace["context"])
    mind = namespace["memory"]
    assert [m["key"] for m in mind.list_memories()["items"]].count("user_diet") == 1  # type: ignore[attr-defined]
