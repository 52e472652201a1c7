// Screenshot comparison for the browser tests: a small PNG decoder (8-bit RGB/RGBA, not
// interlaced: what Chromium writes) and a pixel difference with a stated tolerance.
import { inflateSync } from "node:zlib";

export function decodePng(buffer) {
  const signature = "89504e470d0a1a0a";
  if (buffer.subarray(0, 8).toString("hex") !== signature) throw new Error("not a PNG");
  let at = 8, width = 0, height = 0, type = 0;
  const idat = [];
  while (at < buffer.length) {
    const length = buffer.readUInt32BE(at);
    const name = buffer.subarray(at + 4, at + 8).toString("latin1");
    const body = buffer.subarray(at + 8, at + 8 + length);
    if (name === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[12] !== 0) throw new Error("only 8-bit, non-interlaced PNGs");
      type = body[9];
    } else if (name === "IDAT") {
      idat.push(body);
    }
    at += 12 + length;
  }
  const channels = type === 6 ? 4 : type === 2 ? 3 : 0;
  if (!channels) throw new Error(`PNG colour type ${type} is not RGB or RGBA`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride), line = new Uint8Array(stride);
  for (let y = 0; y < height; ++y) {
    const filter = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; ++i) {
      const a = i >= channels ? line[i - channels] : 0, b = prev[i], c = i >= channels ? prev[i - channels] : 0;
      let v = src[i];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = v & 0xff;
    }
    for (let x = 0; x < width; ++x) {
      for (let k = 0; k < 3; ++k) out[(y * width + x) * 4 + k] = line[x * channels + k];
      out[(y * width + x) * 4 + 3] = channels === 4 ? line[x * channels + 3] : 255;
    }
    [prev, line] = [line, prev];
  }
  return { width, height, pixels: out };
}

/// The share of pixels whose largest channel difference exceeds `threshold` (0–255), and the
/// mean absolute channel difference. Sizes must agree.
export function comparePng(a, b, threshold = 24) {
  const A = decodePng(a), B = decodePng(b);
  if (A.width !== B.width || A.height !== B.height)
    return { sameSize: false, differing: 1, mean: 255, size: `${A.width}x${A.height} vs ${B.width}x${B.height}` };
  let differing = 0, sum = 0;
  const n = A.width * A.height;
  for (let i = 0; i < n; ++i) {
    let worst = 0;
    for (let k = 0; k < 3; ++k) {
      const d = Math.abs(A.pixels[4 * i + k] - B.pixels[4 * i + k]);
      sum += d;
      worst = Math.max(worst, d);
    }
    if (worst > threshold) ++differing;
  }
  return { sameSize: true, differing: differing / n, mean: sum / (3 * n) };
}
