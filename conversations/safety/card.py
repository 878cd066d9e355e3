"""The model card: what the artifact is, what it learned from, its thresholds and its blind figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from conversations.hooks import message_model

CARD_PATH = message_model.ARTIFACT_DIR / "MODEL_CARD.md"


def _fmt(rate: dict[str, Any] | None) -> str:
    if not rate or rate.get("rate") is None:
        return "n/a"
    low, high = rate["ci95"]
    return f"{rate['rate']:.3f} ({rate['k']}/{rate['n']}; 95 % CI {low:.3f}-{high:.3f})"


def _threshold_lines(thresholds: dict[str, Any]) -> list[str]:
    """The card's lines for the thresholds the trainer chose on dev."""
    lines = [f"- crisis `{category}`: {value:.4f} (recall-first)" for category, value in thresholds["crisis"].items()]
    short = thresholds.get("crisis_short")
    if short:
        lines.append(
            f"- crisis on a message of at most {short['words']} words: `any` {short['any']:.4f}, "
            f"`suicide_self_harm` {short['suicide_self_harm']:.4f} (the lowest short dev crisis the thresholds above catch)"
        )
    later = thresholds.get("crisis_later")
    if later:
        lines.append(
            f"- crisis on a later conversation turn after no crisis: `any` {later['any']:.4f}, `suicide_self_harm` "
            f"{later['suicide_self_harm']:.4f} (the lowest such dev conversation crisis the thresholds above catch; "
            "the stricter of these and the short-message thresholds on a short one)"
        )
    lines.append(f"- need sure at p ≥ {thresholds['need']:.4f} (below it the rules break ties)")
    lines += [f"- flag `{tag}`: {value:.2f} (F1-best on dev)" for tag, value in thresholds["flags"].items()]
    return lines


def render(meta: dict[str, Any], report: dict[str, Any] | None) -> str:
    """Markdown for the card; the blind section is present only when a blind report is given."""
    data = meta.get("data", {})
    lines = [
        "# Message model card",
        "",
        f"- **Version**: `{meta['version']}` (a hash of the data hashes, parameters and weights)",
        "- **What it decides**: crisis category (6 one-vs-rest heads, multi-label), top need (14 classes), hand-off "
        "flags (out of state, own-case legal advice, outcome promise, prompt injection, asks for a human).",
        "- **Inputs**: the redacted message only: sublinear tf-idf over word and 2-5 character n-grams "
        f"({len(meta['vocabulary'])} features) plus the 384-dim MiniLM embedding the turn computes anyway.",
        "- **Learner**: scikit-learn `LogisticRegression` per head, sigmoid-calibrated on 5-fold cross-validated scores "
        "(`CalibratedClassifierCV(ensemble=False)`); fixed seed; deterministic.",
        "- **Use**: crisis = rules OR model (the model can only escalate); need and flags: the model's calibrated answer, "
        "rules as tie-breakers (conversations/workflow/understanding.py).",
        "",
        "## Data",
        f"- train: {data.get('train_size')} messages, hash `{data.get('train_hash', '')[:16]}`",
        f"- dev (threshold choice only): {data.get('dev_size')} messages, hash `{data.get('dev_hash', '')[:16]}`",
        f"- flag negatives (the own-case advice and outcome flags only): {data.get('flag_negatives_size', 0)} general "
        "questions from the answerability gate's training files (corpus/data/train_*.jsonl), hash "
        f"`{(data.get('flag_negatives_hash') or '')[:16]}`",
        "- short-message thresholds: dev's short messages and the short dev conversation turns that open a topic "
        f"(hash `{(data.get('short_turns_hash') or '')[:16]}`)",
        "- blind splits: each written by a separate author given only ../shared/LABELING.md, frozen and hashed "
        "(conversations/safety/data/BLIND.sha256) before it was first read; never trained on. The first three "
        "(`blind_*`, `blind2_*`, `blind3_*`) were read while the model, the rules and the thresholds were tuned, so "
        "they are no longer blind; the fourth (`blind4_*`) was reported on until it had been read three times, the "
        "fifth until it had been read twice, the sixth read three times, the seventh and the ninth once before their "
        "errors were looked into, the eighth and the tenth once, the eleventh once before its errors were looked "
        "into; the twelfth once before its errors were looked into; the thirteenth (`blind13_*`, 420 messages and 65 "
        "conversations by two new authors, frozen after the twelfth's reading and look, never tuned on) is the one "
        "reported below.",
        "",
        "## Thresholds (chosen on dev)",
    ]
    lines += _threshold_lines(meta["thresholds"])
    if report:
        messages = report["messages"]
        lines += [
            "",
            f"## Blind split `{report.get('split')}` (model `{report.get('model_version')}`, Wilson 95 % in the JSON report)",
            "",
            "| metric | value |",
            "| --- | --- |",
        ]
        for key in (
            "crisis_recall",
            "suicide_recall",
            "crisis_category_accuracy",
            "false_crisis_rate",
            "need_accuracy",
            "region_accuracy",
            "language_accuracy",
            "rules_only_crisis_recall",
            "model_only_crisis_recall",
            "rules_only_false_crisis_rate",
            "model_only_false_crisis_rate",
        ):
            lines.append(f"| {key} | {_fmt(messages.get(key))} |")
        lines += [
            "",
            "| stratum | crisis recall | false crisis | need accuracy | region accuracy |",
            "| --- | --- | --- | --- | --- |",
        ]
        for group in ("language", "channel"):
            for name, row in messages["strata"][group].items():
                lines.append(
                    f"| {group}={name} | {_fmt(row['crisis_recall'])} | {_fmt(row['false_crisis_rate'])} | "
                    f"{_fmt(row['need_accuracy'])} | {_fmt(row['region_accuracy'])} |"
                )
        lines += ["", "| crisis category | recall | category accuracy |", "| --- | --- | --- |"]
        for name, row in messages["strata"]["crisis_category"].items():
            lines.append(f"| {name} | {_fmt(row['recall'])} | {_fmt(row['category_accuracy'])} |")
        lines += ["", "| need | accuracy |", "| --- | --- |"]
        for name, row in messages["strata"]["need"].items():
            lines.append(f"| {name} | {_fmt(row['accuracy'])} |")
        lines += ["", "| hand-off flag | recall | false positive rate |", "| --- | --- | --- |"]
        for tag, row in messages["flags"].items():
            lines.append(f"| {tag} | {_fmt(row['recall'])} | {_fmt(row['false_positive_rate'])} |")
        conversations = report.get("conversations")
        if conversations:
            lines += [
                "",
                f"### Blind conversations ({conversations['conversations']} conversations, {conversations['turns']} turns)",
                "",
                "| per turn | value |",
                "| --- | --- |",
            ]
            for key in (
                "need_accuracy",
                "region_accuracy",
                "crisis_recall",
                "false_crisis_rate",
                "later_turns_need_accuracy",
                "later_turns_region_accuracy",
                "later_turns_crisis_recall",
            ):
                lines.append(f"| {key} | {_fmt(conversations[key])} |")
    lines += [
        "",
        "## Blind reads (each one disclosed)",
        "A blind split is read once per shipped model, after every choice for it was made on train/dev.",
        "### blind13 (the one reported on)",
        "- Read once, `mm-b4ee9e1a25a0` (this card) with the crisis rules chosen on blind12's errors, after every",
        "  choice was made: crisis recall 1.000 (130/130; 0.971-1.000), suicide 1.000 (22/22; 0.851-1.000), category",
        "  0.962 (125/130), false crisis 0.045 (13/290; 0.026-0.075), need 0.893 (375/420), Spanish gaps 0.000 (crisis)",
        "  and 0.018 (need); conversations (275 turns): need 0.855 (235/275; 0.808-0.891), region 0.985 (271/275),",
        "  crisis 82/84, false crisis 13/191. Every goal holds on this one reading; one pair of authors has moved these",
        "  figures by several points before (blind11 against blind12), so the next frozen split is the test of it.",
        "- `manage.py ask --jsonl` on blind13's 130 crisis messages as SMS-channel turns: 130 escalated as crises, none",
        "  waiting, none failed.",
        "- Chosen before this read, on blind12's errors: crisis rules (stalking by an ex, a partner at the door, injuries",
        "  after a fight that is over, a class topic, venting about housemates, 'jk' with a laugh, and others) and",
        "  `train_messages12` / `train_messages13` (1,000 by two new authors, briefed in words on the kinds blind12 got",
        "  wrong). On blind11 and blind12 (both looked into) against `mm-4c124dfeb61e`, both with the new rules: false",
        "  crises 13 vs 16 and 10 vs 17 of 290, need 374 vs 362 and 383 vs 378 of 420.",
        "### blind12 (read once, then its errors looked into; retired)",
        "- Read once, `mm-4c124dfeb61e` (this card) with the crisis rules chosen on blind11's errors, after every",
        "  choice was made: crisis recall 0.946 (123/130; 0.893-0.974), suicide 0.955 (21/22), category 0.885",
        "  (115/130), false crisis 0.076 (22/290; 0.051-0.112; rules alone 7, model alone 17), need 0.890 (374/420),",
        "  Spanish gaps 0.024 (crisis) and 0.015 (need); conversations (264 turns): need 0.822 (217/264; 0.771-0.863),",
        "  region 0.932, crisis 76/80, false crisis 14/184. With the same rules, afterwards (a comparison, nothing chosen",
        "  on it): `mm-743db85b37f8` recall 0.946, false crisis 0.076, need 0.888, per-turn need 0.803; the ninth",
        "  session's `mm-d36132c07768` recall 0.946, false crisis 0.083, need 0.881, per-turn need 0.807.",
        "- `manage.py ask --jsonl` on blind12's 130 crisis messages as SMS-channel turns: 124 escalated (123 as",
        "  crises, one by a hand-off), 6 waiting for approval, none failed.",
        "- Chosen before this read, on blind11's errors and the retired splits: crisis rules (below) and",
        "  `train_messages11` (240 by a new author: greetings and night words; 'hola buenas noches' had read as a",
        "  housing emergency, p 0.94, now 0.08). On blind..blind10 against `mm-743db85b37f8`, both with the new rules:",
        "  crises 1,259 vs 1,255 of 1,277, false crises 181 vs 175 of 3,169, per-turn need 2,242 vs 2,232 of 2,652.",
        "### blind11 (read once, then its errors looked into; retired)",
        "- Read once, `mm-743db85b37f8`, after every choice was made: trained with `train_messages9` (release",
        "  plans: 'I get out soon and I'm going to Bexar County on parole' had read as a suicide crisis, p 0.72; now",
        "  0.25) and `train_messages10` (Spanish needs, short later turns). Crisis recall 0.977 (127/130; 0.934-0.992),",
        "  suicide 0.955 (21/22), category 0.939, false crisis 0.055 (16/290; 0.034-0.088; rules alone 7, model alone",
        "  11), need 0.862 (362/420), Spanish gaps -0.010 (crisis) and -0.016 (need: es 0.871, en 0.855);",
        "  conversations (267 turns): need 0.854 (228/267; 0.807-0.891), region 0.985, crisis 72/77, false crisis",
        "  14/190. The ninth session's `mm-d36132c07768` read on the same split afterwards (a comparison, nothing",
        "  chosen on it): recall 0.977, false crisis 0.062 (18/290), need 0.850, per-turn need 0.839.",
        "- `manage.py ask --jsonl` on blind11's 130 crisis messages as SMS-channel turns: 128 escalated (127 as",
        "  crises, one by a hand-off), 2 waiting for approval, none failed.",
        "- Then, chosen on its errors: crisis rules for feeling like a burden, a partner who reads the person's",
        "  messages, someone who got into medication; not crises: an overdose before prison, 'nobody has threatened",
        "  me', a dorm-mate's self-harm at a unit, a friend elsewhere without a bed (rules alone on every stored",
        "  message: 1,455 -> 1,479 of 4,984 crises, 126 -> 121 of 13,070 false alarms). After them: 130/130, 13/290.",
        "- On the retired splits blind..blind10 (tuning data), this model against the one trained with",
        "  `train_messages9` only (`mm-674e36ae0fab`): crises 1,254 vs 1,257 of 1,277, false crises 175 vs 166 of",
        "  3,169, need 3,874 vs 3,874 of 4,546 messages, per-turn need 2,232 vs 2,208 of 2,652 turns.",
        "### blind10 (read once; retired)",
        "- Read once, `mm-d36132c07768`, after every choice below was made: crisis recall 0.954 (124/130;",
        "  0.903-0.979), suicide 0.909 (20/22), category 0.923, false crisis 0.066 (19/290; rules alone 6, model alone",
        "  13), need 0.862 (362/420), Spanish gaps -0.031 (crisis) and 0.102 (need: es 0.808, en 0.910); conversations",
        "  (274 turns): need 0.766 (210/274), region 0.953, crisis 72/73, false crisis 34/201. The eighth session's",
        "  model `mm-b14e4910acfa` read on the same split afterwards (a comparison, nothing chosen on it): recall 0.962,",
        "  suicide 0.864, false crisis 0.062, need 0.855, per-turn need 0.756: this pair of authors is harder for both.",
        "- `manage.py ask --jsonl` on blind10's 130 crisis messages as SMS-channel turns: 124 escalated, 6 waiting for",
        "  approval (the 6 misses), none failed; on blind9's 130 with `mm-fdc0f8b52c3e`: 128 escalated, 2 waiting.",
        "### blind9 (read once, then its errors looked into; retired)",
        "- Read once, `mm-fdc0f8b52c3e` (the crisis heads read the embedding at 0.6 with C 8 and a dev false-alarm cap",
        "  of 0.045, chosen on dev and the retired splits; crisis rules for a means made ready, Spanish self-cutting and",
        "  a goodbye as the last message): crisis recall 0.985 (128/130), suicide 0.955 (21/22), category 0.931, false",
        "  crisis 0.052 (15/290), need 0.860; conversations: need 0.762 (205/269), region 0.993, crisis 68/70, false",
        "  crisis 31/199. The eighth session's model on the same split: recall 0.992, false crisis 0.072 (21/290).",
        "- Then, chosen on its errors: a carried crisis ends once time has passed, the danger was taken away, the",
        "  hospital let the person go or an order or a bed came through (called but not come yet keeps it); the flu",
        "  ('me pegó la gripa'), an errand said as 'me va a matar si no …' and venting about the job with a laugh are",
        "  not crises (conversation false crises 31 -> 25, per-turn need 0.762 -> 0.788, message false crises 15 ->",
        "  12). Retrained without two rows that repeat blind10 (`mm-d36132c07768`): 13/290 and per-turn need 0.777.",
        "### blind8 (read once; retired)",
        "- Read once, `mm-b14e4910acfa`: every choice made on dev and the retired splits, blind7's errors",
        "  included: crisis recall 0.985 (128/130; 0.946-0.996), suicide 1.0 (22/22), category 0.938 (122/130), false",
        "  crisis 0.072 (21/290; 0.048-0.108; rules alone 3, model alone 18), need 0.864 (363/420), Spanish gaps",
        "  -0.031 (crisis) and 0.045 (need); conversations (273 turns): need 0.872 (238/273), region 0.960, crisis",
        "  67/70, false crisis 9/203. Only false crisis misses its goal among the message figures.",
        "- `manage.py ask --jsonl` on blind8's 130 crisis messages as SMS-channel turns: 128 escalated, none failed;",
        "  the 2 others are the 2 misses above.",
        "### blind7 (read once, then its errors looked into; retired)",
        "- Read once, `mm-7e05464a6734` (trained with `train_messages7a/7b`, the eighth session's rule cancellations):",
        "  crisis recall 0.978 (132/135), suicide 0.870 (20/23: three crises hidden in an ordinary question), category",
        "  0.926, false crisis 0.102 (31/305; rules 11, model 21), need 0.852 (375/440); conversations: need 0.783",
        "  (238/304), region 0.905, crisis 88/89, false crisis 17/215.",
        "- Then, chosen on its errors and the other retired splits: a crisis stops carrying when the person feels",
        "  better or a bed was found (conversation false crises 17 -> 12), thanks that say it helped are `other`,",
        "  and `mm-b14e4910acfa`, trained with a third new author's `train_messages8` (160 crises hidden in ordinary",
        "  questions, 200 hard negatives, 120 short later-turn statements; its brief named blind7's error shapes in",
        "  words, so blind7's later figures are not blind: recall 133/135, false 31/305, per-turn need 243/304).",
        "  A candidate at the issue's false-alarm cap of 0.05 on dev (`mm-663abc523b8f`, not shipped) lost 4 of the",
        "  retired splits' 887 message crises for 23 fewer false alarms; the shipped cap is 0.06.",
        "- Tried and not shipped (no blind read): scoring each clause of a message and keeping the highest crisis",
        "  probability (for crises hidden in an ordinary question), measured with the bare crisis head on blind4-7:",
        "  5 more of 548 crises found, false alarms 147 -> 306.",
        "### blind6 (read three times; retired)",
        "- Read 0, `mm-95cd32f4695b` before the seventh session's changes, and read 1 after them: crisis recall 0.970",
        "  (131/135), suicide 1.0, category 0.889, false crisis 0.075 (23/305), need 0.839; conversations need",
        "  0.812 -> 0.816, region 0.846 -> 0.860.",
        "- Read 2, `mm-7e05464a6734` with the eighth session's rules: crisis recall 0.978 (132/135), false crisis",
        "  0.079 (24/305), need 0.845, conversations need 0.802, region 0.860.",
        "### blind5 (reported on until the seventh session; read twice, then as a regression check)",
        "- Read 0, the then-shipped `mm-1be307f5be1d` with its rules, before anything was changed: crisis recall 0.979",
        "  (137/140), suicide 1.0 (24/24), category 0.943 (132/140), false crisis 0.066 (21/320; rules alone 10, model",
        "  alone 14), need 0.841 (387/460); conversations: need 0.808 (260/322), region 0.947, crisis 75/76, false",
        "  crisis 19/246.",
        "- Read 1, `mm-95cd32f4695b` (this card; every change chosen on dev and the retired splits): a crisis the model",
        "  alone raised carries only when it was sure, later-turn crisis thresholds, a short statement keeps the need,",
        "  a relative's or housemate's violence is immediate danger, two idiom shapes cancelled, wishing one had not",
        "  survived is suicide: crisis recall 0.979 (137/140), suicide 1.0, category 0.943, false crisis 0.059 (19/320;",
        "  rules alone 9, model alone 14), need 0.841; conversations: need 0.820 (264/322), region 0.947, crisis 74/76",
        "  (one later-turn crisis fewer than read 0), false crisis 13/246 (was 19).",
        "- `manage.py ask --jsonl` on blind5's 140 crisis messages as SMS-channel turns: 137 escalated, none failed;",
        "  the 3 others are the 3 misses above.",
        "### blind4 (reported on until the sixth session; read three times, then once as a regression check)",
        "- Read 4, `mm-95cd32f4695b`: crisis recall 0.949 (131/138), suicide 0.962 (25/26), category 0.870, false",
        "  crisis 0.0735 (30/408), need 0.865; conversations need 0.784 (was 0.765), false crisis 23/275 (was 37).",
        "  With the earlier weights and this session's rules and context: recall 0.964, suicide 1.0, so the two",
        "  crises lost come from the retrain without the seven texts that repeat blind5 (two lethal-dose questions).",
        "- Read 0, the then-shipped `mm-b6f6d01b9fa3` with its rules, before anything was changed: crisis recall 0.957",
        "  (132/138), suicide 0.962 (25/26), category 0.870, false crisis 0.0735 (30/408; rules alone 13, model alone",
        "  19), need 0.865; conversations: need 0.781, region 0.963, false crisis 27/275.",
        "- Read 1, `mm-116ba7115a2b`: retrained under the current rules (their fewer dev false alarms leave the",
        "  recall-first cap more room, so `any` fell from 0.429 to 0.355), short-message thresholds chosen on dev",
        "  (`hey` p 0.59 and `y cuanto tarda` 0.63 had raised crises mid-conversation: dev conversation need",
        "  0.894 -> 0.906), and crisis rules that also cancel 'this heat is killing me', 'me voy a morir de sed',",
        "  'the GED is gonna kill me', 'me violan el parole?', a negated 'not tonight' and a third party said to be",
        "  calm now (rule false alarms on the three earlier blind sets 21 -> 10, train 38 -> 34, train recall",
        "  unchanged): crisis recall 0.964 (133/138), suicide 1.0 (26/26), category 0.877, false crisis 0.083",
        "  (34/408; rules alone 11), need 0.866; conversations need 0.765, false crisis 37/275.",
        "- Read 2, `mm-1be307f5be1d` (this card): the same crisis and need heads; the own-case advice and outcome",
        "  flags also learn from the gate's 660 general training questions as negatives (their precision on the",
        "  gate's dev questions: answerable flagged 25 -> 6 of 262 at 0.26). Every crisis and need figure as read 1;",
        "  the tables above.",
        "- `manage.py ask --jsonl` on blind4's 138 crisis messages as SMS-channel turns: 133 escalated, none failed;",
        "  the 5 others are the 5 misses above.",
        "### blind3 (read while tuning; retired)",
        "- Read 3, `mm-116ba7115a2b` (as `mm-1be307f5be1d` for crisis and need): crisis recall 0.988, suicide 1.0,",
        "  category 0.939, false crisis 0.059, need 0.891; conversations need 0.828 (was 0.787), region 0.943.",
        "- Read 0, the then-shipped `mm-e17dfc05ffea` with its rules, before anything was changed: crisis recall 0.976",
        "  (80/82), suicide 1.0 (16/16), category 0.915, false crisis 0.055 (13/238), need 0.894; conversations:",
        "  need 0.754, region 0.943.",
        "- Read 1, `mm-b6f6d01b9fa3`: trained with a fifth author's 700 messages (`sources/train_messages3.jsonl`: 381",
        "  false-alarm shapes from dev's errors described in words, 260 indirect crises, 59 ordinary), and crisis rules",
        "  that also cancel help questions ('how do i know if'), quoted speech, support or grief groups about a loss that",
        "  is over, housing trouble weeks away and a PO's 'me viola' (dev false crises 0.066 -> 0.039, dev recall 0.946",
        "  -> 0.957): the tables above. False crisis 0.0504 (12/238) is one message above the goal.",
        "- Read 2, the same model after intake's context changes chosen on a sixth author's dev conversations",
        "  (`dev_conversations3.jsonl`: a short question about the same service keeps the need, a correction takes",
        "  the need it names, SNAP is benefits as LABELING.md files it; dev3 per-turn need 0.781 -> 0.876): every",
        "  figure unchanged (per-turn need 0.787). The gap on blind conversations is not what dev3 shows.",
        "- Tried and not shipped (no blind read): `mm-8505d1967641`, trained with 400 more short messages",
        "  (`data/candidates/short_messages4.jsonl`: follow-ups, sign-offs, brief crises) because short follow-ups",
        "  raised crises mid-conversation on dev3; on dev it read recall 0.961 but false crisis 0.052 against",
        "  0.044 for the shipped model on the same dev, so the shipped model stays.",
        "### blind2",
        "- Read 1, the then-shipped model `mm-723fe2d807cd` with the old rules, before anything was changed: crisis",
        "  recall 0.992 (126/127), suicide 0.966 (28/29), category 0.937, false crisis 0.088 (31/353; rules alone 13,",
        "  model alone 19), need 0.892; conversations: need 0.876, region 0.908.",
        "- Read 2, `mm-e17dfc05ffea`: trained with a fourth author's 900 messages (350 hard negatives), C_CRISIS 16",
        "  (dev), and crisis rules that cancel the narrow contexts LABELING.md calls `none` (idioms, research",
        "  questions, asking how to help someone else; rule false alarms on train+dev 104 -> 39 of 4,890): the tables",
        "  above at the time. False crisis was still above 0.05.",
        "- Read 3, `mm-b6f6d01b9fa3` (after blind3 read 1): crisis recall 1.0, suicide 1.0, category 0.969, false",
        "  crisis 0.062, need 0.913; conversations need 0.862, region 0.917.",
        "### blind (first split, no longer blind)",
        "- Read 1, model `mm-723fe2d807cd` (first model): crisis recall 0.977, suicide recall 0.941, false crisis",
        "  0.073, need accuracy 0.852; conversations: need 0.767, region 0.953, false crisis 0.153.",
        "- Read 2, model `mm-8a8c6ff15494` (not shipped): trained with 102 more hard negatives (vague distress,",
        "  idioms, research, the help having come; `data/candidates/`) and C_CRISIS 2.0, both chosen on dev; crisis",
        "  recall 0.962 (125/130), suicide 0.941, false crisis 0.065, need 0.848; conversations: need 0.787, false",
        "  crisis 0.120. Rejected because crisis recall fell below the shipped model's 0.977 (a rule set before the read).",
        "- Read 3, the shipped model with the new conversation context (a carried crisis ends when the help came or the",
        "  subject changes; a message that only says where the person is keeps the need; chosen on dev conversations):",
        "  crisis recall 0.977, false crisis 0.073, need 0.850; conversations need 0.767. The context rules changed",
        "  nothing measurable on the blind conversations.",
        "- Read 4 with a candidate model (not shipped), read 5 with `mm-e17dfc05ffea` (after blind2 was read):",
        "  crisis recall 0.985, suicide 0.941, false crisis 0.060, need 0.848; conversations need 0.751.",
        "",
        "## Known limits (read with the blind figures)",
        "- On blind13 every goal holds on its one reading (recall 130/130, false 13/290, per-turn need 235/275), but by",
        "  small margins: the false-crisis rate's interval reaches 0.075 and per-turn need's starts at 0.808. blind12,",
        "  read once the session before with the model before this one, read recall 0.946, false 0.076 and per-turn",
        "  need 0.822: one pair of authors moves these figures by several points. `make test` holds the model to",
        "  regression floors on all thirteen splits.",
        '- Vague distress without danger ("things are hard right now") can raise a false crisis: the training',
        "  data has few neutral vague messages. A false alarm costs a gentle handoff; a miss can cost a life.",
        "- After a crisis turn, every next message keeps the crisis line unless it is a thank-you, says the",
        "  person is safe now or the help came, or changes the subject (LABELING.md: when in doubt, the crisis",
        "  wins). Since mm-00f2c2eb5f1d only a crisis the rules (or a second opinion) named, or one the model was",
        "  sure of (p >= 0.75), carries; and a later turn after no crisis reads the model with the later-turn",
        "  thresholds above (read once on blind5: conversation false crises 19 -> 13 of 246, one later-turn crisis",
        "  lost, 75 -> 74 of 76).",
        "- Dev is a hash split of the training authors' messages (one wrote English/Spanish pairs), so dev figures",
        "  run higher than blind ones; only the blind figures are evidence.",
    ]
    return "\n".join(lines) + "\n"


def write_card(meta: dict[str, Any], report: dict[str, Any] | None, path: Path = CARD_PATH) -> Path:
    path.write_text(render(meta, report), encoding="utf-8")
    return path


DATA_CARD_PATH = Path(__file__).resolve().parent / "data" / "DATA_CARD.md"


def render_data_card(sets: dict[str, list[Any]]) -> str:
    """Counts per stratum for each data set, and how each was written."""
    lines = [
        "# Message data card",
        "",
        "Every message is labeled by ../shared/LABELING.md (fields: text, channel, language, crisis, top_need, region,",
        "expect, pii_values). How the sets were written:",
        "",
        "- **train / dev** (`train.jsonl`, `dev.jsonl`): written for training by five helper sessions, each given only",
        "  LABELING.md and a brief for its share (crises and hard negatives x3, needs and regions, policy cases and",
        "  Spanglish); sources in `sources/`. `manage.py safety split` puts ~15 % of them in dev by a hash of the id",
        "  (dev chooses thresholds only) and drops any training message that repeats a blind one. Caveat: one author",
        "  wrote English/Spanish pairs of the same situation, so dev is closer to train than the blind split is.",
        "- **dev_conversations.jsonl**: multi-turn conversations by another helper, for tuning the context rules",
        "  (dc-101..dc-114, crisis then moved on / crisis goes on, added by the context-rules session).",
        "- **candidates/** (`hard_negatives_context.jsonl`): 102 messages written for training (vague distress, idioms,",
        "  research and past events, the help having come, bare places; a few crises) and kept out of train.jsonl: the",
        "  model trained with them read lower blind crisis recall (see MODEL_CARD.md, read 2).",
        "- **blind split** (`blind_messages.jsonl`, `blind_conversations.jsonl`): written by two separate helpers given",
        "  only LABELING.md (no code, no rules, no training data), frozen and hashed in `BLIND.sha256` before the first",
        "  training run. Never trained or tuned on; `safety train` refuses overlapping training data. Read four",
        "  times while tuning, so no longer blind.",
        "- **train_messages2** (`sources/train_messages2.jsonl`, 900: 350 hard negatives, 300 crises, 250 needs) and",
        "  **dev_conversations2.jsonl** (90 conversations, dev only): a fourth author given only LABELING.md.",
        "- **blind2 split** (`blind2_messages.jsonl`, `blind2_conversations.jsonl`): a new author given only",
        "  LABELING.md, frozen and hashed before any model was trained or tuned with it in view (authors' notes in",
        "  `authors/`). Read twice before the current model.",
        "- **train_messages3** (`sources/train_messages3.jsonl`, 700: 381 false-alarm shapes, 260 indirect crises, 59",
        "  ordinary): a fifth author given only LABELING.md and a brief naming, in words, the kinds of error dev showed.",
        "- **candidates/short_messages4.jsonl** (400 one-to-eight-word messages by a seventh author): kept out of",
        "  train.jsonl — the model trained with them read a higher dev false-crisis rate (MODEL_CARD.md).",
        "- **candidates/hard_negatives_mm.jsonl** (129 messages, 108 `none`, 21 crises): written by hand by the helper",
        "  session tuning the message model (issue 24), following LABELING.md only, in the shapes of the errors seen on",
        "  dev and the retired blind sets but never copied or paraphrased from any evaluation item (each text was checked",
        "  against train, dev and the retired blind sets): place statements and short follow-ups of a later turn,",
        "  corrections, venting that says the person is safe, idioms, someone else's or past events, non-emergency",
        "  medication questions, asking for a person, a bed for tonight, and indirect crises of every category. Ids skip",
        "  those the split's hash would send to dev. Kept out of train.jsonl: the crisis heads trained with them read",
        "  the same dev false alarms and two fewer dev crises (356 vs 358 of 372).",
        "- **dev_conversations3.jsonl** (60 conversations by a sixth author; pure thanks relabelled `other` as",
        "  LABELING.md files them): dev only.",
        "- **blind3 split** (`blind3_messages.jsonl`, `blind3_conversations.jsonl`, 320 messages and 40 conversations):",
        "  a new author given only LABELING.md, frozen and hashed before the model was retrained; read while tuning.",
        "- **blind4 split** (`blind4_messages.jsonl`, 546 messages; `blind4_conversations.jsonl`, 80 conversations,",
        "  324 turns): two new authors given only LABELING.md, frozen and hashed before this model was trained. The",
        "  split reported on until the sixth session (read three times). The four training messages that repeated it",
        "  were dropped.",
        "- **blind5 split** (`blind5_messages.jsonl`, 460 messages; `blind5_conversations.jsonl`, 75 conversations, 322",
        "  turns): two new authors given only LABELING.md (`authors/blind5.md`), frozen and hashed before the sixth",
        "  session retrained or tuned anything; reported on in the sixth session. The seven train and dev messages that",
        "  repeat it were dropped ('ok', 'ok gracias', two pill-count questions, two Pell grant questions, one licence).",
        "- **blind6 split** (`blind6_*`, 440 messages and 70 conversations, 293 turns; `authors/blind6.md`): two new",
        "  authors given only LABELING.md, frozen before the seventh session trained anything; read three times.",
        "- **train_messages7a / 7b** (`sources/`, 500 + 500; `authors/train7a.md`, `authors/train7b.md`): two new",
        "  authors given only LABELING.md and a brief naming kinds of messages in words: 7a ordinary needs (65 % es,",
        "  multi-need, bare follow-ups, regions stated every way and decoys), 7b 320 hard negatives and 180 crises near",
        "  the boundary told in the same casual tone.",
        "- **blind7 split** (`blind7_*`, 440 messages and 70 conversations, 304 turns; `authors/blind7.md`): two new",
        "  authors given only LABELING.md, frozen before the eighth session trained anything; read once, then its",
        "  errors were looked into, so it is retired.",
        "- **train_messages8** (`sources/train_messages8.jsonl`, 480; `authors/train8.md`): a new author given only",
        "  LABELING.md and a brief that named, in words, the shapes of blind7's errors (crises hidden in an ordinary",
        "  question, hard negatives that say it is not an emergency or that help came, short later-turn statements).",
        "- **blind8 split** (`blind8_*`, 420 messages and 65 conversations, 273 turns; `authors/blind8.md`): two new",
        "  authors given only LABELING.md, frozen after blind7's reading; the split reported on. The three training",
        "  messages that repeat it were dropped before the shipped model was trained.",
        "- **blind9 split** (`blind9_*`, 420 messages and 65 conversations, 269 turns; `authors/blind9.md`): two new",
        "  authors given only LABELING.md, frozen before the ninth session changed anything; read once, then its",
        "  errors were looked into (retired). The eight training messages that repeat it were dropped.",
        "- **blind10 split** (`blind10_*`, 420 messages and 65 conversations, 274 turns; `authors/blind10.md`): two new",
        "  authors given only LABELING.md, frozen after blind9's reading; read once at the ninth session's end (retired).",
        "  The two training messages that repeat it were dropped.",
        "- **train_messages9** (`sources/train_messages9.jsonl`, 500; `authors/train9.md`): a new author given",
        "  LABELING.md and a brief naming one defect in words (an upcoming release or a plan read as a crisis): 250",
        "  release and plan statements, 150 other hard negatives, 100 crises that mention a release; four 'no bed on a",
        "  later night' rows relabelled `none` / housing on intake (the guide's housing emergency is tonight).",
        "- **train_messages10** (`sources/train_messages10.jsonl`, 600, 420 es; `authors/train10.md`): a new author",
        "  given LABELING.md and a brief naming the Spanish need gap: every need 42-43 times with the confusable",
        "  pairs on purpose, 165 short later-turn messages that name their need.",
        "- **blind11 split** (`blind11_*`, 420 messages and 65 conversations, 267 turns; `authors/blind11.md`): two new",
        "  authors given only LABELING.md, frozen before the tenth session trained anything; read once, then its",
        "  errors looked into (retired). The five training messages that repeat it were dropped.",
        "- **train_messages11** (`sources/train_messages11.jsonl`, 240, 173 es; `authors/train11.md`): a new author",
        "  given LABELING.md and a brief naming greetings and night words read as crises.",
        "- **blind12 split** (`blind12_*`, 420 messages and 65 conversations, 264 turns; `authors/blind12.md`): two new",
        "  authors given only LABELING.md, frozen after blind11's reading and look; read once in the tenth session, then",
        "  its errors looked into in the eleventh (retired). The training messages that repeat it were dropped.",
        "- **train_messages12** (`sources/train_messages12.jsonl`, 500, 258 es; `authors/train12.md`): a new author",
        "  given LABELING.md and a brief naming, in words, the kinds of ordinary message blind12's false alarms came",
        "  from (benign medication questions, venting that resolves, jokes taken back, harmless violent words, bad but",
        "  available beds, staff conflicts that are not sexual, third parties and the past): 416 none, 84 crises.",
        "- **train_messages13** (`sources/train_messages13.jsonl`, 500, 262 es; `authors/train13.md`): a new author",
        "  given LABELING.md and a brief naming the indirect crises blind12 missed or mis-filed (short goodbyes, an ex",
        "  who ignores a protective order, a partner at the door, seizures after running out of medication, injuries",
        "  after a fight that is over, an exam after a recent assault, put out at night): 400 crises, 100 none.",
        "- **blind13 split** (`blind13_*`, 420 messages and 65 conversations, 275 turns; `authors/blind13.md`): two new",
        "  authors given only LABELING.md, frozen after blind12's reading and look, before any model was trained with",
        "  this session's data; the split reported on. The training messages that repeat it were dropped before the",
        "  shipped model was trained.",
        "- **flag negatives**: the answerability gate's answerable training questions (`corpus/data/train_*.jsonl`)",
        "  train the own-case advice and outcome flags as negatives; nothing else learns from them.",
        "",
    ]
    for name, rows in sets.items():
        lines += [f"## {name}: {len(rows)} messages", ""]
        for field in ("language", "channel", "crisis", "top_need", "region"):
            counts = Counter(getattr(m, field) for m in rows)
            lines.append(
                f"- {field}: "
                + ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
            )
        tags = Counter(tag for m in rows for tag in m.expect)
        lines.append("- expect: " + (", ".join(f"{k} {v}" for k, v in sorted(tags.items())) or "none"))
        lines.append(f"- with PII values: {sum(1 for m in rows if m.pii_values)}")
        lines.append("")
    return "\n".join(lines)
