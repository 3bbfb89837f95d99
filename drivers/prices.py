"""The hand-written price table: the offline fallback behind the ``genai-prices`` dataset.

``agentcore`` looks a model up in ``DATASET`` (``agentcore.drivers.price_dataset``, the
maintained dataset) first and in ``PRICES`` only when the dataset does not price it, which
is every model when ``genai-prices`` is not installed. A test checks that every row here
agrees with the dataset's rates for the models both know.

``PRICES`` holds current Anthropic, OpenAI and Google Gemini models, in US dollars per
million tokens, with their context windows (the most input tokens a request may hold).

The turn tracker looks a model up with ``agentcore.pricing.find_price(PRICES, model)``
(exact id, then without a ``provider/`` prefix, then the longest key followed by ``-``,
``:`` or ``@``, so ``claude-sonnet-4-5`` also prices ``claude-sonnet-4-5-20250929``).
A model missing from the table costs ``None``, never 0. Keys are chosen so that prefix
matching never prices one model with another's row: there is no bare ``claude-opus-4`` or
``o3`` without ``o3-pro`` and ``o3-mini`` beside it (a test checks every such pair).

Sources (list prices, standard tier, no batch discount), read 2026-11-22:

- Anthropic: https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing").
  ``cache_write`` is the 5-minute cache-write rate (the default TTL), ``cache_write_1h``
  the 1-hour one (twice the input rate). Claude Sonnet 4.5's prompts over 200k tokens
  (its retired 1M beta) are priced at its long-context tier.
- OpenAI: https://platform.openai.com/docs/pricing ("Text tokens", Standard).
  ``cache_read`` is the "cached input" rate. OpenAI does not bill cache writes separately
  and never reports them, so ``cache_write`` is left unset (priced as input).
- Google: https://ai.google.dev/gemini-api/docs/pricing (paid tier, standard), as a 2026
  summary of that page gives them, checked against the dataset. Gemini 2.5 Pro's prompts
  over 200k tokens are priced at its long-context tier. ``cache_read`` is the
  context-caching rate; Gemini 2.0 Flash-Lite has none (priced as input); cache storage is
  billed per hour and not counted. Thinking tokens are billed
  as output, as the Gemini driver reports them.

Context windows, from the same providers' model pages: 200k for every Claude model (its
standard window); 272k of input for the GPT-5 family (a 400k window of which up to 128k is
output), 1,047,576 for GPT-4.1, 128k for GPT-4o and o1-mini, 200k for the other o-series.

Prices change; override or extend the table by passing your own mapping to the turn
tracker, e.g. ``{**PRICES, "my-model": ModelPrice(input=1.0, output=2.0)}``.
"""

from __future__ import annotations

from agentcore.pricing import ModelPrice, PriceTier

__all__ = ["PRICES"]


_CLAUDE_WINDOW = 200_000
"""Every Claude model's standard context window (the 1M window of some is a beta option)."""


def _anthropic(input: float, output: float, tiers: tuple[PriceTier, ...] = ()) -> ModelPrice:
    """Anthropic's cache rates are fixed multiples of input: reads 0.1x, 5-minute writes
    1.25x, 1-hour writes 2x."""
    return ModelPrice(
        input=input,
        output=output,
        cache_read=round(input * 0.1, 6),
        cache_write=input * 1.25,
        cache_write_1h=input * 2,
        context_window=_CLAUDE_WINDOW,
        tiers=tiers,
    )


def _anthropic_tier(above: int, input: float, output: float) -> PriceTier:
    return PriceTier(above, input, output, round(input * 0.1, 6), input * 1.25, input * 2)


def _google(
    input: float, output: float, cache_read: float | None = None, audio: float | None = None
) -> ModelPrice:
    """Gemini's context-cache reads cost a tenth of input unless given; writes are billed
    as input; the Flash models bill audio input at its own rate (``audio``)."""
    read = round(input * 0.1, 6) if cache_read is None else cache_read
    return ModelPrice(
        input=input, output=output, cache_read=read, input_audio=audio, context_window=1_048_576
    )


_OPUS_45 = _anthropic(5.0, 25.0)
_OPUS_4 = _anthropic(15.0, 75.0)
_SONNET_4 = _anthropic(3.0, 15.0)

_GPT5_INPUT = 272_000
"""The GPT-5 family's input limit: its 400k window holds up to 128k of output besides."""
_GPT41_WINDOW = 1_047_576

PRICES: dict[str, ModelPrice] = {
    # -- Anthropic ---------------------------------------------------------------------
    "claude-opus-5": _OPUS_45,
    "claude-opus-4-8": _OPUS_45,
    "claude-opus-4-7": _OPUS_45,
    "claude-opus-4-6": _OPUS_45,
    "claude-opus-4-5": _OPUS_45,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4-0": _OPUS_4,
    "claude-opus-4-20250514": _OPUS_4,
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _anthropic(3.0, 15.0, (_anthropic_tier(200_000, 6.0, 22.5),)),
    "claude-sonnet-4-0": _SONNET_4,
    "claude-sonnet-4-20250514": _SONNET_4,
    "claude-3-7-sonnet": _SONNET_4,
    "claude-haiku-4-5": _anthropic(1.0, 5.0),
    "claude-3-5-haiku": _anthropic(0.8, 4.0),
    "claude-3-haiku": ModelPrice(
        input=0.25,
        output=1.25,
        cache_read=0.03,
        cache_write=0.30,
        cache_write_1h=0.50,
        context_window=_CLAUDE_WINDOW,
    ),
    # -- OpenAI ------------------------------------------------------------------------
    "gpt-5.2": ModelPrice(input=1.75, output=14.0, cache_read=0.175, context_window=_GPT5_INPUT),
    "gpt-5.1": ModelPrice(input=1.25, output=10.0, cache_read=0.125, context_window=_GPT5_INPUT),
    "gpt-5": ModelPrice(input=1.25, output=10.0, cache_read=0.125, context_window=_GPT5_INPUT),
    "gpt-5-mini": ModelPrice(input=0.25, output=2.0, cache_read=0.025, context_window=_GPT5_INPUT),
    "gpt-5-nano": ModelPrice(input=0.05, output=0.40, cache_read=0.005, context_window=_GPT5_INPUT),
    "gpt-5-pro": ModelPrice(input=15.0, output=120.0, context_window=_GPT5_INPUT),
    "gpt-4.1": ModelPrice(input=2.0, output=8.0, cache_read=0.50, context_window=_GPT41_WINDOW),
    "gpt-4.1-mini": ModelPrice(
        input=0.40, output=1.60, cache_read=0.10, context_window=_GPT41_WINDOW
    ),
    "gpt-4.1-nano": ModelPrice(
        input=0.10, output=0.40, cache_read=0.025, context_window=_GPT41_WINDOW
    ),
    "gpt-4o": ModelPrice(input=2.50, output=10.0, cache_read=1.25, context_window=128_000),
    "gpt-4o-mini": ModelPrice(input=0.15, output=0.60, cache_read=0.075, context_window=128_000),
    "o3": ModelPrice(input=2.0, output=8.0, cache_read=0.50, context_window=200_000),
    "o3-pro": ModelPrice(input=20.0, output=80.0, context_window=200_000),
    "o3-mini": ModelPrice(input=1.10, output=4.40, cache_read=0.55, context_window=200_000),
    "o4-mini": ModelPrice(input=1.10, output=4.40, cache_read=0.275, context_window=200_000),
    "o1": ModelPrice(input=15.0, output=60.0, cache_read=7.50, context_window=200_000),
    "o1-mini": ModelPrice(input=1.10, output=4.40, cache_read=0.55, context_window=128_000),
    "o1-pro": ModelPrice(input=150.0, output=600.0, context_window=200_000),
    # -- Google Gemini -----------------------------------------------------------------
    "gemini-3.5-flash": _google(1.50, 9.0),
    "gemini-3.1-pro": _google(2.0, 12.0),
    "gemini-3.1-flash-lite": _google(0.25, 1.50, audio=0.50),
    "gemini-3-pro": _google(2.0, 12.0),
    "gemini-3-flash": _google(0.50, 3.0),
    "gemini-2.5-pro": ModelPrice(
        input=1.25,
        output=10.0,
        cache_read=0.125,
        context_window=1_048_576,
        tiers=(PriceTier(200_000, 2.50, 15.0, 0.25),),
    ),
    "gemini-2.5-flash": _google(0.30, 2.50, audio=1.0),
    "gemini-2.5-flash-lite": _google(0.10, 0.40, audio=0.30),
    "gemini-2.0-flash": _google(0.10, 0.40, cache_read=0.025, audio=0.70),
    "gemini-2.0-flash-lite": ModelPrice(input=0.075, output=0.30, context_window=1_048_576),
}
"""Model id -> price; ids are the providers' own (no ``provider/`` prefix)."""
