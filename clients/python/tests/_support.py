"""Helpers the test modules import (pytest puts this folder on sys.path)."""

from __future__ import annotations

import asyncio
import os
from typing import Any, Callable, Coroutine, TypeVar

import pytest

T = TypeVar("T")


def need(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run this suite through test/python-client.test.ts (jest), which starts the API", pytrace=False)
    return value


def run(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Runs an async test body (no pytest-asyncio in Debian's set; asyncio.run is enough)."""
    return asyncio.run(factory())
