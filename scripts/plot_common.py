"""Shared pieces of the plot scripts (scripts/plot_*.py): matplotlib import, error exit, CSV
reading with file and line in errors, and writing a PNG without ever leaving a partial file.

Exit codes the scripts share: 2 bad input (missing or malformed CSV, unwritable PNG), 3 matplotlib
is not installed (Debian: apt-get install python3-matplotlib).
"""
import csv
import os
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3


def fail(script, message, code=EXIT_BAD_INPUT):
    """Prints `script: error: message` on stderr and returns `code` (the exit status)."""
    print(f"{script}: error: {message}", file=sys.stderr)
    return code


def pyplot():
    """matplotlib.pyplot with the Agg backend, or None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def require_pyplot(script):
    """matplotlib.pyplot (Agg); when matplotlib is missing, prints the error naming `script` and
    exits with EXIT_NO_MATPLOTLIB."""
    plt = pyplot()
    if plt is None:
        sys.exit(fail(script, "matplotlib is not installed (Debian: apt-get install python3-matplotlib)",
                      EXIT_NO_MATPLOTLIB))
    return plt


def read_rows(path, header, text_columns=()):
    """Rows of a CSV with exactly `header` as dicts, numbers as floats except `text_columns`.
    Raises ValueError naming the file and line; OSError when the file cannot be read."""
    rows = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        got = next(reader, None)
        if got != header:
            raise ValueError(f"{path}:1: expected header {','.join(header)!r}, got {','.join(got or [])!r}")
        for line, row in enumerate(reader, start=2):
            if len(row) != len(header):
                raise ValueError(f"{path}:{line}: expected {len(header)} fields, got {len(row)}")
            r = dict(zip(header, row))
            try:
                for k in header:
                    if k not in text_columns:
                        r[k] = float(r[k])
            except ValueError:
                raise ValueError(f"{path}:{line}: not a number in {','.join(row)!r}") from None
            rows.append(r)
    if not rows:
        raise ValueError(f"{path}: no data rows")
    return rows


def save_png(fig, png, script):
    """Writes `fig` beside `png` and renames it into place; returns the exit status."""
    out_dir = os.path.dirname(os.path.abspath(png))
    tmp = os.path.join(out_dir, f".{os.path.basename(png)}.tmp{os.getpid()}.png")
    try:
        fig.savefig(tmp)
        os.replace(tmp, png)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        return fail(script, f"{png}: cannot write: {e.strerror}")
    return 0


def read_sto(path):
    """The columns of an OpenSim storage table (.sto/.mot) by name, in file order ("time" first),
    as lists of floats. Raises ValueError naming the file and line; OSError when unreadable."""
    with open(path) as f:
        lines = f.read().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == "endheader") + 1
    except StopIteration:
        raise ValueError(f"{path}: no 'endheader' line")
    while start < len(lines) and not lines[start].strip():
        start += 1
    names = lines[start].split()
    cols = {n: [] for n in names}
    for number, line in enumerate(lines[start + 1:], start=start + 2):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != len(names):
            raise ValueError(f"{path}:{number}: {len(fields)} fields, expected {len(names)}")
        for n, v in zip(names, fields):
            cols[n].append(float(v))
    return cols
