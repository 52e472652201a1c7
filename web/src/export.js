// Exports from the page: a PNG of the canvas as drawn, a WebM recording of it (MediaRecorder on
// the canvas's stream, in real time).

function download(href, name) {
  const a = document.createElement("a");
  a.href = href;
  a.download = name;
  a.click();
}

/// Saves the canvas (rendered with preserveDrawingBuffer) as `name`.
export function downloadPng(canvas, name) {
  download(canvas.toDataURL("image/png"), name);
}

/// Starts recording the canvas; on stop() the WebM is downloaded as `name` and `onDone(blob)` is
/// called. Returns the MediaRecorder, or null when the browser cannot record a canvas.
export function recordCanvas(canvas, name, onDone) {
  if (!window.MediaRecorder || !canvas.captureStream) return null;
  // VP8: encoded in real time by software where VP9 (tried first, 2026-12-06) gave no data in 0.4 s.
  const type = MediaRecorder.isTypeSupported("video/webm;codecs=vp8") ? "video/webm;codecs=vp8" : "video/webm";
  const recorder = new MediaRecorder(canvas.captureStream(60), { mimeType: type, videoBitsPerSecond: 8e6 });
  const chunks = [];
  recorder.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
  recorder.onstop = () => {
    const blob = new Blob(chunks, { type: "video/webm" });
    download(URL.createObjectURL(blob), name);
    onDone?.(blob);
  };
  recorder.start(250);
  return recorder;
}
