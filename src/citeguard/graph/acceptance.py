"""When the answer graph accepts a candidate: the validator's settings in, the verdict out.

The validate node delivers a candidate only when its verdict passes. ``Acceptance`` turns a
run's ``Context`` into the validator's settings and the validator's result into the verdict
that routes the run; the graph takes it as a component (``build_graph(acceptance=...)``).

The graph a user runs uses :data:`VALIDATED`: the validator at the run's level, and nothing
else. It has no level that skips validation: ``validation_level="off"`` is rejected before
any search or model call. The validation-off ablation is an evaluation matter, so the
evaluation harness builds its graph with an acceptance of its own
(``citeguard.evaluation.unvalidated``) that delivers the first candidate while still
recording the paper-level verdict its metrics need.
"""

from __future__ import annotations

from typing import Any, get_args

from citeguard.errors import InvalidSettingError
from citeguard.graph.context import Context
from citeguard.validate.settings import ValidationLevel, ValidationSettings
from citeguard.validate.verdicts import ValidationResult

UNVALIDATED_REJECTED = 'validation_level="off" is only available inside the evaluation harness'


class Acceptance:
    """Validate every candidate at the run's level; deliver it only when it passes."""

    def settings(self, ctx: Context) -> ValidationSettings:
        """The validator's settings for this run.

        The retrieve node asks first, so that a level this acceptance cannot honour fails
        the run before any search or model call.

        Raises:
            InvalidSettingError: the level is not one the validator has ("off").
        """
        if ctx.validation_level not in get_args(ValidationLevel):
            raise InvalidSettingError(UNVALIDATED_REJECTED)
        return ctx.validation_settings()

    def verdict(self, result: ValidationResult, ctx: Context) -> dict[str, Any]:
        """The verdict (JSON) that decides delivery and routing: the validator's own."""
        return result.to_json()


VALIDATED = Acceptance()
"""The answer graph's acceptance: validated candidates only."""
