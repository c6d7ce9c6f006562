"""Fixtures: the running API and its credentials, from the environment.

``test/python-client.test.ts`` starts the API, registers two tenants and runs this suite with:

    ENGRAM_URL                     the API, without /v1
    ENGRAM_TEST_JWT                a person's JWT (the owner of the first tenant)
    ENGRAM_TEST_MIND_ID            a mind of that tenant
    ENGRAM_TEST_MIND_KEY           a Mind Key of that mind
    ENGRAM_TEST_SERVICE_KEY        a tenant service key of that tenant (every scope)
    ENGRAM_TEST_READONLY_SERVICE_KEY   one with memories:read only
    ENGRAM_TEST_OTHER_JWT, ENGRAM_TEST_OTHER_MIND_ID, ENGRAM_TEST_OTHER_MIND_KEY
                                   the same for a second tenant (isolation)
    ENGRAM_TEST_LIMITED_URL, ENGRAM_TEST_LIMITED_MIND_KEY, ENGRAM_TEST_LIMITED_PER_MINUTE
                                   a second API with a tiny rate limit (429)

A variable that is missing fails the test that needs it (it is never skipped): a suite that
quietly skips would pass without testing anything.
"""

from __future__ import annotations

import uuid
from typing import Callable, Iterator

import pytest

from _support import need
from engram_client import Engram


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    # The clients fall back to ENGRAM_API_KEY; a test says which credential it uses.
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)


@pytest.fixture(scope="session")
def api_url() -> str:
    return need("ENGRAM_URL")


@pytest.fixture(scope="session")
def jwt() -> str:
    return need("ENGRAM_TEST_JWT")


@pytest.fixture(scope="session")
def mind_id() -> str:
    return need("ENGRAM_TEST_MIND_ID")


@pytest.fixture(scope="session")
def mind_key() -> str:
    return need("ENGRAM_TEST_MIND_KEY")


@pytest.fixture
def agent(api_url: str, mind_key: str) -> Iterator[Engram]:
    """The mind's agent: its Mind Key."""
    with Engram(mind_key, base_url=api_url) as client:
        yield client


@pytest.fixture
def person(api_url: str, jwt: str, mind_id: str) -> Iterator[Engram]:
    """The tenant's owner acting on the mind: a JWT and X-Mind-Id."""
    with Engram(jwt, mind_id=mind_id, base_url=api_url) as client:
        yield client


@pytest.fixture
def tag() -> str:
    """A tag no other test uses: lists filtered by it see this test's memories only."""
    return "t" + uuid.uuid4().hex[:12]


@pytest.fixture
def key() -> Callable[[str], str]:
    """A fresh snake_case key per call, so that reruns against the same mind never collide."""
    return lambda name: f"{name}_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def fresh_mind_key(api_url: str, jwt: str) -> Iterator[str]:
    """The Mind Key of a new, empty mind (created with the JWT, deleted after the test)."""
    with Engram(jwt, base_url=api_url) as owner:
        mind = owner.create_mind(f"fresh {uuid.uuid4().hex[:12]}")
        yield owner.create_mind_key(mind["id"])["key"]
        owner.delete_mind(mind["id"])


@pytest.fixture
def fresh_agent(api_url: str, fresh_mind_key: str) -> Iterator[Engram]:
    """The agent of a new, empty mind: for tests that read the whole mind."""
    with Engram(fresh_mind_key, base_url=api_url) as client:
        yield client
