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
import { ModelGeometry } from "./geometry.js";
import { MuscleLayer, LiveMuscleLayer, MarkerLayer, ForceLayer, BodyLayer, setLineResolution } from "./layers.js";
import { Chart, chartSeries, busiestMuscle } from "./chart.js";
import { downloadPng, recordCanvas } from "./export.js";
import { cameraPreset, fitBox, groundOf } from "./camera.js";
import { decodeData, decodeGeometry } from "./data.js";
import { connect } from "./live.js";

const $ = (id) => document.getElementById(id);

const container = $("view");
// Antialiasing costs a software renderer (SwiftShader, a machine without a GPU) half its frame
// rate: it is kept for GPUs only (?aa=1 forces it, ?aa=0 turns it off).
function softwareRenderer() {
  try {
    const gl = document.createElement("canvas").getContext("webgl2") || document.createElement("canvas").getContext("webgl");
    const info = gl && gl.getExtension("WEBGL_debug_renderer_info");
    const name = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : "";
    gl?.getExtension("WEBGL_lose_context")?.loseContext();
    return /swiftshader|llvmpipe|software/i.test(name);
  } catch {
    return false;
  }
}
const aaParam = new URLSearchParams(window.location.search).get("aa");
const software = softwareRenderer();
const renderer = new THREE.WebGLRenderer({ antialias: aaParam === null ? !software : aaParam === "1", preserveDrawingBuffer: true });
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
const grid = new THREE.GridHelper(40, 80, 0x666a70, 0x3a3e44); // 0.5 m squares
grid.rotation.x = Math.PI / 2; // the helper lies in x-z; the ground is x-y
scene.add(grid);
scene.add(new THREE.AxesHelper(0.3));
// The model's world, turned so that its up direction (OpenSim: +y) is the viewer's +z.
const world = new THREE.Group();
world.name = "world";
scene.add(world);
function setUp(up) {
  const u = new THREE.Vector3().fromArray(up || [0, 0, 1]).normalize();
  world.quaternion.setFromUnitVectors(u, new THREE.Vector3(0, 0, 1));
  world.updateMatrixWorld(true);
}

const params = new URLSearchParams(window.location.search);
const state = { mode: "file", frame: 0, frames: 0, playing: false, speed: 1, skeleton: null, geometry: null, received: 0,
  ground: 0, ready: false, stillFrames: 0 };

function resize() {
  const w = container.clientWidth, h = container.clientHeight;
  renderer.setSize(w, h);
  setLineResolution(w, h);
  state?.chart?.draw();
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener("resize", resize);
resize();

if (params.get("clean")) document.body.classList.add("clean"); // no overlays: `kinetrack view --png`
// Layers shown at start: ?layers=geometry,skeleton,input (default: every layer the data has;
// the skeleton only when the model has no geometry).
const layerParam = params.get("layers");
const wantLayer = (name, fallback) => (layerParam === null ? fallback : layerParam.split(",").includes(name));
// For tests and scripts: the current state and where a link is drawn on the screen.
window.kinetrackViewer = {
  state,
  setFrame: (i) => showFrame(i),
  linkScreenPosition(name) {
    const p = state.skeleton?.linkPosition(name);
    if (!p) return null;
    const v = p.clone().applyMatrix4(world.matrixWorld).project(camera);
    const r = renderer.domElement.getBoundingClientRect();
    return { x: r.left + (v.x + 1) / 2 * r.width, y: r.top + (1 - v.y) / 2 * r.height };
  },
  linkWorldPosition: (name) => state.skeleton?.linkPosition(name)?.toArray() ?? null,
  groundHeight: () => grid.position.z,
  // What is drawn: for tests that assert on the scene rather than on pixels.
  counts() {
    const visible = (o) => { for (let x = o; x; x = x.parent) if (!x.visible) return false; return true; };
    let meshes = 0;
    state.geometry?.group.traverse((o) => { if (o.isMesh && visible(o)) meshes += 1; });
    const L = state.layers || {};
    const i = state.frame;
    let coloured = 0;
    if (L.muscles?.values) {
      const nm = L.muscles.info.names.length;
      for (let m = 0; m < nm; ++m) coloured += Number.isFinite(L.muscles.values[i * nm + m]) ? 1 : 0;
    }
    return {
      geoms: state.geometry ? state.geometry.count : 0,
      visibleGeoms: meshes,
      triangles: state.geometry ? state.geometry.triangles : 0,
      skeletonVisible: !!state.skeleton && visible(state.skeleton.group),
      notes: state.notes || [],
      person: (state.companions || []).length,
      personVisible: (state.companions || []).some((c) => visible(c.group)),
      muscles: L.muscles ? L.muscles.info.names.length : 0,
      muscleSegments: L.muscles ? L.muscles.segments : 0,
      musclesVisible: !!L.muscles && visible(L.muscles.group),
      coloured,
      markers: L.markers ? { ...L.markers.shown, visible: visible(L.markers.group) } : null,
      forces: L.forces ? L.forces.shown : 0,
      forcesVisible: !!L.forces && visible(L.forces.group),
      contact: L.body ? L.body.inContact : 0,
      com: !!L.body && visible(L.body.comGroup),
    };
  },
  setLayer(name, on) {
    const box = $(`show-${name}`);
    if (!box) return false;
    box.checked = on;
    box.dispatchEvent(new Event("change"));
    return true;
  },
};

// Moves the orbit centre to `c` (the viewer's world), the camera along with it (same view).
function frameTo(c) {
  camera.position.add(c.clone().sub(controls.target));
  controls.target.copy(c);
  controls.update();
  // The grid (0.5 m squares) stays under the model, at the ground height.
  grid.position.set(Math.round(c.x), Math.round(c.y), state.ground);
}

// The centre of what is drawn of the model, in the viewer's (z-up) world: the box of its meshes
// when they are shown, else of its link origins.
function modelCentre() {
  if (state.geometry && state.geometry.visible) {
    const box = new THREE.Box3().expandByObject(state.geometry.group);
    if (!box.isEmpty()) return box.getCenter(new THREE.Vector3());
  }
  return state.skeleton.center().applyMatrix4(world.matrixWorld);
}

// Turns the camera to see the whole model (its meshes when shown, else its link origins).
function fitCamera() {
  const box = new THREE.Box3();
  if (state.geometry && state.geometry.visible) box.expandByObject(state.geometry.group);
  if (box.isEmpty() && state.skeleton) {
    for (const p of state.skeleton.positions) box.expandByPoint(p.clone().applyMatrix4(world.matrixWorld));
  }
  fitBox(camera, controls, box);
}

// ---------------------------------------------------------------- file mode
const LAYERS = ["geometry", "skeleton", "input", "person", "muscles", "markers", "forces", "com", "contact"];

function startFile(data, geometry) {
  state.mode = "file";
  state.data = data;
  state.frames = data.times.length;
  setUp(data.model.up);
  const n = data.model.links.length;
  const low = groundOf(data.positions, data.model.up, n); // over the whole result: the grid does not move
  state.ground = low.height;
  state.skeleton = new Skeleton(world, data.model.links, data.model.slides || []);
  if (data.input) state.skeleton.setInputSkeleton(data.input.segments);
  else $("layer-input").classList.add("hidden");
  state.notes = geometry.notes;
  if (geometry.geoms.length > 0) {
    state.geometry = new ModelGeometry(world, data.model.links, geometry);
    // The ground under the lowest drawn point: the frame with the lowest link origin, its meshes.
    state.geometry.setPoses(data.positions, data.orientations, low.frame * n);
    world.updateMatrixWorld(true);
    const box = new THREE.Box3().expandByObject(state.geometry.group);
    if (!box.isEmpty()) state.ground = Math.min(state.ground, box.min.z);
  } else {
    $("layer-geometry").classList.add("hidden");
  }
  // Companions (the person beside the robot), each a skeleton shifted by its offset.
  state.companions = (data.companions || []).map((c) => {
    const group = new THREE.Group();
    group.name = "person";
    group.position.fromArray(c.offset);
    world.add(group);
    const skeleton = new Skeleton(group, c.model.links, c.model.slides || [], new THREE.Color(0x7fc8ff));
    return { info: c, group, skeleton, positions: data[`${c.arrays}.positions`] };
  });
  if (state.companions.length) $("layer-person").classList.remove("hidden");
  state.layers = {};
  if (data.muscles) state.layers.muscles = new MuscleLayer(world, data);
  if (data.markers) state.layers.markers = new MarkerLayer(world, data);
  if (data.forces) state.layers.forces = new ForceLayer(world, data);
  if (data.body) {
    // The ground height in the model's coordinates along its up: state.ground is measured along up.
    state.layers.body = new BodyLayer(world, data, data.model.up, state.ground);
  }
  for (const name of ["muscles", "markers", "forces"]) if (state.layers[name]) $(`layer-${name}`).classList.remove("hidden");
  if (data.body?.com) $("layer-com").classList.remove("hidden");
  if (data.body?.feet?.length) $("layer-contact").classList.remove("hidden");
  for (const name of LAYERS) {
    const fallback = name === "skeleton" ? !state.geometry || geometry.notes.length > 0 : true;
    $(`show-${name}`).checked = wantLayer(name, fallback);
  }
  applyLayers();
  $("title").textContent = `${data.model.name} — ${data.result}`;
  const notes = geometry.notes.length ? `\n${geometry.notes.length} mesh(es) not found: ${geometry.notes[0]}` : "";
  const beside = state.companions.map((c) => `  beside: ${c.info.label}`).join("");
  $("status").textContent = (data.input ? `input: ${data.input.source}` : "no input capture") + beside + notes;
  $("frame-count").textContent = `${state.frames} frames`;
  const timeline = $("timeline");
  timeline.max = String(Math.max(state.frames - 1, 0));
  timeline.addEventListener("input", () => { pause(); showFrame(Number(timeline.value)); });
  $("play").addEventListener("click", () => (state.playing ? pause() : play()));
  $("prev").addEventListener("click", () => { pause(); showFrame(state.frame - 1); });
  $("next").addEventListener("click", () => { pause(); showFrame(state.frame + 1); });
  window.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLSelectElement || ev.target instanceof HTMLInputElement && ev.target.type !== "range") return;
    if (ev.key === " ") { ev.preventDefault(); state.playing ? pause() : play(); }
    else if (ev.key === "ArrowLeft") { pause(); showFrame(state.frame - 1); }
    else if (ev.key === "ArrowRight") { pause(); showFrame(state.frame + 1); }
  });
  $("speed").addEventListener("change", () => {
    state.speed = Number($("speed").value);
    state.playStart = performance.now();
    state.playFrom = data.times[state.frame];
  });
  $("camera").addEventListener("change", () => { cameraPreset(camera, controls, $("camera").value); $("camera").value = ""; });
  $("png").addEventListener("click", savePng);
  $("webm").addEventListener("click", recordWebm);
  if (data.error_scale) {
    $("legend").classList.remove("hidden");
    $("legend-error").classList.remove("hidden");
    $("legend-max").textContent = `0 – ${data.error_scale.toFixed(1)} ${data.error_unit}`;
  }
  if (data.muscles?.value) {
    $("legend").classList.remove("hidden");
    $("legend-muscle").classList.remove("hidden");
    const m = data.muscles;
    $("legend-muscle-label").textContent = m.value === "force" ? `force 0 – ${m.scale.toFixed(0)} N` : "activation 0 – 1";
  }
  setupChart(data);
  const first = Number(params.get("frame") || 0);
  showFrame(Number.isFinite(first) ? first : 0);
  fitCamera();
  frameTo(modelCentre());
  state.ready = true;
  document.body.dataset.ready = "1";
}

function play() {
  state.playing = true;
  $("play").textContent = "Pause";
  if (state.frame >= state.frames - 1) showFrame(0);
  state.playStart = performance.now();
  state.playFrom = state.data.times[state.frame];
}

function pause() {
  if (!state.playing) return;
  state.playing = false;
  $("play").textContent = "Play";
  rememberFrame();
}

// The frame in the address (?frame=N), so that a frame can be linked to.
function rememberFrame() {
  if (location.protocol === "about:" || params.get("clean")) return;
  const p = new URLSearchParams(location.search);
  p.set("frame", String(state.frame));
  history.replaceState(null, "", `${location.pathname}?${p}`);
}

function applyLayers() {
  const on = (name) => $(`show-${name}`).checked;
  if (state.geometry) state.geometry.visible = on("geometry");
  state.skeleton?.showSkeleton(on("skeleton"));
  state.skeleton?.showInput(on("input"));
  for (const c of state.companions || []) c.group.visible = on("person");
  const L = state.layers || {};
  if (L.muscles) L.muscles.group.visible = on("muscles");
  if (L.markers) L.markers.group.visible = on("markers");
  if (L.forces) L.forces.group.visible = on("forces");
  if (L.body) {
    L.body.comGroup.visible = on("com") && !!L.body.com;
    L.body.contactGroup.visible = on("contact");
  }
}

function savePng() {
  renderer.render(scene, camera);
  downloadPng(renderer.domElement, `${state.data.model.name}_frame${state.frame}.png`);
}

// Records the clip from the current frame to its end as WebM (the canvas's stream, real time).
function recordWebm() {
  const recorder = recordCanvas(renderer.domElement, `${state.data.model.name}.webm`, (blob) => {
    state.lastRecording = blob;
    $("webm").textContent = "WebM";
  });
  if (!recorder) {
    $("status").textContent = "this browser cannot record the canvas (MediaRecorder)";
    return;
  }
  state.recorder = recorder;
  $("webm").textContent = "recording…";
  if (state.frame >= state.frames - 1) showFrame(0);
  play();
}

// The chart: every series the data has, the target error, muscles or the first joint first.
function setupChart(data) {
  const select = $("series");
  const series = chartSeries(data, state.layers, state.frames);
  if (!series.length || params.get("chart") === "0") return;
  document.body.classList.add("with-chart");
  resize();
  series.forEach((s, k) => select.add(new Option(s.label, String(k))));
  const wanted = params.get("series");
  const at = wanted ? series.findIndex((s) => s.label === wanted || s.label.endsWith(`: ${wanted}`) || s.label.endsWith(` ${wanted}`)) : -1;
  const pick = at >= 0 ? at : data.frame_error ? 0 : Math.max(busiestMuscle(series), 0);
  state.chart = new Chart($("chart"), (i) => { pause(); showFrame(i); });
  const choose = (k) => {
    select.value = String(k);
    state.chart.setSeries(series[k].get(), data.times, series[k].label, series[k].unit);
    state.chart.setCursor(state.frame);
  };
  select.addEventListener("change", () => choose(Number(select.value)));
  choose(Math.max(pick, 0));
}

function showFrame(i) {
  const data = state.data;
  if (!data || state.frames === 0) return;
  i = Math.min(Math.max(Math.round(i), 0), state.frames - 1);
  state.frame = i;
  const n = data.model.links.length;
  state.skeleton.setPositions(data.positions, i * n * 3);
  state.geometry?.setPoses(data.positions, data.orientations, i * n);
  if (data.errors) state.skeleton.setErrors(data.errors, i * n, data.error_scale);
  if (data.input) {
    const m = data.input.segments.length;
    state.skeleton.setInput(data.input.positions, i * m * 3, data.input.valid, i * m);
  }
  for (const c of state.companions || []) c.skeleton.setPositions(c.positions, i * c.info.model.links.length * 3);
  for (const layer of Object.values(state.layers || {})) layer.setFrame(i);
  if ($("follow").checked) frameTo(modelCentre());
  $("timeline").value = String(i);
  const gap = data.gap && data.gap[i] ? "  (gap: solver held its state)" : "";
  const err = data.frame_error ? `  mean target error ${data.frame_error[i].toFixed(2)} ${data.error_unit}` : "";
  $("frame-label").textContent = `frame ${i + 1}/${state.frames}  t = ${data.times[i].toFixed(3)} s${err}${gap}`;
  const L = state.layers || {};
  const parts = [];
  if (L.markers) parts.push(`markers ${L.markers.shown.measured} measured, ${L.markers.shown.errors} with errors`);
  if (L.forces) parts.push(`forces ${L.forces.shown}`);
  if (L.body?.info.feet.length) parts.push(`feet in contact ${L.body.inContact}`);
  $("layer-info").textContent = parts.length ? `\n${parts.join("  ")}` : "";
  if (state.chart) {
    state.chart.setCursor(i);
    const v = state.chart.valueAt(i);
    $("chart-value").textContent = Number.isFinite(v) ? `${v.toFixed(3)} ${state.chart.unit}` : "no value";
  }
}

function tick() {
  if (state.mode === "file" && state.playing && state.data) {
    const t = state.playFrom + (performance.now() - state.playStart) / 1000 * state.speed;
    const times = state.data.times;
    let i = state.frame;
    while (i + 1 < times.length && times[i + 1] <= t) ++i;
    if (i !== state.frame) showFrame(i);
    if (i >= times.length - 1) {
      pause();
      if (state.recorder && state.recorder.state === "recording") state.recorder.stop();
    }
  }
  renderer.render(scene, camera);
  state.rendered = (state.rendered || 0) + 1;
  if (state.ready && ++state.stillFrames > 2) document.body.dataset.drawn = "1";
  requestAnimationFrame(tick);
}

// ---------------------------------------------------------------- live / interactive mode
function startLive(url) {
  state.mode = "live";
  for (const id of ["play", "speed", "timeline", "prev", "next", "webm"]) $(id).classList.add("hidden");
  $("status").textContent = `connecting to ${url}`;
  const latencies = [];
  let centred = false;
  const session = connect(url, {
    onHello(hello) {
      state.mode = hello.mode === "interactive" ? "interactive" : "live";
      if (state.skeleton) state.skeleton.dispose();
      state.up = hello.model.up || [0, 0, 1];
      setUp(state.up);
      state.skeleton = new Skeleton(world, hello.model.links, hello.model.slides || []);
      state.skeleton.showInput($("show-input").checked);
      $("title").textContent = `${hello.model.name} — ${state.mode} (${url})`;
      $("layer-geometry").classList.add("hidden");
      if (state.layers?.muscles) world.remove(state.layers.muscles.group);
      state.layers = {};
      if (hello.muscles?.length) {
        state.layers.muscles = new LiveMuscleLayer(world, hello.muscles);
        $("layer-muscles").classList.remove("hidden");
        applyLayers();
      }
      if (hello.geometry) {
        // The model's meshes, served by the same server (http on the WebSocket's host and port).
        const http = url.replace(/^ws/, "http").replace(/\/$/, "");
        loadScript(`${http}${hello.geometry}`).then((ok) => {
          if (!ok || !window.KINETRACK_GEOMETRY) return;
          const geometry = decodeGeometry(window.KINETRACK_GEOMETRY, window.KINETRACK_GEOMETRY_BLOB);
          if (!geometry.geoms.length) return;
          state.geometry?.dispose(world);
          state.geometry = new ModelGeometry(world, hello.model.links, geometry);
          state.notes = geometry.notes;
          $("layer-geometry").classList.remove("hidden");
          // Interactive mode picks links on the skeleton: it stays shown there.
          if (state.mode !== "interactive") $("show-skeleton").checked = false;
          applyLayers();
          if (state.lastLinks) state.geometry.setProtocolPoses(state.lastLinks);
          world.updateMatrixWorld(true);
          const box = new THREE.Box3().expandByObject(state.geometry.group);
          if (!box.isEmpty()) state.ground = Math.min(state.ground, box.min.z);
          fitCamera();
          frameTo(modelCentre());
        });
      }
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
      state.lastLinks = frame.links;
      state.geometry?.setProtocolPoses(frame.links);
      if (frame.muscles && state.layers?.muscles) state.layers.muscles.setPaths(frame.muscles);
      state.skeleton.setTargets(frame.targets || []);
      state.skeleton.setRoles(frame.pins || [], frame.drags || []);
      if (!centred || ($("follow").checked && state.mode === "live")) {
        if (!centred) {
          state.ground = groundOf(frame.links.flatMap((l) => l.slice(0, 3)), state.up).height; // the first frame's feet
          fitCamera();
        }
        frameTo(modelCentre());
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
    // The drag plane in model coordinates (the server's world), through the link, facing the camera.
    const toModel = world.quaternion.clone().invert();
    const plane = new THREE.Plane().setFromNormalAndCoplanarPoint(normal.applyQuaternion(toModel), state.skeleton.linkPosition(link));
    pressed = { link, x: ev.clientX, y: ev.clientY, dragging: false, plane };
  });
  el.addEventListener("pointermove", (ev) => {
    if (!pressed) return;
    if (!pressed.dragging && Math.hypot(ev.clientX - pressed.x, ev.clientY - pressed.y) < 4) return;
    pressed.dragging = true;
    const r = ray(ev).ray.clone().applyMatrix4(world.matrixWorld.clone().invert());
    const hit = r.intersectPlane(pressed.plane, new THREE.Vector3());
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

// Loads a script (data.js, meshes.js): scripts load from file:// where fetch does not.
function loadScript(src) {
  return new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve(true);
    script.onerror = () => resolve(false);
    document.head.appendChild(script);
  });
}

// ---------------------------------------------------------------- start
for (const name of LAYERS) $(`show-${name}`).addEventListener("change", applyLayers);
const ws = params.get("ws");
if (ws) {
  const url = ws === "auto" ? `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/` : ws;
  startLive(url);
} else {
  // data.js sets window.KINETRACK_DATA (and its blob), meshes.js the model's geometry; loaded as
  // scripts so that file:// works.
  (async () => {
    if (!(await loadScript(params.get("data") || "data.js"))) {
      $("status").textContent = "no data.js next to this page: write one with `kinetrack view`, or open ?ws=auto";
      return;
    }
    await loadScript(params.get("meshes") || "meshes.js");
    if (!window.KINETRACK_DATA) {
      $("status").textContent = "data.js did not define KINETRACK_DATA";
      return;
    }
    const data = decodeData(window.KINETRACK_DATA, window.KINETRACK_BLOB);
    const geometry = decodeGeometry(window.KINETRACK_GEOMETRY, window.KINETRACK_GEOMETRY_BLOB);
    startFile(data, geometry);
  })();
}
requestAnimationFrame(tick);
