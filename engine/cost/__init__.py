"""What the model's requests cost in money (SPEC 27): prices, the spend ledger, the budget."""
