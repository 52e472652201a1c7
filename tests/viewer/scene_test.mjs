// The viewer's scenes in a real browser (Debian's chromium, headless, SwiftShader WebGL, driven
// by puppeteer-core), each compared with a reference image and asserted on what is drawn:
//  mesh    the Unitree G1 retargeted from a BVH walk, drawn with its STL meshes, the person
//          (the capture tracked onto human66) beside it;
//  muscle  gait2354 walking (OpenSim's IK): bones from .vtp, the 54 muscle paths coloured by
//          static-optimisation activations, markers with their errors, ground-reaction arrows at
//          the centre of pressure, the centre of mass and the feet in contact;
//  human66 a tracked BVH walk on human66 (skeleton, capture overlay, target error colours);
//  still   `kinetrack view --png` (its own headless chromium) against the same scene's reference;
//  live    `kinetrack serve --interactive` with no --http-root: the server serves the bundled page
//          and the model's meshes, the page draws them at the streamed poses (the G1), and the
//          muscle paths every frame carries (gait2354).
// Interactions: a layer toggled off hides it and changes the picture, the timeline and the chart
// seek, the step buttons move one frame, Play advances.
// References: tests/viewer/references/*.png (regenerate with KINETRACK_UPDATE_REFERENCES=1, then
// look at them). Tolerance: at most 1 % of the pixels may differ by more than 24/255 in a channel
// (SwiftShader renders the same bytes run to run on one machine; the margin covers antialiasing
// on another CPU).
// Usage: node scene_test.mjs <build/web (node_modules)> <kinetrack binary> <shared data dir> <work dir>
// Exits 77 (ctest SKIP) when chromium is absent.
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { harness } from "./harness.mjs";
import { comparePng } from "./png_diff.mjs";

const { kinetrack, shared, work, puppeteer, chromium, check, run, finish } = harness();
const references = join(dirname(fileURLToPath(import.meta.url)), "references");
const update = process.env.KINETRACK_UPDATE_REFERENCES === "1";
const MAX_DIFFERING = 0.01, THRESHOLD = 24;
function matchesReference(png, name) {
  const ref = join(references, name);
  if (update || !existsSync(ref)) {
    mkdirSync(references, { recursive: true });
    copyFileSync(png, ref);
    console.log(`wrote reference ${ref}`);
    return;
  }
  const d = comparePng(readFileSync(png), readFileSync(ref), THRESHOLD);
  check(d.sameSize && d.differing <= MAX_DIFFERING,
    `${name}: ${(100 * d.differing).toFixed(3)} % of pixels differ by > ${THRESHOLD}/255 (allowed ${100 * MAX_DIFFERING} %), mean |Δ| ${d.mean.toFixed(2)}${d.size ? ", sizes " + d.size : ""}`);
}

const bvh = join(shared, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
const g1 = join(shared, "models/unitree/g1/g1_29dof.urdf");
const gait = join(shared, "data/opensim/gait2354_walk");
const osim = join(gait, "subject01_simbody.osim");

// The three scenes, written by the CLI as a user would.
run(["retarget", "--robot", g1, "--input", bvh, "--out", join(work, "g1.csv"), "--quiet"]);
run(["view", "--model", g1, "--result", join(work, "g1.csv"), "--input", bvh, "--person", "human66",
     "--out", join(work, "g1_view"), "--quiet"]);
const reserves = ["pelvis_tx", "pelvis_ty", "pelvis_tz", "pelvis_tilt", "pelvis_list", "pelvis_rotation"]
  .flatMap((c) => ["--reserve", `${c}=1000`]);
run(["muscles", "static-opt", "--model", osim, "--motion", join(gait, "subject01_walk1_ik_REFERENCE.mot"),
     "--loads", join(gait, "subject01_walk1_grf.xml"), "--lowpass", "6", ...reserves, "--no-plot",
     "--out", join(work, "so")]);
run(["view", "--model", osim, "--result", join(gait, "subject01_walk1_ik_REFERENCE.mot"),
     "--muscle-values", join(work, "so/activation.sto"), "--markers", join(gait, "subject01_walk1.trc"),
     "--loads", join(gait, "subject01_walk1_grf.xml"), "--out", join(work, "gait_view"), "--quiet"]);
run(["track", "--model", "human66", "--input", bvh, "--out", join(work, "walk.csv"), "--quiet"]);
run(["view", "--model", "human66", "--result", join(work, "walk.csv"), "--input", bvh,
     "--out", join(work, "walk_view"), "--quiet"]);

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-gpu-sandbox"],
});
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
async function open(dir, query, size = [1280, 720]) {
  const page = await browser.newPage();
  await page.setViewport({ width: size[0], height: size[1] });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  const started = Date.now();
  await page.goto(`${pathToFileURL(join(dir, "index.html")).href}?${query}`);
  await page.waitForFunction(() => document.body.dataset.drawn === "1", { timeout: 60000 });
  const loadMs = Date.now() - started;
  await settle(page);
  return { page, errors, loadMs };
}
const counts = (page) => page.evaluate(() => window.kinetrackViewer.counts());
// The page's own cost of a frame change (poses, layers, chart; not drawing) over 200 frames, and
// the frames per second the browser draws the scene at for one second: printed for
// docs/viewer.md and BENCHMARKS.md, not asserted (timing belongs in benchmarks, not tests).
const measure = (page) => page.evaluate(() => new Promise((resolve) => {
  const v = window.kinetrackViewer, n = v.state.frames;
  const t0 = performance.now();
  for (let k = 0; k < 200; ++k) v.setFrame(k % n);
  const updateMs = (performance.now() - t0) / 200;
  const start = performance.now(), from = v.state.rendered;
  setTimeout(() => resolve({ updateMs, fps: 1000 * (v.state.rendered - from) / (performance.now() - start) }), 1000);
}));
const dataSize = (dir) => ({ data: statSync(join(dir, "data.js")).size, meshes: statSync(join(dir, "meshes.js")).size });

try {
  // ------------------------------------------------------------------ mesh: the G1 and the person
  {
    const dir = join(work, "g1_view");
    const { page, errors, loadMs } = await open(dir, "frame=100&clean=1");
    const c = await counts(page);
    const geoms = await page.evaluate(() => window.KINETRACK_GEOMETRY.geoms.length);
    check(c.geoms === geoms && geoms >= 30, `mesh: every visual geom of the G1 is drawn (${c.geoms} of ${geoms}, ${c.triangles} triangles)`);
    check(c.visibleGeoms === c.geoms && !c.skeletonVisible, `mesh: meshes shown, skeleton hidden by default (${c.visibleGeoms} visible)`);
    check(c.notes.length === 0, `mesh: every mesh found (${c.notes.length} notes)`);
    check(c.person === 1 && c.personVisible, `mesh: the person is drawn beside the robot (${c.person})`);
    const frame = await page.evaluate(() => window.kinetrackViewer.state.frame);
    check(frame === 100, `mesh: ?frame=100 opens frame 100 (${frame})`);
    await page.screenshot({ path: join(work, "mesh_g1_person.png") });
    matchesReference(join(work, "mesh_g1_person.png"), "mesh_g1_person.png");
    const size = dataSize(dir);
    const perf = await measure(page);
    console.log(`     G1 + person: load ${loadMs} ms; data.js ${(size.data / 1048576).toFixed(2)} MiB, meshes.js ${(size.meshes / 1048576).toFixed(2)} MiB; frame update ${perf.updateMs.toFixed(2)} ms, ${perf.fps.toFixed(0)} frames/s drawn (${c.triangles} triangles, software WebGL)`);
    check(errors.length === 0, `mesh: no console errors${errors.length ? ": " + errors.join(" | ") : ""}`);
    await page.close();
  }

  // ------------------------------------------------------------------ muscle: gait2354 with everything
  {
    const dir = join(work, "gait_view");
    const { page, errors, loadMs } = await open(dir, "frame=12&clean=1");
    const c = await counts(page);
    check(c.geoms === 19, `muscle: the 19 bones of gait2354 are drawn (${c.geoms}, ${c.triangles} triangles)`);
    check(c.muscles === 54 && c.muscleSegments >= 54, `muscle: 54 muscle paths drawn (${c.muscles} muscles, ${c.muscleSegments} segments)`);
    check(c.coloured === 54, `muscle: every muscle coloured from the activation table (${c.coloured})`);
    check(c.markers.measured >= 35 && c.markers.errors >= 25, `markers: measured and model markers with error lines (${JSON.stringify(c.markers)})`);
    check(c.forces === 1, `forces: one ground-reaction arrow in single stance at frame 12 (${c.forces})`);
    check(c.contact === 1 && c.com, `forces: one foot in contact, the centre of mass shown (${c.contact}, ${c.com})`);
    await page.screenshot({ path: join(work, "muscle_gait2354.png") });
    matchesReference(join(work, "muscle_gait2354.png"), "muscle_gait2354.png");
    // Interactions, with the page's controls shown.
    await page.goto(`${pathToFileURL(join(dir, "index.html")).href}?frame=12`);
    await page.waitForFunction(() => document.body.dataset.drawn === "1", { timeout: 60000 });
    await settle(page);
    const before = await page.screenshot({ path: join(work, "muscle_gait2354_page.png") });  // docs/viewer.md
    await page.click("#show-muscles");
    await settle(page);
    const off = await counts(page);
    const after = await page.screenshot();
    check(!off.musclesVisible && Buffer.compare(before, after) !== 0, "muscle: unticking 'muscles' hides the paths and changes the picture");
    await page.click("#show-forces");
    await settle(page);
    check(!(await counts(page)).forcesVisible, "forces: unticking 'forces' hides the arrows");
    await page.$eval("#timeline", (e) => { e.value = "40"; e.dispatchEvent(new Event("input")); });
    const label = await page.$eval("#frame-label", (e) => e.textContent);
    check(label.startsWith("frame 41/73"), `scrub: the timeline shows frame 41 ("${label}")`);
    await page.click("#next");
    check((await page.evaluate(() => window.kinetrackViewer.state.frame)) === 41, "step: ▶ moves one frame");
    await page.click("#prev");
    await page.click("#prev");
    check((await page.evaluate(() => window.kinetrackViewer.state.frame)) === 39, "step: ◀ moves back one frame");
    // The chart: a click at 25 % of its width seeks to the frame at 25 % of the clip.
    const box = await (await page.$("#chart")).boundingBox();
    await page.mouse.click(box.x + 0.25 * box.width, box.y + box.height / 2);
    const seek = await page.evaluate(() => window.kinetrackViewer.state.frame);
    check(Math.abs(seek - 18) <= 1, `chart: a click at a quarter of the chart seeks to frame ${seek} (≈ 18 of 73)`);
    const series = await page.$eval("#series", (e) => e.options[e.selectedIndex].textContent);
    check(series.startsWith("muscle activation"), `chart: a muscle's activation is charted ("${series}")`);
    await page.evaluate(() => window.kinetrackViewer.setFrame(0));
    await page.click("#play");
    await new Promise((r) => setTimeout(r, 600));
    const played = await page.evaluate(() => window.kinetrackViewer.state.frame);
    check(played >= 5, `play: frames advance (frame ${played} after 0.6 s at 60 Hz)`);
    await page.click("#play");  // pause
    // WebM: the clip recorded from the canvas to its end (1.2 s at 60 Hz, real time).
    await page.evaluate(() => window.kinetrackViewer.setFrame(0));
    await page.click("#webm");
    await page.waitForFunction(() => window.kinetrackViewer.state.lastRecording, { timeout: 20000 }).catch(() => {});
    const webm = await page.evaluate(async () => {
      const b = window.kinetrackViewer.state.lastRecording;
      if (!b) return null;
      const head = new Uint8Array(await b.slice(0, 4).arrayBuffer());
      return { size: b.size, type: b.type, ebml: Array.from(head).map((x) => x.toString(16)).join("") };
    });
    check(webm && webm.size > 1000 && webm.ebml === "1a45dfa3",
          `export: WebM recorded from the page (${webm ? `${webm.size} bytes, ${webm.type}, EBML header ${webm.ebml}` : "nothing"})`);
    for (const name of ["muscles", "forces"]) await page.click(`#show-${name}`);  // every layer back on
    const perf = await measure(page);
    console.log(`     gait2354, every layer: frame update ${perf.updateMs.toFixed(2)} ms, ${perf.fps.toFixed(0)} frames/s drawn in headless SwiftShader (software WebGL), load ${loadMs} ms`);
    check(errors.length === 0, `muscle: no console errors${errors.length ? ": " + errors.join(" | ") : ""}`);
    await page.close();
  }

  // ------------------------------------------------------------------ human66 tracking
  {
    const { page, errors } = await open(join(work, "walk_view"), "frame=150&clean=1");
    const c = await counts(page);
    check(c.geoms === 0 && c.skeletonVisible, "human66: no meshes, the skeleton drawn");
    await page.screenshot({ path: join(work, "human66_tracking.png") });
    matchesReference(join(work, "human66_tracking.png"), "human66_tracking.png");
    check(errors.length === 0, `human66: no console errors${errors.length ? ": " + errors.join(" | ") : ""}`);
    await page.close();
  }

  // ------------------------------------------------------------------ still: kinetrack view --png
  {
    const png = join(work, "still_g1.png");
    run(["view", "--model", g1, "--result", join(work, "g1.csv"), "--input", bvh, "--person", "human66",
         "--out", join(work, "g1_still"), "--png", "3.3333", "--png-file", png, "--quiet"]);
    check(existsSync(png) && statSync(png).size > 10000, `still: kinetrack view --png wrote ${png}`);
    matchesReference(png, "still_g1_frame100.png");
    // The same frame in the page and in the still: the same picture.
    const d = comparePng(readFileSync(png), readFileSync(join(work, "mesh_g1_person.png")), THRESHOLD);
    check(d.differing <= MAX_DIFFERING, `still: the --png still is the page's frame 100 (${(100 * d.differing).toFixed(3)} % differ)`);
  }

  // ------------------------------------------------------------------ live: meshes and muscles on a served model
  async function serve(model) {
    const server = spawn(kinetrack, ["serve", "--interactive", "--model", model, "--host", "127.0.0.1", "--port", "0",
                                     "--duration", "120", "--quiet"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    server.stdout.on("data", (d) => { out += d; });
    const deadline = Date.now() + 30000;
    while (!/ws:\/\/127\.0\.0\.1:(\d+)/.test(out) && Date.now() < deadline && server.exitCode === null)
      await new Promise((r) => setTimeout(r, 100));
    return { server, out, port: /ws:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1] };
  }
  async function livePage(port, ready) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${port}/?ws=auto`);
    await page.waitForFunction(ready, { timeout: 60000 }).catch(() => {});
    await settle(page);
    return { page, errors };
  }
  {
    const { server, out, port } = await serve(g1);
    check(port !== undefined && out.includes("viewer http://"), `live: kinetrack serve serves the bundled page with no --http-root (${out.trim().split("\n")[0]})`);
    if (port) {
      const { page, errors } = await livePage(port, () => (window.kinetrackViewer.counts().geoms || 0) > 0);
      const c = await counts(page);
      const mode = await page.evaluate(() => window.kinetrackViewer.state.mode);
      check(c.geoms >= 30 && c.visibleGeoms === c.geoms, `live: the served G1 is drawn with its meshes (${c.geoms} geoms, ${mode} mode)`);
      check(c.skeletonVisible, "live: interactive mode keeps the skeleton (links are picked on it)");
      await page.screenshot({ path: join(work, "live_g1.png") });
      check(errors.length === 0, `live: no page errors${errors.length ? ": " + errors.join(" | ") : ""}`);
      await page.close();
    }
    server.kill("SIGINT");
  }
  {
    const { server, port } = await serve(osim);
    if (port) {
      const { page, errors } = await livePage(port, () => (window.kinetrackViewer.counts().muscleSegments || 0) > 0 &&
                                                        (window.kinetrackViewer.counts().geoms || 0) > 0);
      const c = await counts(page);
      check(c.muscles === 54 && c.muscleSegments >= 54 && c.geoms === 19,
            `live: gait2354 served with its bones and the 54 muscle paths of every frame (${c.geoms} bones, ${c.muscleSegments} segments)`);
      await page.screenshot({ path: join(work, "live_gait2354.png") });
      check(errors.length === 0, `live: no page errors${errors.length ? ": " + errors.join(" | ") : ""}`);
      await page.close();
    } else {
      check(false, "live: kinetrack serve --interactive on gait2354 started");
    }
    server.kill("SIGINT");
  }
} finally {
  await browser.close();
}
finish();
