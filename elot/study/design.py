"""Statement design: which candidate statements are worth asking about a scenario.

A statement is informative when the model's answer to it moves between judgment points
(participants' ratings of it then say something about the inference) and when the full
model and its ablations disagree on it (the ratings then tell the models apart). One that
is constant over the points, or cannot be typed or translated, is useless to ask.

For each (scenario, candidate): L at every judgment point under the full model, its
range (max − min), each ablation's largest |L_full − L_ablation| over the points, and a
flag. ``informativeness`` = range + mean disagreement over the ablations; rows are
sorted by it, useless ones last.
"""

from __future__ import annotations

import csv
import io
from typing import Sequence

from elot.errors import ElotSyntaxError, ElotTypeError, TranslationError
from elot.judging import Statement
from elot.settings import DEFAULT_K
from elot.study.storyboard import judgment_points, score_candidates

#: A range below this is "constant" (L is a ratio of sums of floating-point weights).
CONSTANT = 1e-6


def design_rows(scenarios: Sequence[tuple[str, object]], candidates: Sequence[Statement], *,
                ablations: Sequence[str] = ("true-belief", "non-planning"), beta: float, k: int = DEFAULT_K,
                thresholds=None, bind_free: bool = False) -> list[dict]:
    """One row per (scenario, candidate), sorted by informativeness (see the module's
    docstring); ``scenarios`` holds (name, Scenario) pairs."""
    rows: list[dict] = []
    models = ["full", *[a for a in ablations if a != "full"]]
    for name, scenario in scenarios:
        points = judgment_points(scenario)
        scored = score_candidates(scenario, candidates, models, beta=beta, k=k, thresholds=thresholds,
                                  bind_free=bind_free, points=points)
        for st in scored:
            full = st.model.get("full")
            row = {"rank": 0, "scenario": name, "statement": st.text, "mode": st.mode, "formula": st.formula or "",
                   "points": list(points), "values": full or [], "min": "", "max": "", "range": "",
                   **{f"disagree_{a}": "" for a in models[1:]}, "informativeness": "", "flag": ""}
            if st.error is not None or not full:
                row["flag"] = flag_of(st.error)
                row["note"] = getattr(st.error, "message", st.note)
                rows.append(row)
                continue
            low, high = min(full), max(full)
            row.update({"min": low, "max": high, "range": high - low})
            gaps = []
            for a in models[1:]:
                gap = max(abs(x - y) for x, y in zip(full, st.model[a]))
                row[f"disagree_{a}"] = gap
                gaps.append(gap)
            row["informativeness"] = (high - low) + (sum(gaps) / len(gaps) if gaps else 0.0)
            if high - low < CONSTANT:
                row["flag"] = f"constant (L = {low:.2f})"
            rows.append(row)
    rows.sort(key=lambda r: (bool(r["flag"]), -(r["informativeness"] or 0.0)))
    for n, row in enumerate(rows, 1):
        row["rank"] = n
    return rows


def flag_of(error) -> str:
    """Why a candidate is useless to ask: it does not parse or typecheck, the translator
    cannot read it, or it could not be scored otherwise."""
    if isinstance(error, (ElotTypeError, ElotSyntaxError)):
        return "ill-typed"
    return "not translated" if isinstance(error, TranslationError) else "not scored"


def design_csv(rows: Sequence[dict]) -> str:
    """The rows as CSV: L and the points as ``;``-separated lists."""
    columns = [c for c in rows[0] if c not in ("values", "note")] + ["L", "note"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        out = {**row, "points": ";".join(str(t) for t in row["points"]),
               "L": ";".join(f"{v:.4f}" for v in row["values"]), "note": row.get("note", "")}
        for key in ("min", "max", "range", "informativeness", *(c for c in row if c.startswith("disagree_"))):
            if isinstance(out[key], float):
                out[key] = f"{out[key]:.4f}"
        writer.writerow(out)
    return buffer.getvalue()
