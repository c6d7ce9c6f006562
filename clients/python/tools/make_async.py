#!/usr/bin/env python3
"""Writes engram_client/async_client.py from engram_client/client.py.

The asyncio client is the sync one with each call awaited: one source for the signatures and
docstrings, and tests/test_async.py fails when the committed file is not what this makes of
client.py. After changing client.py: ``python3 tools/make_async.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "engram_client"
HEADER = "# Generated from client.py by tools/make_async.py: edit client.py and run it again.\n"

# Not awaited: properties, and for_mind (a copy of the client, no request).
PLAIN = {"base_url", "mind_id", "for_mind"}

CLOSE_SYNC = '''    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()'''

CLOSE_ASYNC = '''    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self: _Self) -> _Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()'''


def _once(source: str, old: str, new: str) -> str:
    if source.count(old) != 1:
        raise SystemExit(f"make_async: expected {old!r} once in client.py, found it {source.count(old)} times")
    return source.replace(old, new)


def generate(sync: str) -> str:
    """The source of async_client.py for the source of client.py."""
    a = sync
    a = _once(a, '"""The synchronous client, :class:`Engram`."""', '"""The asynchronous client, :class:`AsyncEngram`: the calls of :class:`~engram_client.Engram`, awaited."""')
    a = _once(a, "from typing import Any, Iterator,", "from typing import Any, AsyncIterator,")
    a = _once(a, '_Self = TypeVar("_Self", bound="Engram")', '_Self = TypeVar("_Self", bound="AsyncEngram")')
    a = _once(
        a,
        'class Engram:\n    """A client of the Engram memory API (blocking, on ``httpx.Client``).',
        'class AsyncEngram:\n    """A client of the Engram memory API for asyncio (on ``httpx.AsyncClient``); the same calls as\n'
        "    :class:`~engram_client.Engram`, each awaited (``await memory.search(...)``).",
    )
    a = _once(a, "http_client: an ``httpx.Client``", "http_client: an ``httpx.AsyncClient``")
    a = _once(a, "manager, or call :meth:`close`", "manager (``async with``), or await :meth:`close`")
    a = _once(a, "http_client: Optional[httpx.Client] = None", "http_client: Optional[httpx.AsyncClient] = None")
    a = _once(a, "httpx.Client(timeout=timeout)", "httpx.AsyncClient(timeout=timeout)")
    a = _once(a, CLOSE_SYNC, CLOSE_ASYNC)
    a = _once(a, "    def _send(self, call: Call[T]) -> T:", "    async def _send(self, call: Call[T]) -> T:")
    a = _once(a, "response = self._http.send(request)", "response = await self._http.send(request)")

    # Every public call becomes a coroutine (iter_* an async generator).
    for name in re.findall(r"\n    def ([a-z][a-z0-9_]*)\(", sync):
        if name not in PLAIN and name != "close":
            a = _once(a, f"\n    def {name}(", f"\n    async def {name}(")
    a = a.replace("return self._send(", "return await self._send(")
    a = re.sub(r"\n        self\._send\(", "\n        await self._send(", a)
    a = re.sub(r"\) -> Iterator\[(\w+)\]:", r") -> AsyncIterator[\1]:", a)
    a = a.replace("            page = self.list_", "            page = await self.list_")
    a = a.replace('            yield from page["items"]', '            for item in page["items"]:\n                yield item')
    a = _once(
        a,
        'return self.for_mind(self.ensure_mind(external_id, name=name, description=description)["id"])',
        'return self.for_mind((await self.ensure_mind(external_id, name=name, description=description))["id"])',
    )
    a = _once(a, '``memory.for_user("user-123").add("Prefers tea")``', '``await (await memory.for_user("user-123")).add("Prefers tea")``')
    a = _once(a, '__all__ = ["Engram"]', '__all__ = ["AsyncEngram"]')
    if "Iterator[" in a.replace("AsyncIterator[", "") or "yield from" in a:
        raise SystemExit("make_async: a sync iterator is left in the async client")
    return HEADER + a


def main() -> int:
    target = PACKAGE / "async_client.py"
    target.write_text(generate((PACKAGE / "client.py").read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
