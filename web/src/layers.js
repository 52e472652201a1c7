// The layers drawn over the model, all computed by kinetrack (kinetrack/viewer/layers.hpp): muscle
// paths coloured by activation or force, measured and model markers with their error, external
// forces as arrows at their point, the centre of mass, the feet in contact. Each layer is a group
// the page toggles; setFrame(i) moves it to frame i. Coordinates are the model's world.
import * as THREE from "three";
import { LineSegments2 } from "three/examples/jsm/lines/LineSegments2.js";
import { LineSegmentsGeometry } from "three/examples/jsm/lines/LineSegmentsGeometry.js";
import { LineMaterial } from "three/examples/jsm/lines/LineMaterial.js";

const GREY = new THREE.Color(0x8a8f98);
const LOW = new THREE.Color(0x3060ff), MIDC = new THREE.Color(0xf5e050), HIGH = new THREE.Color(0xff2a20);

/// Activation colour: blue (0) → yellow → red (1), as OpenSim's GUI shades muscles.
export function valueColour(t, out) {
  if (!Number.isFinite(t)) return out.copy(GREY);
  t = Math.min(Math.max(t, 0), 1);
  return t < 0.5 ? out.copy(LOW).lerp(MIDC, t * 2) : out.copy(MIDC).lerp(HIGH, (t - 0.5) * 2);
}

const lineMaterials = new Set();
export function setLineResolution(w, h) { for (const m of lineMaterials) m.resolution.set(w, h); }

/// Coloured segments `width` pixels wide, updated in place every frame: the buffers grow only
/// when a frame needs more segments than any before.
class FatSegments {
  constructor(parent, width) {
    const material = new LineMaterial({ linewidth: width, vertexColors: true, worldUnits: false });
    material.resolution.set(window.innerWidth, window.innerHeight);
    lineMaterials.add(material);
    this.lines = new LineSegments2(new LineSegmentsGeometry(), material);
    this.lines.frustumCulled = false;
    parent.add(this.lines);
    this.capacity = 0;
    this.count = 0;
  }

  /// Room for `n` segments; `positions` and `colours` (6 floats a segment) are then written.
  reserve(n) {
    if (n <= this.capacity) return;
    this.capacity = Math.max(n, 2 * this.capacity, 16);
    this.lines.geometry.dispose();
    const g = new LineSegmentsGeometry();
    g.setPositions(new Float32Array(this.capacity * 6));
    g.setColors(new Float32Array(this.capacity * 6));
    this.lines.geometry = g;
    this.positions = g.attributes.instanceStart.data.array;
    this.colours = g.attributes.instanceColorStart.data.array;
  }

  /// Draws the first `k` segments written.
  commit(k) {
    const g = this.lines.geometry;
    this.count = k;
    g.instanceCount = k;
    g.attributes.instanceStart.data.needsUpdate = true;
    g.attributes.instanceColorStart.data.needsUpdate = true;
  }
}

export class MuscleLayer {
  constructor(parent, data) {
    this.info = data.muscles;
    this.points = data["muscles.points"];
    this.count = data["muscles.count"];
    this.values = data["muscles.values"] || null;
    this.group = new THREE.Group();
    this.group.name = "muscles";
    parent.add(this.group);
    this.lines = new FatSegments(this.group, 2.5);
    this.lines.reserve(this.info.capacity.reduce((a, c) => a + Math.max(c - 1, 0), 0));
    this.colour = new THREE.Color();
  }

  get segments() { return this.lines.count; }

  setFrame(i) {
    const { names, slots, first } = this.info;
    const nm = names.length;
    const positions = this.lines.positions, colours = this.lines.colours;
    let k = 0;
    for (let m = 0; m < nm; ++m) {
      const n = this.count[i * nm + m];
      const v = this.values ? this.values[i * nm + m] / this.info.scale : NaN;
      valueColour(v, this.colour);
      for (let s = 0; s + 1 < n; ++s, ++k) {
        const a = (i * slots + first[m] + s) * 3;
        for (let c = 0; c < 6; ++c) positions[k * 6 + c] = this.points[a + c];
        for (let c = 0; c < 2; ++c) this.colour.toArray(colours, k * 6 + 3 * c);
      }
    }
    this.lines.commit(k);
  }

  /// The value of muscle `name` over the clip (for the chart).
  series(name) {
    const m = this.info.names.indexOf(name);
    if (m < 0 || !this.values) return null;
    const nm = this.info.names.length, frames = this.count.length / nm;
    const out = new Float32Array(frames);
    for (let i = 0; i < frames; ++i) out[i] = this.values[i * nm + m];
    return out;
  }
}

/// Muscle paths streamed by `kinetrack serve` (frame.muscles: per muscle its path as flat x, y, z),
/// drawn in one muscle colour: a live stream carries no activations.
export class LiveMuscleLayer {
  constructor(parent, names) {
    this.info = { names };
    this.values = null;
    this.group = new THREE.Group();
    this.group.name = "muscles";
    parent.add(this.group);
    this.lines = new FatSegments(this.group, 2.5);
    this.colour = new THREE.Color(0xd8504a);
  }

  get segments() { return this.lines.count; }

  setPaths(paths) {
    let n = 0;
    for (const p of paths) n += Math.max(p.length / 3 - 1, 0);
    this.lines.reserve(n);
    const positions = this.lines.positions, colours = this.lines.colours;
    let k = 0;
    for (const p of paths) {
      for (let s = 0; s + 5 < p.length; s += 3, ++k) {
        for (let c = 0; c < 6; ++c) positions[k * 6 + c] = p[s + c];
        for (let c = 0; c < 2; ++c) this.colour.toArray(colours, k * 6 + 3 * c);
      }
    }
    this.lines.commit(k);
  }

  setFrame() {}
}

function instanced(parent, count, radius, colour) {
  const mesh = new THREE.InstancedMesh(new THREE.SphereGeometry(radius, 12, 8),
    new THREE.MeshLambertMaterial({ color: colour }), Math.max(count, 1));
  mesh.frustumCulled = false;
  parent.add(mesh);
  return mesh;
}

const matrix = new THREE.Matrix4(), hidden = new THREE.Matrix4().makeScale(0, 0, 0);

export class MarkerLayer {
  constructor(parent, data) {
    this.info = data.markers;
    this.measured = data["markers.measured"];
    this.model = data["markers.model"];
    this.group = new THREE.Group();
    this.group.name = "markers";
    parent.add(this.group);
    const n = this.info.names.length;
    this.measuredMesh = instanced(this.group, n, 0.012, 0x37a0ff);
    this.modelMesh = instanced(this.group, n, 0.009, 0xff66cc);
    this.errorGeometry = new THREE.BufferGeometry();
    this.errorGeometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(n * 6), 3));
    this.errorLines = new THREE.LineSegments(this.errorGeometry, new THREE.LineBasicMaterial({ color: 0xffd23f }));
    this.errorLines.frustumCulled = false;
    this.group.add(this.errorLines);
    this.shown = { measured: 0, model: 0, errors: 0 };
  }

  setFrame(i) {
    const n = this.info.names.length;
    const attr = this.errorGeometry.getAttribute("position");
    let e = 0, a = 0, b = 0;
    for (let m = 0; m < n; ++m) {
      const k = (i * n + m) * 3;
      const p = this.measured, q = this.model;
      const hasP = Number.isFinite(p[k]), hasQ = Number.isFinite(q[k]);
      this.measuredMesh.setMatrixAt(m, hasP ? matrix.makeTranslation(p[k], p[k + 1], p[k + 2]) : hidden);
      this.modelMesh.setMatrixAt(m, hasQ ? matrix.makeTranslation(q[k], q[k + 1], q[k + 2]) : hidden);
      a += hasP; b += hasQ;
      if (hasP && hasQ) {
        attr.setXYZ(2 * e, p[k], p[k + 1], p[k + 2]);
        attr.setXYZ(2 * e + 1, q[k], q[k + 1], q[k + 2]);
        ++e;
      }
    }
    this.errorGeometry.setDrawRange(0, 2 * e);
    attr.needsUpdate = true;
    this.measuredMesh.instanceMatrix.needsUpdate = true;
    this.modelMesh.instanceMatrix.needsUpdate = true;
    this.shown = { measured: a, model: b, errors: e };
  }
}

/// A solid arrow along +y of length 1 (shaft and head), drawn over the bodies so that a force
/// under a foot stays visible.
function arrowMesh(colour) {
  const material = new THREE.MeshBasicMaterial({ color: colour, depthTest: false, transparent: true, opacity: 0.95 });
  const group = new THREE.Group();
  const shaft = new THREE.Mesh(new THREE.CylinderGeometry(0.008, 0.008, 1, 10).translate(0, 0.5, 0), material);
  const head = new THREE.Mesh(new THREE.ConeGeometry(0.025, 1, 14).translate(0, -0.5, 0), material);
  shaft.renderOrder = head.renderOrder = 10;
  group.add(shaft, head);
  group.userData = { shaft, head };
  return group;
}

const Y = new THREE.Vector3(0, 1, 0);

export class ForceLayer {
  /// Arrows scaled so that the largest force of the clip is 1 m long.
  constructor(parent, data) {
    this.info = data.forces;
    this.point = data["forces.point"];
    this.force = data["forces.force"];
    this.group = new THREE.Group();
    this.group.name = "forces";
    parent.add(this.group);
    this.scale = this.info.max_force > 0 ? 1.0 / this.info.max_force : 1e-3;
    this.arrows = this.info.names.map(() => {
      const a = arrowMesh(0x2ee86b);
      this.group.add(a);
      return a;
    });
    this.shown = 0;
    this.dir = new THREE.Vector3();
  }

  setFrame(i) {
    const n = this.info.names.length;
    this.shown = 0;
    this.arrows.forEach((arrow, k) => {
      const j = (i * n + k) * 3;
      const f = this.force, p = this.point;
      this.dir.set(f[j], f[j + 1], f[j + 2]);
      const magnitude = this.dir.length();
      const on = Number.isFinite(magnitude) && magnitude > 5 && Number.isFinite(p[j]);
      arrow.visible = on;
      if (!on) return;
      const length = Math.max(magnitude * this.scale, 0.05), headLength = Math.min(0.08, 0.3 * length);
      arrow.position.set(p[j], p[j + 1], p[j + 2]);
      arrow.quaternion.setFromUnitVectors(Y, this.dir.divideScalar(magnitude));
      arrow.userData.shaft.scale.set(1, length - headLength, 1);
      arrow.userData.head.scale.set(1, headLength, 1);
      arrow.userData.head.position.set(0, length, 0);
      this.shown += 1;
    });
  }

  series(k) {
    const n = this.info.names.length, frames = this.force.length / 3 / n;
    const out = new Float32Array(frames);
    for (let i = 0; i < frames; ++i) {
      const j = (i * n + k) * 3;
      out[i] = Math.hypot(this.force[j], this.force[j + 1], this.force[j + 2]);
    }
    return out;
  }
}

/// The centre of mass (a yellow ball and its drop line to the ground) and the feet in contact
/// (a green disc on the ground under each).
export class BodyLayer {
  constructor(parent, data, up, groundHeight) {
    this.info = data.body;
    this.com = data["body.com"] || null;
    this.contact = data["body.contact"];
    this.positions = data.positions;
    this.links = data.model.links.length;
    this.up = new THREE.Vector3().fromArray(up || [0, 0, 1]).normalize();
    this.ground = groundHeight;
    this.comGroup = new THREE.Group();
    this.comGroup.name = "com";
    this.contactGroup = new THREE.Group();
    this.contactGroup.name = "contact";
    parent.add(this.comGroup, this.contactGroup);
    this.ball = new THREE.Mesh(new THREE.SphereGeometry(0.035, 20, 14),
      new THREE.MeshLambertMaterial({ color: 0xffc400, emissive: 0x402800 }));
    this.drop = new THREE.Line(new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]),
      new THREE.LineDashedMaterial({ color: 0xffc400, dashSize: 0.03, gapSize: 0.02 }));
    this.comGroup.add(this.ball, this.drop);
    this.comGroup.visible = !!this.com;
    const disc = new THREE.CircleGeometry(0.07, 24);
    const discMaterial = new THREE.MeshBasicMaterial({ color: 0x2ee86b, transparent: true, opacity: 0.55, side: THREE.DoubleSide });
    const q = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), this.up);
    this.discs = this.info.feet.map(() => {
      const d = new THREE.Mesh(disc, discMaterial);
      d.quaternion.copy(q);
      this.contactGroup.add(d);
      return d;
    });
    this.inContact = 0;
  }

  setFrame(i) {
    const onGround = (p) => p.addScaledVector(this.up, this.ground - p.dot(this.up) + 0.002);
    if (this.com) {
      const c = new THREE.Vector3(this.com[3 * i], this.com[3 * i + 1], this.com[3 * i + 2]);
      this.ball.position.copy(c);
      const attr = this.drop.geometry.getAttribute("position");
      const g = onGround(c.clone());
      attr.setXYZ(0, c.x, c.y, c.z);
      attr.setXYZ(1, g.x, g.y, g.z);
      attr.needsUpdate = true;
      this.drop.computeLineDistances();
    }
    const nk = this.info.feet.length;
    this.inContact = 0;
    this.discs.forEach((d, k) => {
      const on = !!this.contact[i * nk + k];
      d.visible = on;
      if (!on) return;
      const l = this.info.feet[k], j = (i * this.links + l) * 3;
      d.position.copy(onGround(new THREE.Vector3(this.positions[j], this.positions[j + 1], this.positions[j + 2])));
      this.inContact += 1;
    });
  }
}
