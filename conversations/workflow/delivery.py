"""How a finished turn is delivered, decided inside the workflow by its last node (send or escalate).

`delivery_plan` is pure: the reply, how the turn ended, the channel, the conversation's mode and
the approval setting in; the turn's status, what the person sees, the outbox row to write and the
flags for case managers out. `services.turn_finalize` only applies the plan (in the final
checkpoint's transaction), so the rules of who gets what, when, live here and are tested as data.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

# The values are the model choices of Turn.Status and OutboundMessage.Kind/Status (the workflow
# does not import the models: it names them, finalize writes them).
TurnStatus = Literal["completed", "escalated", "waiting_approval"]
OUTBOUND_REPLY: Final = "reply"
OUTBOUND_CRISIS: Final = "crisis"
HUMAN_MODE: Final = "human"


@dataclass(frozen=True)
class Outbound:
    """The SMS to put in the outbox for this turn."""

    body: str
    kind: Literal["reply", "crisis"]
    status: Literal["suggested", "pending_approval", "approved"]
    crisis: bool
    unreviewed: bool = False  # sent after hours without review (AFTER_HOURS_POLICY=send_audited)


@dataclass(frozen=True)
class DeliveryPlan:
    """What finalize writes: the turn's status and reply, a human-mode suggestion, the outbox row, the flag."""

    status: TurnStatus
    escalated: bool
    crisis: bool
    reply: str
    suggestion: str | None
    needs_human_reason: Literal["crisis", "asked_for_human"] | None
    outbound: Outbound | None
    # The turn waits for a case manager while its outbox row is pending (a STOP landing in between
    # suppresses the row, and then nothing waits).
    awaits_approval: bool
    mode: str
    # AFTER_HOURS_POLICY=send_audited: an audited reply went out after hours, labelled as unreviewed.
    unreviewed: bool = False

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DeliveryPlan:
        outbound = data.get("outbound")
        return cls(**{**data, "outbound": Outbound(**outbound) if outbound else None})


def delivery_plan(
    *,
    reply: str,
    delivery: Literal["reply", "handoff", "crisis"],
    handoff_category: str | None,
    channel: str,
    mode: str,
    require_approval: bool,
    fixed_text: bool = False,
    unreviewed_label: str = "",
) -> DeliveryPlan:
    """Decide how the turn's reply reaches the person.

    A crisis handoff always goes at once, in every mode and without approval: nobody waits for a
    case manager to get the number to call. In human mode a case manager has the conversation, so
    any other reply becomes their suggestion (by SMS a `suggested` outbox row they may approve).
    Otherwise an SMS reply waits for approval when SMS_REQUIRE_APPROVAL is on, except a fixed text
    with nothing generated in it (`fixed_text`), and except after hours under send_audited, when
    an audited reply goes out with `unreviewed_label` in front; web replies show at once.
    """
    crisis = delivery == "crisis"
    escalated = delivery in ("crisis", "handoff")
    status: TurnStatus = "escalated" if escalated else "completed"
    reason: Literal["crisis", "asked_for_human"] | None = None
    if crisis:
        reason = "crisis"
    elif handoff_category == "human":
        reason = "asked_for_human"
    suggestion = None
    outbound = None
    unreviewed = False
    if mode == HUMAN_MODE and not crisis:
        suggestion, reply, status = reply, "", "waiting_approval"
        if channel == "sms":
            outbound = Outbound(body=suggestion, kind=OUTBOUND_REPLY, status="suggested", crisis=False)
    elif channel == "sms":
        needs_approval = require_approval and not crisis and not fixed_text
        if needs_approval and unreviewed_label:
            needs_approval, unreviewed, reply = False, True, f"{unreviewed_label}\n{reply}"
        outbound = Outbound(
            body=reply,
            kind=OUTBOUND_CRISIS if crisis else OUTBOUND_REPLY,
            status="pending_approval" if needs_approval else "approved",
            crisis=crisis,
            unreviewed=unreviewed,
        )
    return DeliveryPlan(
        status=status,
        escalated=escalated,
        crisis=crisis,
        reply=reply,
        suggestion=suggestion,
        needs_human_reason=reason,
        outbound=outbound,
        awaits_approval=outbound is not None and outbound.status == "pending_approval",
        mode=mode,
        unreviewed=unreviewed,
    )
