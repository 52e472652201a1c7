#!/usr/bin/env python3
"""Plot labelling runs: `kinetrack markers label --report` or `kinetrack experiment labelling`.

Usage: plot_labelling.py report REPORT_CSV OUTPUT_PNG
       plot_labelling.py experiment TABLE_CSV FRAMES_CSV OUTPUT_PNG
       plot_labelling.py markers MARKERS_CSV OUTPUT_PNG

report: markers labelled, gaps and ghosts per frame, (re)initialisations and lost frames marked,
and the marker IK's RMS on the labelled points. experiment: labelling accuracy and joint-angle
difference per scenario and trial, and the fraction of present markers labelled right per frame
in the occlusion and combined scenarios. markers: per-marker labelling error at the target
scenario ("2 mm + 5% + 3 ghosts", mean over the seeds) per trial, held-out trials marked, with the
mean confidence of each marker's wrong labels.

Exit status: 0 written, 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib is
not installed (Debian: apt-get install python3-matplotlib).
"""
import sys

from plot_common import fail, read_rows, require_pyplot, save_png

SCRIPT = "plot_labelling.py"
REPORT = ["frame", "time", "points", "invalid_points", "assigned", "gaps", "ghosts", "rigid_rejections", "relabelled",
          "state", "ik_status", "ik_iterations", "ik_rms_mm", "microseconds", "ik_microseconds", "swaps_corrected",
          "unsure", "min_confidence"]
TABLE = ["trial", "scenario", "seed", "held_out", "present", "correct", "accuracy", "wrong", "missed", "ghost_points",
         "ghosts_labelled", "swapped_present", "swapped_correct", "reacquire_frames", "initialisations", "lost_frames",
         "frames", "angle_rms_deg", "angle_max_deg", "us_median", "us_p95", "unsure_frames", "swaps_corrected",
         "wrong_labels", "wrong_flagged", "wrong_silent", "right_flagged"]
MARKERS = ["trial", "scenario", "seed", "held_out", "marker", "present", "correct", "wrong", "missed", "accuracy",
           "confidence_right", "confidence_wrong"]
TARGET = "2 mm + 5% + 3 ghosts"
FRAMES = ["trial", "scenario", "seed", "frame", "time", "present", "correct", "ghosts_labelled", "state"]


def plot_report(plt, csv_path, png):
    rows = read_rows(csv_path, REPORT, text_columns=("state", "ik_status"))
    t = [r["time"] for r in rows]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), dpi=120, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    a1.plot(t, [r["assigned"] for r in rows], label="labelled markers")
    a1.plot(t, [r["gaps"] for r in rows], label="gaps")
    a1.plot(t, [r["ghosts"] for r in rows], label="ghosts (unlabelled points)")
    for state, style in (("initialised", "g^"), ("lost", "rx")):
        pts = [(r["time"], r["assigned"]) for r in rows if r["state"] == state]
        if pts:
            a1.plot([p[0] for p in pts], [p[1] for p in pts], style, label=state)
    a1.set_ylabel("count per frame")
    a1.set_title("kinetrack markers label: labels, gaps and ghosts per frame", fontsize=10)
    a1.grid(True, alpha=0.3)
    a1.legend(fontsize=8)
    a2.plot(t, [r["ik_rms_mm"] for r in rows], color="C3")
    a2.set_ylabel("IK marker RMS [mm]")
    a2.set_xlabel("time [s]")
    a2.grid(True, alpha=0.3)
    fig.tight_layout()
    return save_png(fig, png, SCRIPT)


def plot_experiment(plt, table_path, frames_path, png):
    rows = read_rows(table_path, TABLE, text_columns=("trial", "scenario"))
    frames = read_rows(frames_path, FRAMES, text_columns=("trial", "scenario", "state"))
    trials = list(dict.fromkeys(r["trial"] for r in rows))
    scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
    fig = plt.figure(figsize=(11, 10), dpi=110)
    gs = fig.add_gridspec(2, 2, height_ratios=[3, 2])
    a1, a2, a3 = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1]), fig.add_subplot(gs[1, :])
    h = 0.8 / len(trials)
    def mean(values):
        values = [v for v in values if v == v]
        return sum(values) / len(values) if values else 0.0

    for k, trial in enumerate(trials):
        # Several seeds (--seeds): the mean over them.
        by = {}
        for r in rows:
            if r["trial"] == trial:
                by.setdefault(r["scenario"], []).append(r)
        ys = [i + k * h for i in range(len(scenarios))]
        err = [100.0 * (1.0 - mean([r["accuracy"] for r in by[s]])) if s in by else 0.0 for s in scenarios]
        a1.barh(ys, err, height=h, label=trial, color=f"C{k}")
        ang = [mean([r["angle_rms_deg"] for r in by[s]]) if s in by else 0.0 for s in scenarios]
        a2.barh(ys, ang, height=h, label=trial, color=f"C{k}")
    for a in (a1, a2):
        a.set_yticks([i + 0.4 - h / 2 for i in range(len(scenarios))])
        a.invert_yaxis()
        a.grid(True, axis="x", alpha=0.3)
    a1.set_yticklabels(scenarios, fontsize=8)
    a2.set_yticklabels([])
    a1.axvline(0.5, color="k", linestyle=":", linewidth=1)
    a1.set_xlabel("labelling error [% of present markers]  (dotted: 0.5 %)")
    a1.legend(fontsize=8)
    a2.axvline(0.5, color="k", linestyle=":", linewidth=1)
    a2.set_xlabel("joint rotations vs IK on the true labels, RMS [deg]  (dotted: 0.5°)")
    a1.set_title("labels stripped, points shuffled every frame", fontsize=10)
    shown = [s for s in scenarios if s.startswith("occlusion") or s.startswith("2 mm +")]
    for k, trial in enumerate(trials):
        for j, scen in enumerate(shown):
            fr = [f for f in frames if f["trial"] == trial and f["scenario"] == scen]
            fr = [f for f in fr if f["seed"] == fr[0]["seed"]]  # the first seed's run
            t = [f["time"] for f in fr]
            y = [100.0 * f["correct"] / f["present"] if f["present"] > 0 else float("nan") for f in fr]
            a3.plot(t, y, color=f"C{k}", linestyle=["-", "--", ":"][j % 3], linewidth=1.0, label=f"{trial}: {scen}")
    a3.set_ylabel("present markers labelled right [%]")
    a3.set_xlabel("time [s]  (no marker is present during the occlusion)")
    a3.grid(True, alpha=0.3)
    a3.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return save_png(fig, png, SCRIPT)


# LabellerOptions::unsure_threshold (a label below it is unsure).
UNSURE = 0.8


def plot_markers(plt, markers_path, png):
    rows = read_rows(markers_path, MARKERS, text_columns=("trial", "scenario", "marker"))
    rows = [r for r in rows if r["scenario"] == TARGET and r["present"] > 0]
    if not rows:
        raise ValueError(f"{markers_path}: no row of the scenario {TARGET!r}")
    trials = list(dict.fromkeys(r["trial"] for r in rows))
    held = {r["trial"]: r["held_out"] > 0 for r in rows}
    cols = min(3, len(trials))
    nrows = (len(trials) + cols - 1) // cols
    most = max(len({r["marker"] for r in rows if r["trial"] == t}) for t in trials)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols, 0.5 + nrows * (0.75 + 0.13 * most)), dpi=110,
                             squeeze=False)
    for k, trial in enumerate(trials):
        a = axes[k // cols][k % cols]
        by = {}
        for r in rows:
            if r["trial"] == trial:
                by.setdefault(r["marker"], []).append(r)
        # Mean over the seeds; worst marker at the top.
        stats = []
        for m, rs in by.items():
            acc = 100.0 * sum(r["accuracy"] for r in rs) / len(rs)
            wrong = [r["confidence_wrong"] for r in rs if r["confidence_wrong"] == r["confidence_wrong"]]
            stats.append((acc, m, sum(wrong) / len(wrong) if wrong else float("nan")))
        stats.sort()
        ys = list(range(len(stats)))
        errors = [100.0 - s[0] for s in stats]
        a.barh(ys, errors, color=f"C{k}", height=0.8)
        # The mean confidence of a marker's wrong labels beside its bar (below UNSURE: flagged as unsure).
        for y, e, s in zip(ys, errors, stats):
            if e > 0.0 and s[2] == s[2]:
                a.text(e, y, f" {s[2]:.2f}", va="center", fontsize=5, color="C3" if s[2] < UNSURE else "0.3")
        a.set_yticks(ys)
        a.set_yticklabels([s[1] for s in stats], fontsize=6)
        a.invert_yaxis()
        a.set_xlim(0.0, max(0.6, 1.25 * max(errors)))
        a.axvline(0.5, color="k", linestyle=":", linewidth=1)
        a.grid(True, axis="x", alpha=0.3)
        mean = sum(s[0] for s in stats) / len(stats)
        title = f"{trial}{' (held out)' if held[trial] else ''}: mean over markers {mean:.2f} %"
        a.set_title(title, fontsize=9, color="C3" if held[trial] else "k")
        a.set_xlabel("labelling error [% of present frames]  (dotted: 0.5 %)", fontsize=7)
        a.tick_params(axis="x", labelsize=7)
    for k in range(len(trials), nrows * cols):
        axes[k // cols][k % cols].axis("off")
    seeds = len({r["seed"] for r in rows})
    fig.suptitle(f"per-marker labelling error at {TARGET} (mean over {seeds} seed{'s' if seeds > 1 else ''}); "
                 f"beside a bar: mean confidence of its wrong labels (red: below {UNSURE}, flagged)", fontsize=10)
    fig.tight_layout(rect=(0.0, 0.0, 1.0, 0.985))
    return save_png(fig, png, SCRIPT)


def main(argv):
    if len(argv) == 3 and argv[0] == "report":
        mode = "report"
    elif len(argv) == 4 and argv[0] == "experiment":
        mode = "experiment"
    elif len(argv) == 3 and argv[0] == "markers":
        mode = "markers"
    else:
        return fail(SCRIPT, "usage: plot_labelling.py report REPORT_CSV PNG | experiment TABLE_CSV FRAMES_CSV PNG | "
                    "markers MARKERS_CSV PNG")
    plt = require_pyplot(SCRIPT)
    try:
        if mode == "report":
            return plot_report(plt, argv[1], argv[2])
        if mode == "markers":
            return plot_markers(plt, argv[1], argv[2])
        return plot_experiment(plt, argv[1], argv[2], argv[3])
    except OSError as err:
        return fail(SCRIPT, f"{err.filename}: {err.strerror}")
    except ValueError as err:
        return fail(SCRIPT, str(err))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
