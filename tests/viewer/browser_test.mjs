// The browser viewer in a real browser (Debian's chromium, headless, driven by puppeteer-core):
//  1. file mode: `kinetrack track` + `kinetrack view` on a shared BVH; the page loads with no
//     console errors, shows the file's frame count, two frames give different screenshots,
//     scrubbing and play move the frame;
//  2. live/interactive mode against a mock server written here (npm `ws`): the page shows the
//     streamed frames and their latency, a click on a link sends a well-formed pin message, a mouse
//     drag of another link sends drag messages whose targets follow the mouse, then release, and
//     the poses the server streams back are drawn;
//  3. end to end, when this kinetrack has `serve`: the page served by `kinetrack serve
//     --interactive`, both feet pinned by clicks, the right hand dragged by the mouse: the hand
//     moves, the pinned feet stay within 1 mm; and the page served by a live `kinetrack serve`
//     fed by `kinetrack replay`: frames received, latency shown, the model moves.
// Usage: node browser_test.mjs <build/web (node_modules)> <kinetrack binary> <shared data dir> <work dir>
// Exits 77 (ctest SKIP) when chromium is absent.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { harness } from "./harness.mjs";

const { kinetrack, shared, work, require, puppeteer, chromium, check, run, finish } = harness();
const { WebSocketServer } = require("ws");

const bvh = join(shared, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
const csv = join(work, "walk_q.csv");
const dir = join(work, "walk_view");
run(["track", "--model", "human66", "--input", bvh, "--out", csv, "--quiet"]);
run(["view", "--model", "human66", "--result", csv, "--input", bvh, "--out", dir, "--quiet"]);
// The file's frame count, counted here from the joint CSV (rows after the header).
const frames = readFileSync(csv, "utf8").split("\n").filter((l) => l.trim() && !l.startsWith("#")).length - 1;

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--disable-gpu-sandbox",
         "--allow-file-access-from-files"],
});
const watch = (page) => {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
};
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

try {
  // ------------------------------------------------------------------ file mode
  const page = await browser.newPage();
  await page.setViewport({ width: 800, height: 600 });
  const errors = watch(page);
  await page.goto(pathToFileURL(join(dir, "index.html")).href);
  await page.waitForFunction(() => document.getElementById("frame-count").textContent.length > 0, { timeout: 20000 });
  const countText = await page.$eval("#frame-count", (e) => e.textContent);
  check(countText === `${frames} frames`, `the page shows the file's frame count ("${countText}", expected ${frames})`);
  const links = await page.evaluate(() => window.KINETRACK_DATA.model.links.length);
  check(links === 67, `every human66 link is drawn (${links})`);
  // The tracked BVH walk has its base near z = 0 and its feet below: the grid is drawn at the
  // lowest link origin of the result (the feet), the positions themselves untouched.
  const ground = await page.evaluate(() => {
    const p = window.kinetrackViewer.state.data.positions;
    let lowest = Infinity;
    for (let k = 2; k < p.length; k += 3) lowest = Math.min(lowest, p[k]);
    return { grid: window.kinetrackViewer.groundHeight(), lowest, pelvis: p[2] };
  });
  check(Math.abs(ground.grid - ground.lowest) < 1e-9,
        `the grid is at the feet (grid z ${ground.grid.toFixed(3)} m, lowest link ${ground.lowest.toFixed(3)} m, first pelvis z ${ground.pelvis.toFixed(3)} m)`);
  await page.evaluate(() => window.kinetrackViewer.setFrame(0));
  await settle(page);
  const first = await page.screenshot({ path: join(work, "frame_first.png") });
  await page.evaluate((n) => window.kinetrackViewer.setFrame(n - 1), frames);
  await settle(page);
  const last = await page.screenshot({ path: join(work, "frame_last.png") });
  check(Buffer.compare(first, last) !== 0, "two different frames give different screenshots");
  // The skeleton is really drawn: a frame differs from the empty scene (skeleton hidden).
  await page.evaluate(() => { window.kinetrackViewer.state.skeleton.group.visible = false; });
  await settle(page);
  const empty = await page.screenshot();
  await page.evaluate(() => { window.kinetrackViewer.state.skeleton.group.visible = true; });
  check(Buffer.compare(empty, last) !== 0, "the skeleton is visible in the screenshot");
  // Scrubbing: the timeline's input event moves the frame.
  await page.$eval("#timeline", (e) => { e.value = "100"; e.dispatchEvent(new Event("input")); });
  const scrubbed = await page.evaluate(() => window.kinetrackViewer.state.frame);
  const label = await page.$eval("#frame-label", (e) => e.textContent);
  check(scrubbed === 100 && label.startsWith(`frame 101/${frames}`), `timeline scrubbing shows frame 101 ("${label}")`);
  // Play advances frames.
  await page.evaluate(() => window.kinetrackViewer.setFrame(0));
  await page.click("#play");
  await new Promise((r) => setTimeout(r, 700));
  const played = await page.evaluate(() => window.kinetrackViewer.state.frame);
  check(played > 5, `play advances the frames (frame ${played} after 0.7 s)`);
  check(errors.length === 0, `no console errors in file mode${errors.length ? ": " + errors.join(" | ") : ""}`);
  await page.close();

  // ------------------------------------------------------------------ interactive mode (mock server)
  const links3 = [{ name: "Base", parent: -1 }, { name: "Upper", parent: 0 }, { name: "Lower", parent: 1 }, { name: "Tip", parent: 2 }];
  const pose = { Base: [0, 0, 0], Upper: [0, 0, 0.5], Lower: [0, 0, 1.0], Tip: [0, 0, 1.5] };
  const received = [];
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => server.on("listening", r));
  const pins = new Set(), drags = new Set();
  let seq = 0;
  server.on("connection", (socket) => {
    socket.send(JSON.stringify({ type: "hello", version: 1, mode: "interactive",
      model: { name: "mock", links: links3 }, joint_names: ["a", "b", "c"], rate_hz: 60 }));
    const send = () => socket.send(JSON.stringify({
      type: "frame", seq: seq++, source_time: seq / 60, latency_us: 42.5, status: "ok", q: [0, 0, 0],
      links: links3.map((l) => [...pose[l.name], 1, 0, 0, 0]), targets: [], pins: [...pins], drags: [...drags] }));
    send();
    socket.on("message", (text) => {
      const m = JSON.parse(String(text));
      received.push(m);
      if (m.type === "pin") pins.add(m.link);
      if (m.type === "unpin") pins.delete(m.link);
      if (m.type === "drag") { drags.add(m.link); pose[m.link] = m.target; }
      if (m.type === "release") drags.delete(m.link);
      send();
    });
  });
  const url = `ws://127.0.0.1:${server.address().port}`;
  const live = await browser.newPage();
  await live.setViewport({ width: 800, height: 600 });
  const liveErrors = watch(live);
  await live.goto(`${pathToFileURL(join(dir, "index.html")).href}?ws=${encodeURIComponent(url)}`);
  await live.waitForFunction(() => window.kinetrackViewer.state.received > 0, { timeout: 20000 });
  await settle(live);
  const mode = await live.evaluate(() => window.kinetrackViewer.state.mode);
  check(mode === "interactive", `the hello switches the page to interactive mode (${mode})`);
  const latency = await live.$eval("#latency", (e) => e.textContent);
  check(latency.includes("42.5"), `the frame's latency is shown ("${latency}")`);

  const at = (name) => live.evaluate((n) => window.kinetrackViewer.linkScreenPosition(n), name);
  // Click on Upper: pin.
  const upper = await at("Upper");
  await live.mouse.click(upper.x, upper.y);
  await new Promise((r) => setTimeout(r, 300));
  const pin = received.find((m) => m.type === "pin");
  check(pin && pin.link === "Upper" && Object.keys(pin).length === 2, `a click on a link sends {"type":"pin","link":"Upper"} (${JSON.stringify(pin)})`);
  // Drag Tip 80 px to the right and 40 px up.
  const tip = await at("Tip");
  const before = await live.evaluate(() => window.kinetrackViewer.linkWorldPosition("Tip"));
  await live.mouse.move(tip.x, tip.y);
  await live.mouse.down();
  for (let k = 1; k <= 8; ++k) await live.mouse.move(tip.x + 10 * k, tip.y - 5 * k);
  await live.mouse.up();
  await new Promise((r) => setTimeout(r, 400));
  await settle(live);
  const dragMsgs = received.filter((m) => m.type === "drag");
  const wellFormed = dragMsgs.length > 0 && dragMsgs.every((m) => m.link === "Tip" && Array.isArray(m.target) &&
    m.target.length === 3 && m.target.every(Number.isFinite) && Object.keys(m).length === 3);
  check(wellFormed, `dragging a link sends well-formed drag messages (${dragMsgs.length}: ${JSON.stringify(dragMsgs.at(-1))})`);
  const release = received.at(-1);
  check(release && release.type === "release" && release.link === "Tip", `the mouse release sends release (${JSON.stringify(release)})`);
  check(!received.some((m) => m.type === "pin" && m.link === "Tip"), "a drag does not pin the dragged link");
  // The targets follow the mouse: rightwards on screen, so they move away from the start point.
  const lastTarget = dragMsgs.at(-1)?.target ?? before;
  const moved = Math.hypot(lastTarget[0] - before[0], lastTarget[1] - before[1], lastTarget[2] - before[2]);
  check(moved > 0.05, `the drag target moved with the mouse (${moved.toFixed(3)} m)`);
  const drawn = await live.evaluate(() => window.kinetrackViewer.linkWorldPosition("Tip"));
  const drawnErr = Math.hypot(...drawn.map((v, i) => v - lastTarget[i]));
  check(drawnErr < 1e-6, `the page draws the pose the server streamed back (|Δ| = ${drawnErr.toExponential(1)} m)`);
  await live.screenshot({ path: join(work, "interactive.png") });
  check(liveErrors.length === 0, `no console errors in interactive mode${liveErrors.length ? ": " + liveErrors.join(" | ") : ""}`);
  await live.close();
  server.close();
  // ------------------------------------------------------------------ end to end with kinetrack serve
  const serveHelp = spawnSync(kinetrack, ["serve", "--help"], { encoding: "utf8" });
  if (serveHelp.status !== 0 || !serveHelp.stdout.includes("--interactive")) {
    console.log("skip end-to-end: this kinetrack has no `serve` command");
  } else {
    await endToEnd();
    await liveEndToEnd();
  }
} finally {
  await browser.close();
}

// Starts `kinetrack serve ARGS --port 0 --http-root <viewer dir>`; resolves to {server, port, out}
// once it printed its WebSocket address (port undefined when it did not within 30 s).
async function startServe(args) {
  const server = spawn(kinetrack, ["serve", ...args, "--host", "127.0.0.1", "--port", "0", "--http-root", dir,
                                   "--duration", "120"], { stdio: ["ignore", "pipe", "pipe"] });
  const log = { out: "", err: "" };
  server.stdout.on("data", (d) => { log.out += d; });
  server.stderr.on("data", (d) => { log.err += d; });
  const deadline = Date.now() + 30000;
  while (!/ws:\/\/127\.0\.0\.1:(\d+)/.test(log.out) && Date.now() < deadline && server.exitCode === null) {
    await new Promise((r) => setTimeout(r, 100));
  }
  return { server, log, port: /ws:\/\/127\.0\.0\.1:(\d+)/.exec(log.out)?.[1], udp: /MXTP UDP 127\.0\.0\.1:(\d+)/.exec(log.out)?.[1] };
}

async function stopServe(server) {
  server.kill("SIGINT");
  await new Promise((r) => (server.exitCode !== null ? r() : server.on("exit", r)));
  check(server.exitCode === 0, `kinetrack serve stops cleanly on SIGINT (exit ${server.exitCode})`);
}

// `kinetrack serve` (live) fed by `kinetrack replay` of an MVNX capture: the page served by it shows
// the stream, the number of frames received and their latency.
async function liveEndToEnd() {
  const mvnx = join(shared, "data/mvnx/test_mocap.mvnx");
  const { server, log, port, udp } = await startServe(["--layout", mvnx, "--udp-port", "0"]);
  try {
    check(port !== undefined && udp !== undefined, `kinetrack serve (live) starts (${log.out.trim()}${log.err.trim()})`);
    if (!port || !udp) return;
    const page = await browser.newPage();
    await page.setViewport({ width: 900, height: 700 });
    const errors = watch(page);
    await page.goto(`http://127.0.0.1:${port}/?ws=auto`);
    await page.waitForFunction(() => window.kinetrackViewer.state.skeleton !== null, { timeout: 30000 });
    const replay = spawn(kinetrack, ["replay", "--input", mvnx, "--to", `127.0.0.1:${udp}`, "--rate", "60", "--loops", "2",
                                     "--quiet"], { stdio: "ignore" });
    // Sample the drawn right hand while the capture streams (a seated performance: tracked from
    // the file, its hand moves up to 1.6 cm from the first frame).
    await page.waitForFunction(() => window.kinetrackViewer.state.received >= 1, { timeout: 30000 });
    const samples = [];
    const until = Date.now() + 30000;
    while (replay.exitCode === null && Date.now() < until) {
      const p = await page.evaluate(() => window.kinetrackViewer.linkWorldPosition("RightHand"));
      if (p) samples.push(p);
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => (replay.exitCode !== null ? r() : replay.on("exit", r)));
    // The server's stats arrive once a second: wait for one sent after the stream ended.
    await new Promise((r) => setTimeout(r, 1500));
    await settle(page);
    const mode = await page.evaluate(() => window.kinetrackViewer.state.mode);
    const received = await page.evaluate(() => window.kinetrackViewer.state.received);
    const shown = await page.$eval("#frame-count", (e) => e.textContent);
    const stats = await page.$eval("#status", (e) => e.textContent);
    const tracked = Number(/([0-9]+) frames,/.exec(stats)?.[1]);
    const queueDrops = Number(/([0-9]+) dropped/.exec(stats)?.[1]);
    const latency = await page.$eval("#latency", (e) => e.textContent);
    await page.screenshot({ path: join(work, "serve_live.png") });
    check(mode === "live", `the served page is in live mode (${mode})`);
    check(replay.exitCode === 0, `kinetrack replay sent the capture twice (exit ${replay.exitCode})`);
    check(shown.startsWith(`${received} frames received`), `the page shows the frames received ("${shown}")`);
    // A slow page (a sanitizer build on two cores) may fall behind: the server then drops frames
    // from its bounded client queue and says so; every frame is either drawn or counted dropped.
    check(tracked >= 200 && received + queueDrops >= tracked,
          `the server tracked the stream and every frame reached the page or was reported dropped ` +
          `(${tracked} tracked of 2 × 112 sent, ${received} drawn, ${queueDrops} dropped: "${stats}")`);
    const us = Number(/latency ([0-9.]+) µs/.exec(latency)?.[1]);
    check(Number.isFinite(us) && us > 0, `the stream's latency is shown ("${latency}")`);
    // The diagonal of the box the drawn hand swept (the second loop is sampled whole).
    const lo = [0, 1, 2].map((k) => Math.min(...samples.map((p) => p[k])));
    const hi = [0, 1, 2].map((k) => Math.max(...samples.map((p) => p[k])));
    const moved = Math.hypot(...hi.map((v, k) => v - lo[k]));
    check(moved > 5e-3, `the streamed motion moves the model (right hand swept a ${moved.toFixed(3)} m box diagonal, ${samples.length} samples)`);
    check(errors.length === 0, `no console errors in live mode${errors.length ? ": " + errors.join(" | ") : ""}`);
    await page.close();
  } finally {
    await stopServe(server);
  }
}

// `kinetrack serve --interactive` serving the page (--http-root): pin both feet with clicks, drag
// the right hand with the mouse; the hand follows, the pinned feet stay.
async function endToEnd() {
  const { server, log, port } = await startServe(["--interactive", "--model", "human66"]);
  try {
    check(port !== undefined, `kinetrack serve --interactive starts (${log.out.trim()}${log.err.trim()})`);
    if (!port) return;
    const page = await browser.newPage();
    await page.setViewport({ width: 900, height: 700 });
    const errors = watch(page);
    await page.goto(`http://127.0.0.1:${port}/?ws=auto`);
    await page.waitForFunction(() => window.kinetrackViewer.state.received > 3, { timeout: 30000 });
    check(await page.evaluate(() => window.kinetrackViewer.state.mode) === "interactive", "the served page is in interactive mode");
    await settle(page);
    const world = (name) => page.evaluate((n) => window.kinetrackViewer.linkWorldPosition(n), name);
    const screen = (name) => page.evaluate((n) => window.kinetrackViewer.linkScreenPosition(n), name);
    const pinsOf = () => page.evaluate(() => [...window.kinetrackViewer.state.skeleton.pinned]);
    const wait = (ms) => new Promise((r) => setTimeout(r, ms));
    for (const foot of ["LeftFoot", "RightFoot"]) {
      const p = await screen(foot);
      await page.mouse.click(p.x, p.y);
      await wait(300);
    }
    await wait(500);
    const pins = await pinsOf();
    check(pins.includes("LeftFoot") && pins.includes("RightFoot"), `clicks pin both feet (server's pins: ${JSON.stringify(pins)})`);
    const feet0 = [await world("LeftFoot"), await world("RightFoot")];
    const hand0 = await world("RightHand");
    const h = await screen("RightHand");
    await page.mouse.move(h.x, h.y);
    await page.mouse.down();
    for (let k = 1; k <= 10; ++k) {
      await page.mouse.move(h.x + 6 * k, h.y - 6 * k);
      await wait(50);
    }
    await wait(1500); // the server converges on the last target
    const hand1 = await world("RightHand");
    const feet1 = [await world("LeftFoot"), await world("RightFoot")];
    await page.screenshot({ path: join(work, "serve_interactive.png") });
    await page.mouse.up();
    const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    check(dist(hand0, hand1) > 0.05, `the dragged hand moved ${dist(hand0, hand1).toFixed(3)} m`);
    const footMove = Math.max(dist(feet0[0], feet1[0]), dist(feet0[1], feet1[1]));
    check(footMove < 1e-3, `the pinned feet stayed (largest move ${footMove.toExponential(2)} m)`);
    check(errors.length === 0, `no console errors end to end${errors.length ? ": " + errors.join(" | ") : ""}`);
    await page.close();
  } finally {
    await stopServe(server);
  }
}
finish();
