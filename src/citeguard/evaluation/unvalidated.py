"""The validation-off ablation's acceptance: the first candidate is delivered unchecked.

The answer graph a user runs has no unvalidated path: it rejects ``validation_level="off"``
(``citeguard.graph.acceptance``). The ablation needs that path to measure what validation
buys, so the harness builds its graph with :data:`ACCEPT_FIRST_WHEN_OFF`. At every other
level it is the graph's own acceptance. At "off" the paper-level validator still runs, so
each record keeps the verdicts the metrics compare, and the verdict is then marked passed
with no triggers: the candidate is delivered and never regenerated (a model refusal is
still a refusal).
"""

from __future__ import annotations

from typing import Any

from citeguard.graph.acceptance import Acceptance
from citeguard.graph.context import Context
from citeguard.validate.settings import ValidationLevel, ValidationSettings
from citeguard.validate.verdicts import ValidationResult

OFF = "off"
MEASURED_AT: ValidationLevel = "paper"
"""The level whose checks still run (and are recorded) when validation is off."""


class AcceptFirstWhenOff(Acceptance):
    """The graph's acceptance, except that at level "off" every verdict passes."""

    def settings(self, ctx: Context) -> ValidationSettings:
        """At "off", the paper level's settings (measured, not enforced)."""
        if ctx.validation_level == OFF:
            return ctx.validation_settings(MEASURED_AT)
        return super().settings(ctx)

    def verdict(self, result: ValidationResult, ctx: Context) -> dict[str, Any]:
        """At "off", the paper-level verdict marked passed, recorded as level "off"."""
        verdict = super().verdict(result, ctx)
        if ctx.validation_level == OFF:
            verdict.update(level=OFF, passed=True, triggers=[])
        return verdict


ACCEPT_FIRST_WHEN_OFF = AcceptFirstWhenOff()
"""What the harness builds its graph with."""
