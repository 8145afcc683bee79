"""Studies: batch runs to a tidy table, fitting Θ and β to human ratings, and reports.

* :mod:`elot.study.batch` — scenarios × statements × settings → one row per judgment, from
  :mod:`~elot.study.references` (scenarios and statements), :mod:`~elot.study.tasks` (one
  inference and its scores), :mod:`~elot.study.resources` (memory and time estimates),
  :mod:`~elot.study.executors` (serial, processes, Dask), :mod:`~elot.study.tables` (the
  table's columns, CSV and Parquet) and :mod:`~elot.study.journal` (the resumable writer);
* :mod:`elot.study.fit` — Θ by grid coordinate ascent and β over a grid, maximizing
  Pearson r between L and the mean rating, with bootstrap intervals;
* :mod:`elot.study.report` — scatter, score curves and a summary table;
* :mod:`elot.study.params` — parameter files (``--thresholds FILE``) and atomic output;
* :mod:`elot.domains.doors_keys_gems.experiments` — the paper's in- vs out-of-context comparison (``in_vs_out``).
"""

from elot.study.params import FITTED, Params, StudyError, read_params, write_params

__all__ = ["FITTED", "Params", "StudyError", "read_params", "write_params"]
