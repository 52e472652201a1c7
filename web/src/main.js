// kinetrack browser viewer. Three modes:
//  - file: plays window.KINETRACK_DATA (data.js written by `kinetrack view`): link positions per
//    frame computed by kinetrack's forward kinematics, the input capture and per-link target error;
//  - live (?ws=ws://host:port or ?ws=auto): shows the frames a `kinetrack serve` streams and their
//    latency (protocol version 1, docs/streaming.md);
//  - interactive (the server's hello says "interactive"): click a link to pin it, drag another with
//    the mouse; the server runs pin-and-drag IK and streams the poses back.
// The page computes no kinematics: it draws what it is given.
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { Skeleton } from "./skeleton.js";
import { connect } from "./live.js";

const $ = (id) => document.getElementById(id);

const container = $("view");
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
container.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1d2024);
const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 200);
camera.up.set(0, 0, 1); // kinetrack's world is z up
camera.position.set(3.2, -3.2, 2.0);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0, 0.9);
controls.update();
scene.add(new THREE.HemisphereLight(0xffffff, 0x404050, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(3, -2, 6);
scene.add(sun);
const grid = new THREE.GridHelper(10, 20, 0x666a70, 0x3a3e44);
grid.rotation.x = Math.PI / 2; // the helper lies in x-z; the ground is x-y
scene.add(grid);
scene.add(new THREE.AxesHelper(0.3));

function resize() {
  const w = container.clientWidth, h = container.clientHeight;
  renderer.setSize(w, h);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener("resize", resize);
resize();

const params = new URLSearchParams(window.location.search);
const state = { mode: "file", frame: 0, frames: 0, playing: false, speed: 1, skeleton: null, received: 0, ground: 0 };
// For tests and scripts: the current state and where a link is drawn on the screen.
window.kinetrackViewer = {
  state,
  setFrame: (i) => showFrame(i),
  linkScreenPosition(name) {
    const p = state.skeleton?.linkPosition(name);
    if (!p) return null;
    const v = p.clone().project(camera);
    const r = renderer.domElement.getBoundingClientRect();
    return { x: r.left + (v.x + 1) / 2 * r.width, y: r.top + (1 - v.y) / 2 * r.height };
  },
  linkWorldPosition: (name) => state.skeleton?.linkPosition(name)?.toArray() ?? null,
  groundHeight: () => grid.position.z,
};

// Moves the orbit centre to `c`, the camera along with it (same view of the skeleton).
function frameTo(c) {
  camera.position.add(c.clone().sub(controls.target));
  controls.target.copy(c);
  controls.update();
  // The grid (1 m squares) stays under the model, at the ground height.
  grid.position.set(Math.round(c.x), Math.round(c.y), state.ground);
}

// The ground: the lowest link origin z of `positions` (flat x, y, z triples). Trackers place the
// base where the input says (BVH and target files often at z = 0 with the feet below), so the
// grid is drawn at the feet rather than at z = 0; positions stay the tracker's world coordinates.
function groundOf(positions) {
  let z = Infinity;
  for (let k = 2; k < positions.length; k += 3) if (Number.isFinite(positions[k])) z = Math.min(z, positions[k]);
  return Number.isFinite(z) ? z : 0;
}

// ---------------------------------------------------------------- file mode
function startFile(data) {
  state.mode = "file";
  state.data = data;
  state.frames = data.times.length;
  state.ground = groundOf(data.positions); // over the whole result: the grid does not move
  state.skeleton = new Skeleton(scene, data.model.links);
  if (data.input) state.skeleton.setInputSkeleton(data.input.segments);
  $("title").textContent = `${data.model.name} — ${data.result}`;
  $("status").textContent = data.input ? `input: ${data.input.source}` : "no input capture";
  $("frame-count").textContent = `${state.frames} frames`;
  const timeline = $("timeline");
  timeline.max = String(Math.max(state.frames - 1, 0));
  timeline.addEventListener("input", () => {
    state.playing = false;
    $("play").textContent = "Play";
    showFrame(Number(timeline.value));
  });
  $("play").addEventListener("click", () => {
    state.playing = !state.playing;
    $("play").textContent = state.playing ? "Pause" : "Play";
    if (state.playing && state.frame >= state.frames - 1) showFrame(0);
    state.playStart = performance.now();
    state.playFrom = data.times[state.frame];
  });
  $("speed").addEventListener("change", () => {
    state.speed = Number($("speed").value);
    state.playStart = performance.now();
    state.playFrom = data.times[state.frame];
  });
  if (data.error_scale) {
    $("legend").classList.remove("hidden");
    $("legend-max").textContent = `0 – ${data.error_scale.toFixed(1)} ${data.error_unit}`;
  }
  showFrame(0);
  frameTo(state.skeleton.center());
}

function showFrame(i) {
  const data = state.data;
  if (!data || state.frames === 0) return;
  i = Math.min(Math.max(Math.round(i), 0), state.frames - 1);
  state.frame = i;
  const n = data.model.links.length;
  state.skeleton.setPositions(data.positions, i * n * 3);
  if (data.errors) state.skeleton.setErrors(data.errors, i * n, data.error_scale);
  if (data.input) {
    const m = data.input.segments.length;
    state.skeleton.setInput(data.input.positions, i * m * 3, data.input.valid, i * m);
  }
  if ($("follow").checked) frameTo(state.skeleton.center());
  $("timeline").value = String(i);
  const gap = data.gap && data.gap[i] ? "  (gap: solver held its state)" : "";
  const err = data.frame_error ? `  mean target error ${data.frame_error[i].toFixed(2)} ${data.error_unit}` : "";
  $("frame-label").textContent = `frame ${i + 1}/${state.frames}  t = ${data.times[i].toFixed(3)} s${err}${gap}`;
}

function tick() {
  if (state.mode === "file" && state.playing && state.data) {
    const t = state.playFrom + (performance.now() - state.playStart) / 1000 * state.speed;
    const times = state.data.times;
    let i = state.frame;
    while (i + 1 < times.length && times[i + 1] <= t) ++i;
    if (i !== state.frame) showFrame(i);
    if (i >= times.length - 1) {
      state.playing = false;
      $("play").textContent = "Play";
    }
  }
  renderer.render(scene, camera);
  requestAnimationFrame(tick);
}

// ---------------------------------------------------------------- live / interactive mode
function startLive(url) {
  state.mode = "live";
  $("play").classList.add("hidden");
  $("speed").classList.add("hidden");
  $("timeline").classList.add("hidden");
  $("status").textContent = `connecting to ${url}`;
  const latencies = [];
  let centred = false;
  const session = connect(url, {
    onHello(hello) {
      state.mode = hello.mode === "interactive" ? "interactive" : "live";
      if (state.skeleton) state.skeleton.dispose();
      state.skeleton = new Skeleton(scene, hello.model.links);
      state.skeleton.showInput($("show-input").checked);
      $("title").textContent = `${hello.model.name} — ${state.mode} (${url})`;
      $("status").textContent = state.mode === "interactive"
        ? "click a link to pin it, drag a link to move it"
        : "live";
      if (state.mode === "interactive") {
        $("reset").classList.remove("hidden");
        enableInteraction(session);
      }
    },
    onFrame(frame) {
      if (!state.skeleton) return;
      state.received += 1;
      state.skeleton.setPoses(frame.links);
      state.skeleton.setTargets(frame.targets || []);
      state.skeleton.setRoles(frame.pins || [], frame.drags || []);
      if (!centred || ($("follow").checked && state.mode === "live")) {
        if (!centred) state.ground = groundOf(frame.links.flatMap((l) => l.slice(0, 3))); // the first frame's feet
        frameTo(state.skeleton.center());
        centred = true;
      }
      latencies.push(frame.latency_us);
      if (latencies.length > 240) latencies.shift();
      const sorted = [...latencies].sort((a, b) => a - b);
      const p50 = sorted[Math.floor(sorted.length / 2)];
      $("frame-count").textContent = `${state.received} frames received (seq ${frame.seq})`;
      $("frame-label").textContent = `source t = ${Number(frame.source_time).toFixed(3)} s  status ${frame.status}`;
      $("latency").textContent = `latency ${frame.latency_us.toFixed(1)} µs (p50 of last ${sorted.length}: ${p50.toFixed(1)} µs)`;
    },
    onStats(s) {
      $("status").textContent = `${state.mode}: ${s.frames} frames, ${s.dropped} dropped, ${s.malformed} malformed; ` +
        `server latency p50 ${s.latency_p50_us} µs p99 ${s.latency_p99_us} µs max ${s.latency_max_us} µs`;
    },
    onError(message) { $("status").textContent = `server: ${message}`; },
    onClose() { $("status").textContent = `disconnected from ${url}`; },
  });
  $("reset").addEventListener("click", () => session.send({ type: "reset" }));
}

// Click (press and release without moving) a link: pin or unpin it. Press on a link and move:
// drag it in the plane through it that faces the camera.
function enableInteraction(session) {
  const el = renderer.domElement;
  const raycaster = new THREE.Raycaster();
  const pointer = new THREE.Vector2();
  let pressed = null; // {link, x, y, dragging, plane}
  const ray = (ev) => {
    const r = el.getBoundingClientRect();
    pointer.set(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
    raycaster.setFromCamera(pointer, camera);
    return raycaster;
  };
  el.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || !state.skeleton) return;
    const link = state.skeleton.pick(ray(ev));
    if (!link) return;
    controls.enabled = false;
    const normal = camera.getWorldDirection(new THREE.Vector3());
    const plane = new THREE.Plane().setFromNormalAndCoplanarPoint(normal, state.skeleton.linkPosition(link));
    pressed = { link, x: ev.clientX, y: ev.clientY, dragging: false, plane };
  });
  el.addEventListener("pointermove", (ev) => {
    if (!pressed) return;
    if (!pressed.dragging && Math.hypot(ev.clientX - pressed.x, ev.clientY - pressed.y) < 4) return;
    pressed.dragging = true;
    const hit = ray(ev).ray.intersectPlane(pressed.plane, new THREE.Vector3());
    if (hit) session.send({ type: "drag", link: pressed.link, target: [hit.x, hit.y, hit.z] });
  });
  const finish = () => {
    if (!pressed) return;
    if (pressed.dragging) {
      session.send({ type: "release", link: pressed.link });
    } else {
      const pinned = state.skeleton.isPinned(pressed.link);
      session.send({ type: pinned ? "unpin" : "pin", link: pressed.link });
      state.skeleton.setPinnedLocally(pressed.link, !pinned);
    }
    pressed = null;
    controls.enabled = true;
  };
  el.addEventListener("pointerup", finish);
  el.addEventListener("pointercancel", finish);
}

// ---------------------------------------------------------------- start
$("show-input").addEventListener("change", () => state.skeleton?.showInput($("show-input").checked));
const ws = params.get("ws");
if (ws) {
  const url = ws === "auto" ? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/` : ws;
  startLive(url);
} else {
  // data.js sets window.KINETRACK_DATA; loaded as a script so that file:// works.
  const script = document.createElement("script");
  script.src = params.get("data") || "data.js";
  script.onload = () => {
    if (window.KINETRACK_DATA) startFile(window.KINETRACK_DATA);
    else $("status").textContent = "data.js did not define KINETRACK_DATA";
  };
  script.onerror = () => {
    $("status").textContent = "no data.js next to this page: write one with `kinetrack view`, or open ?ws=auto";
  };
  document.head.appendChild(script);
}
requestAnimationFrame(tick);
