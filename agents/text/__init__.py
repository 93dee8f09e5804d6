"""Text agents: a game's position in words for a language model, and its reply back to a move.

``llm:BASE_URL`` names an agent that asks any OpenAI-compatible chat endpoint for each move
(``continental evaluate --agents llm:http://127.0.0.1:8000/v1,greedy --llm-model NAME``;
``docs/llm-agents.md``). The prompt is built from the seat's view alone; each game adds its own
public lines through its ``agents.<game>.text.PROMPT`` (``agents.registry.TEXT_PROMPTS``); shared
code never asks which game it is.

| module | what |
|---|---|
| ``prompt`` | ``GamePrompt`` and ``messages(view, game)``: the chat messages of one decision |
| ``parse`` | ``parse_reply(reply, texts)``: which legal action a reply names, if any |
| ``llm`` | ``LLMAgent``, ``LLMOptions``, ``ChatClient``: the endpoint, the fallback and the counts |
"""

from __future__ import annotations

from agents.text.llm import LLMAgent, LLMOptions, llm_options
from agents.text.parse import parse_reply
from agents.text.prompt import GamePrompt, messages, prompt_text

__all__ = [
    "GamePrompt",
    "LLMAgent",
    "LLMOptions",
    "llm_options",
    "messages",
    "parse_reply",
    "prompt_text",
]
