"""The permission policy: modes, presets, config rules, session allowances and the bash risk analysis.

The tool chain calls ``PermissionPolicy.decide`` once per tool call and gets one ``PolicyDecision``; for
bash the decision already includes the risk reasons of SPEC 5 step 3. See ``policy`` for the precedence.
"""

from engine.policy.arity import CommandPrefix
from engine.policy.bash_analysis import analyse
from engine.policy.bash_risk import RISK_CODES
from engine.policy.decision import Action, Allowance, PolicyDecision
from engine.policy.policy import PermissionPolicy
from engine.policy.presets import parse_preset

__all__ = [
    "RISK_CODES",
    "Action",
    "Allowance",
    "CommandPrefix",
    "PermissionPolicy",
    "PolicyDecision",
    "analyse",
    "parse_preset",
]
