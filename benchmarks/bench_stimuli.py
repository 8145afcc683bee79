"""Benchmark of stimulus rendering: the whole dataset-sized stimulus set (the 20 plans of
exp2_current, every judgment segment, GIF) with 1 and with N processes, and what one
frame costs drawn by blitting the changing layer against a full redraw of the figure
(the baseline, in the same process).

    python benchmarks/bench_stimuli.py [--labtom DIR] [--jobs 2] [--cell 44]

Target: the whole set in under 60 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from elot.study.references import refs_of
from elot.study.stimuli import make_stimuli
from elot.cli import run_command


def per_frame(ref, cell: int) -> tuple[float, float, int]:
    """ms per frame by blitting and by redrawing the whole figure, over one plan."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from elot.domains.doors_keys_gems.draw import Renderer
    from elot.domains.doors_keys_gems.board import frame_figure

    states = ref.load().detail.states()
    renderer = Renderer(states, cell_px=cell)
    start = time.perf_counter()
    for t in range(len(states)):
        renderer.frame(t)
    blit = (time.perf_counter() - start) / len(states)
    fig, board = frame_figure(states[0].layout, cell_px=cell)
    canvas = FigureCanvasAgg(fig)
    start = time.perf_counter()
    for t in range(len(states)):
        board.draw_state(states, t)
        canvas.draw()
        canvas.buffer_rgba()
    full = (time.perf_counter() - start) / len(states)
    return blit * 1000, full * 1000, len(states)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", default=os.environ.get("ELOT_LABTOM_DATA", "../shared/labtom"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cell", type=int, default=44)
    args = parser.parse_args()
    refs = refs_of(["all"], data=args.labtom, exp="exp2_current")
    print(f"{len(refs)} scenarios (exp2_current), cell {args.cell} px; load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    blit, full, frames = per_frame(refs[0], args.cell)
    print(f"one frame of {refs[0].name} ({frames} frames): blit {blit:.1f} ms, full redraw {full:.1f} ms "
          f"({full / blit:.1f}x)")
    times = {}
    for jobs in dict.fromkeys((1, args.jobs)):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            made = make_stimuli(refs, Path(tmp) / "set", jobs=jobs, mp4=False, cell_px=args.cell)
            times[jobs] = time.perf_counter() - start
            n_frames = sum(sum(v) for v in made.frames.values())
            n_images = sum(len(e["images"]) for e in made.entries)
            size = sum(p.stat().st_size for p in (Path(tmp) / "set").iterdir())
        print(f"--jobs {jobs}: {times[jobs]:.1f} s for {n_images} GIFs, {n_frames} frames "
              f"({1000 * times[jobs] / n_frames:.1f} ms/frame), {size / 1e6:.1f} MB")
    if len(times) > 1:
        print(f"speed-up with {args.jobs} jobs: {times[1] / times[args.jobs]:.2f}x; "
              f"target < 60 s: {'met' if min(times.values()) < 60 else 'NOT met'}")


if __name__ == "__main__":
    sys.exit(run_command(main))   # no dataset, a bad option: the message and exit 2, not a traceback
