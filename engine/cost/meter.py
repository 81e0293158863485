"""The spend meter (SPEC 27): prices each request the server reported usage for, adds it to the ledger and the
session's total, and before a request is sent says whether it would pass the budget (``budget_usd``,
``--max-budget-usd``): the turn then stops there, the request never sent."""

from __future__ import annotations

from decimal import Decimal

from engine.config.schema import Config
from engine.cost.ledger import SpendLedger, local_midnight
from engine.cost.prices import request_cost
from engine.messages import Usage


class SpendMeter:
    def __init__(self, ledger: SpendLedger) -> None:
        self.ledger = ledger
        # Models whose price is not known (a server the price library does not know, not priced in the config).
        self.unpriced: set[str] = set()

    def charge(self, session_id: str, usage: Usage, config: Config) -> Decimal | None:
        """Records the request's cost; returns the session's spend so far, or None when this request's price is
        not known."""
        cost = request_cost(usage, config.model, config.provider.base_url, config.model_prices)
        if cost is None:
            self.unpriced.add(config.model)
            return None
        self.ledger.add(session_id, config.model, cost)
        return self.ledger.session(session_id)

    def session(self, session_id: str) -> Decimal:
        return self.ledger.session(session_id)

    def today(self) -> Decimal:
        return self.ledger.since(local_midnight())

    def over_budget(self, session_id: str, config: Config, prompt_tokens: int) -> str | None:
        """Why the next request may not be sent (its prompt of about ``prompt_tokens`` tokens would take the
        session's spend past the budget, or its price is unknown), or None when it may."""
        budget = config.budget_usd
        if budget is None:
            return None
        cost = request_cost(Usage(prompt_tokens=prompt_tokens), config.model, config.provider.base_url,
                            config.model_prices)
        if cost is None:
            return (
                f"budget of ${budget:.2f} set, but the price of {config.model} on this server is not known, so the "
                f"request was not sent. Give its price in the configuration (model_prices.{config.model}: input, "
                "output, in dollars per million tokens) or remove the budget."
            )
        spent = self.session(session_id)
        if spent + cost > Decimal(str(budget)):
            return (
                f"budget reached: this session has spent ${spent:.4f} of its ${budget:.2f} budget, and the next "
                f"request (about {prompt_tokens:,} tokens, ${cost:.4f}) would pass it; it was not sent. Raise "
                "budget_usd (or --max-budget-usd) to go on."
            )
        return None
