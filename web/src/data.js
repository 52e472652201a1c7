// Decodes what `kinetrack view` writes: a JSON header and one base64 blob of little-endian
// arrays (format 2, kinetrack/viewer/viewer.hpp), into typed arrays viewing the blob in place.
const TYPES = { f32: Float32Array, f64: Float64Array, u8: Uint8Array, u16: Uint16Array, u32: Uint32Array };

export function decodeBlob(base64) {
  const text = atob(base64 || "");
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
  return bytes.buffer;
}

/// {name: TypedArray} of the header's `arrays` over `buffer`.
export function arraysOf(head, buffer) {
  const out = {};
  for (const [name, a] of Object.entries(head.arrays || {})) {
    const Type = TYPES[a.type];
    if (!Type) throw new Error(`array ${name}: unknown type ${a.type}`);
    out[name] = new Type(buffer, a.offset, a.length);
  }
  return out;
}

/// The result to play: the header's fields plus its arrays (times, gap, positions, orientations,
/// input.positions, input.valid, errors, frame_error).
export function decodeData(head, blob) {
  const arrays = arraysOf(head, decodeBlob(blob));
  const data = { ...head, ...arrays };
  if (head.input) {
    data.input = { ...head.input, positions: arrays["input.positions"], valid: arrays["input.valid"] };
  }
  return data;
}

/// The model's geometry (meshes.js): geoms with their mesh arrays attached.
export function decodeGeometry(head, blob) {
  if (!head) return { geoms: [], meshes: [], notes: [] };
  const arrays = arraysOf(head, decodeBlob(blob));
  const meshes = head.meshes.map((m) => ({ file: m.file, vertices: arrays[m.vertices], indices: arrays[m.indices] }));
  return { geoms: head.geoms, meshes, notes: head.notes || [], bytes: head.blob_bytes || 0 };
}
