"""Doors-Keys-Gems of Alanqary et al. (2021): elot's agent models fitted on the dev split.

    python benchmarks/alanqary2021.py --data ../shared/alanqary2021/doors-keys-gems -o predictions.csv

Prints each model family's dev r (and per category, and leave-one-stimulus-out) beside the
authors' stored models restricted to dev, and writes the chosen model's predictions for all
16 stimuli at every judgment point (``scenario, t, goal, value``). Parameters are chosen on
the dev stimuli (C_1, C_3) only.
"""

from alanqary_common import main

if __name__ == "__main__":
    raise SystemExit(main("Doors-Keys-Gems (Alanqary et al. 2021)", "doors-keys-gems", confusions=False,
                          targets={"Boltzmann >= birl": ("boltzmann", 0.812),
                                   "best > ap": ("best", 0.916)}))
