// The chart under the scene: one series over the whole clip (a joint angle, a muscle's activation
// or force, a force's magnitude, the target error), a cursor at the current frame; a click seeks.
export class Chart {
  constructor(canvas, onSeek) {
    this.canvas = canvas;
    this.onSeek = onSeek;
    this.values = null;
    this.times = null;
    this.frame = 0;
    canvas.addEventListener("pointerdown", (ev) => this.seek(ev));
    canvas.addEventListener("pointermove", (ev) => { if (ev.buttons & 1) this.seek(ev); });
  }

  seek(ev) {
    if (!this.times) return;
    const r = this.canvas.getBoundingClientRect();
    const x = (ev.clientX - r.left) / r.width;
    const t = this.times[0] + x * (this.times[this.times.length - 1] - this.times[0]);
    let i = 0;
    while (i + 1 < this.times.length && this.times[i + 1] <= t) ++i;
    this.onSeek(i);
  }

  setSeries(values, times, label, unit) {
    this.values = values;
    this.times = times;
    this.label = label;
    this.unit = unit || "";
    let lo = Infinity, hi = -Infinity;
    for (const v of values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!Number.isFinite(lo)) { lo = 0; hi = 1; }
    if (hi - lo < 1e-9) { hi += 0.5; lo -= 0.5; }
    const pad = (hi - lo) * 0.08;
    this.lo = lo - pad;
    this.hi = hi + pad;
    this.draw();
  }

  setCursor(i) {
    this.frame = i;
    this.draw();
  }

  valueAt(i) { return this.values ? this.values[i] : NaN; }

  draw() {
    const c = this.canvas;
    const w = c.clientWidth, h = c.clientHeight;
    if (w === 0 || h === 0) return;
    const dpr = window.devicePixelRatio || 1;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    const g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    if (!this.values || !this.times || this.times.length < 2) return;
    const t0 = this.times[0], t1 = this.times[this.times.length - 1];
    const X = (t) => ((t - t0) / (t1 - t0)) * (w - 1);
    const Y = (v) => h - 1 - ((v - this.lo) / (this.hi - this.lo)) * (h - 2);
    g.strokeStyle = "#3a3f47";
    g.lineWidth = 1;
    if (this.lo < 0 && this.hi > 0) { g.beginPath(); g.moveTo(0, Y(0)); g.lineTo(w, Y(0)); g.stroke(); }
    g.strokeStyle = "#5fb3ff";
    g.lineWidth = 1.5;
    g.beginPath();
    let pen = false;
    this.values.forEach((v, i) => {
      if (!Number.isFinite(v)) { pen = false; return; }
      const x = X(this.times[i]), y = Y(v);
      if (pen) g.lineTo(x, y); else g.moveTo(x, y);
      pen = true;
    });
    g.stroke();
    g.fillStyle = "#9aa3ad";
    g.font = "11px system-ui, sans-serif";
    g.fillText(`${this.hi.toFixed(2)} ${this.unit}`, 4, 11);
    g.fillText(`${this.lo.toFixed(2)} ${this.unit}`, 4, h - 3);
    const x = X(this.times[this.frame]);
    g.strokeStyle = "#ff9f1a";
    g.lineWidth = 1.5;
    g.beginPath();
    g.moveTo(x, 0);
    g.lineTo(x, h);
    g.stroke();
  }
}

/// Every series the data has, as {label, unit, get()}: the target error, each muscle's activation
/// or force, each force's magnitude, each joint (degrees or metres).
export function chartSeries(data, layers, frames) {
  const series = [];
  if (data.frame_error) series.push({ label: "target error", unit: data.error_unit, get: () => data.frame_error });
  if (layers.muscles?.values) {
    for (const name of data.muscles.names)
      series.push({ label: `muscle ${data.muscles.value}: ${name}`, unit: data.muscles.unit, get: () => layers.muscles.series(name) });
  }
  if (layers.forces) data.forces.names.forEach((name, k) => series.push({ label: `force |${name}|`, unit: "N", get: () => layers.forces.series(k) }));
  const nj = data.joints?.names.length || 0;
  data.joints?.names.forEach((name, j) => series.push({
    label: `joint ${name}`, unit: data.joints.units[j],
    get: () => { const out = new Float32Array(frames); for (let i = 0; i < frames; ++i) out[i] = data["joints.values"][i * nj + j]; return out; },
  }));
  return series;
}

/// The index of the muscle series with the largest mean value (the busiest muscle), −1 for none.
export function busiestMuscle(series) {
  let best = -1, pick = -1;
  series.forEach((s, k) => {
    if (!s.label.startsWith("muscle")) return;
    let sum = 0, n = 0;
    for (const x of s.get()) if (Number.isFinite(x)) { sum += x; ++n; }
    if (n && sum / n > best) { best = sum / n; pick = k; }
  });
  return pick;
}
