#!/usr/bin/env python3
"""An agent loop with long-term memory from Engram, runnable without an LLM.

Each turn:
  1. recall: the mind's memories most relevant to the user's message, within a token budget,
     go into the prompt (here: into a stub that answers from them);
  2. answer: ``answer()`` stands in for your LLM call; replace it with OpenAI, Anthropic, a local
     model, LangChain, ...;
  3. remember: the user's message goes to the conversation stream; Engram decides what is worth
     keeping (attention, short-term memory, consolidation), so the agent never has to choose
     keys for what people tell it.

When a session ends the agent asks Engram to consolidate it now (the explicit save); without that,
the server's sleep cycle moves short-term memories to long-term memory in the background.

Run against a running API with a Mind Key (``ENGRAM_URL`` defaults to http://localhost:3000):

    ENGRAM_API_KEY=emk_... python3 examples/agent_loop.py            # chat on stdin
    ENGRAM_API_KEY=emk_... python3 examples/agent_loop.py --script   # a scripted two-session chat

(From a checkout without installing the package: ``PYTHONPATH=clients/python``.)
"""

from __future__ import annotations

import argparse
import re
import sys
import uuid
from typing import Iterable, List

from engram_client import Engram, EngramError

RECALL_BUDGET = 800
"""Tokens of memory per prompt: enough for the relevant facts, small next to a model's context."""

SCRIPT = [
    # Session 1: the user says things worth remembering (and some chatter).
    ["Hi! My name is Ada and I live in Lisbon.", "I work as a marine biologist.", "ok thanks"],
    # Session 2, another day: the agent has to remember.
    ["What kind of work do I do?", "Where do I live?"],
]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"a", "an", "the", "i", "do", "does", "you", "what", "where", "who", "is", "my", "about", "me", "remember", "to", "of", "kind"}


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def answer(user_message: str, memory: str) -> str:
    """A stand-in for the LLM: answers with the remembered line that shares the most words with
    the message. A real agent sends ``memory`` in the system prompt and the message as the user's."""
    asked = _words(user_message)
    lines = [line.strip() for line in memory.splitlines() if ":" in line and not line.lstrip().startswith(("Mind:", "Memories:", "Tags:", "Date:", "["))]
    best = max(lines, key=lambda line: len(asked & _words(line)), default="")
    if not best or not asked & _words(best):
        return "I don't remember anything about that yet."
    return f"From what you told me before: {best.split(':', 1)[1].strip()}"


def chat(memory: Engram, sessions: Iterable[Iterable[str]]) -> None:
    for number, turns in enumerate(sessions, 1):
        conversation = f"session-{uuid.uuid4().hex[:12]}"
        print(f"--- session {number} ({conversation})")
        for user_message in turns:
            print(f"user> {user_message}")
            context = memory.recall(user_message, max_tokens=RECALL_BUDGET)
            reply = answer(user_message, context.text)
            print(f"assistant> {reply}")
            # Only the user's words: the assistant's replies would remember the agent's own guesses.
            memory.add_messages(conversation, [{"role": "user", "content": user_message}])
        saved = memory.consolidate(conversation)
        print(f"--- session {number} saved: {len(saved)} memories")


def _stdin_sessions() -> Iterable[List[str]]:
    print("Type messages; an empty line ends the session, Ctrl-D quits.", file=sys.stderr)
    while True:
        turns: List[str] = []
        for line in sys.stdin:
            if not line.strip():
                break
            turns.append(line.strip())
        else:
            if turns:
                yield turns
            return
        if turns:
            yield turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--script", action="store_true", help="run the built-in two-session conversation instead of reading stdin")
    args = parser.parse_args()
    try:
        with Engram() as memory:  # ENGRAM_API_KEY and ENGRAM_URL
            chat(memory, SCRIPT if args.script else _stdin_sessions())
    except EngramError as err:
        print(f"engram: {err}", file=sys.stderr)
        for problem in err.field_errors:
            print(f"  {problem['field']}: {problem['message']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
