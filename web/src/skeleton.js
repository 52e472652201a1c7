// The model drawn as capsules: a sphere at every link origin and a cylinder from each link's
// parent origin to its own, coloured by target error (file mode) or role (pinned blue, dragged
// orange, interactive mode); the input capture as small spheres joined by lines; targets as
// rings.
import * as THREE from "three";

const UP = new THREE.Vector3(0, 1, 0);
const BASE = new THREE.Color(0xb8bec8);
const PIN = new THREE.Color(0x3d8bfd);
const DRAG = new THREE.Color(0xff8c1a);
const GOOD = new THREE.Color(0x2ecc40), MID = new THREE.Color(0xffdc00), BAD = new THREE.Color(0xff4136);

export function errorColour(value, scale, out) {
  const t = Math.min(Math.max(value / scale, 0), 1);
  return t < 0.5 ? out.copy(GOOD).lerp(MID, t * 2) : out.copy(MID).lerp(BAD, (t - 0.5) * 2);
}

export class Skeleton {
  /// slides: indices of links moved by a prismatic joint (no bone to them).
  /// colour: the base colour (a companion model is drawn in another).
  constructor(scene, links, slides = [], colour = null) {
    this.scene = scene;
    this.links = links;
    this.index = new Map(links.map((l, i) => [l.name, i]));
    this.group = new THREE.Group();
    scene.add(this.group);
    this.positions = links.map(() => new THREE.Vector3());
    this.joints = [];
    this.bones = [];
    this.pinned = new Set();
    this.dragged = new Set();
    this.colours = links.map(() => BASE.clone());
    const sphere = new THREE.SphereGeometry(0.022, 16, 12);
    const cylinder = new THREE.CylinderGeometry(0.018, 0.018, 1, 12, 1);
    links.forEach((link, i) => {
      const joint = new THREE.Mesh(sphere, new THREE.MeshLambertMaterial({ color: colour || BASE }));
      joint.userData.link = link.name;
      this.group.add(joint);
      this.joints.push(joint);
      let bone = null;
      if (link.parent >= 0 && !slides.includes(i)) {
        bone = new THREE.Mesh(cylinder, joint.material);
        bone.userData.link = link.name;
        this.group.add(bone);
      }
      this.bones.push(bone);
    });
    this.inputGroup = new THREE.Group();
    scene.add(this.inputGroup);
    this.targetGroup = new THREE.Group();
    scene.add(this.targetGroup);
  }

  dispose() {
    this.scene.remove(this.group, this.inputGroup, this.targetGroup);
  }

  /// positions: flat [x,y,z] per link, from `offset`.
  setPositions(flat, offset) {
    this.positions.forEach((p, i) => p.set(flat[offset + 3 * i], flat[offset + 3 * i + 1], flat[offset + 3 * i + 2]));
    this.update();
  }

  /// poses: [x,y,z,qw,qx,qy,qz] per link (the protocol's frame.links).
  setPoses(poses) {
    poses.forEach((pose, i) => { if (i < this.positions.length) this.positions[i].set(pose[0], pose[1], pose[2]); });
    this.update();
  }

  update() {
    const dir = new THREE.Vector3();
    this.links.forEach((link, i) => {
      this.joints[i].position.copy(this.positions[i]);
      const bone = this.bones[i];
      if (!bone) return;
      const a = this.positions[link.parent], b = this.positions[i];
      dir.subVectors(b, a);
      const length = dir.length();
      bone.visible = length > 1e-5;
      if (!bone.visible) return;
      bone.position.addVectors(a, b).multiplyScalar(0.5);
      bone.quaternion.setFromUnitVectors(UP, dir.divideScalar(length));
      bone.scale.set(1, length, 1);
    });
  }

  /// errors: one value per link from `offset` (negative: the link has no target).
  setErrors(errors, offset, scale) {
    this.links.forEach((_, i) => {
      const e = errors[offset + i];
      const material = this.joints[i].material;
      if (e < 0) material.color.copy(BASE);
      else errorColour(e, scale, material.color);
    });
  }

  setInputSkeleton(segments) {
    this.inputSegments = segments;
    const geometry = new THREE.SphereGeometry(0.016, 10, 8);
    const material = new THREE.MeshBasicMaterial({ color: 0xff66cc });
    this.inputMarkers = segments.map(() => {
      const m = new THREE.Mesh(geometry, material);
      this.inputGroup.add(m);
      return m;
    });
    const pairs = segments.filter((s) => s.parent >= 0).length;
    this.inputLineGeometry = new THREE.BufferGeometry();
    this.inputLineGeometry.setAttribute("position", new THREE.BufferAttribute(new Float32Array(pairs * 6), 3));
    this.inputGroup.add(new THREE.LineSegments(this.inputLineGeometry, new THREE.LineBasicMaterial({ color: 0xff66cc })));
  }

  /// Input capture segment positions (flat xyz from `offset`) and validity (from `validOffset`).
  setInput(flat, offset, valid, validOffset) {
    if (!this.inputMarkers) return;
    const attr = this.inputLineGeometry.getAttribute("position");
    let k = 0;
    this.inputSegments.forEach((s, i) => {
      const ok = !valid || valid[validOffset + i];
      this.inputMarkers[i].visible = !!ok;
      this.inputMarkers[i].position.set(flat[offset + 3 * i], flat[offset + 3 * i + 1], flat[offset + 3 * i + 2]);
      if (s.parent < 0) return;
      const p = this.inputMarkers[s.parent].position, c = this.inputMarkers[i].position;
      attr.setXYZ(k++, p.x, p.y, p.z);
      attr.setXYZ(k++, c.x, c.y, c.z);
    });
    attr.needsUpdate = true;
    this.inputLineGeometry.computeBoundingSphere();
  }

  showSkeleton(visible) { this.group.visible = visible; }

  /// The input capture (file mode) and the streamed targets (live mode).
  showInput(visible) {
    this.inputGroup.visible = visible;
    this.targetGroup.visible = visible;
  }

  /// targets: [{link, p:[x,y,z]}] (protocol frame.targets).
  setTargets(targets) {
    while (this.targetGroup.children.length < targets.length) {
      this.targetGroup.add(new THREE.Mesh(new THREE.OctahedronGeometry(0.03), new THREE.MeshBasicMaterial({ color: 0xff66cc, wireframe: true })));
    }
    this.targetGroup.children.forEach((m, i) => {
      m.visible = i < targets.length;
      if (m.visible) m.position.fromArray(targets[i].p);
    });
  }

  /// Roles in interactive mode: pinned links blue, dragged links orange.
  setRoles(pins, drags) {
    this.pinned = new Set(pins);
    this.dragged = new Set(drags);
    this.paintRoles();
  }

  setPinnedLocally(name, pinned) {
    if (pinned) this.pinned.add(name); else this.pinned.delete(name);
    this.paintRoles();
  }

  isPinned(name) { return this.pinned.has(name); }

  paintRoles() {
    this.links.forEach((link, i) => {
      const c = this.dragged.has(link.name) ? DRAG : this.pinned.has(link.name) ? PIN : BASE;
      this.joints[i].material.color.copy(c);
      this.joints[i].scale.setScalar(c === BASE ? 1 : 1.6);
    });
  }

  linkPosition(name) {
    const i = this.index.get(name);
    return i === undefined ? null : this.positions[i].clone();
  }

  /// The link under a ray: a joint sphere, else a bone (belongs to its child link). Links drawn
  /// at the same point (the massless links of a multi-DoF joint, "X_f1", "X_f2", "X") resolve to
  /// the last of them in model order, the segment itself.
  pick(raycaster) {
    const hits = raycaster.intersectObjects(this.group.children, false).filter((h) => h.object.visible);
    if (hits.length === 0) return null;
    const sphere = hits.find((h) => h.object.geometry.type === "SphereGeometry");
    const name = (sphere || hits[0]).object.userData.link;
    const at = this.positions[this.index.get(name)];
    let best = this.index.get(name);
    this.positions.forEach((p, i) => { if (i > best && p.distanceTo(at) < 1e-6) best = i; });
    return this.links[best].name;
  }

  /// The centre of the links' bounding box, the root left out when there are others (a fixed
  /// root is the world's origin, e.g. an OpenSim model's ground).
  center() {
    const box = new THREE.Box3().setFromPoints(this.positions.length > 1 ? this.positions.slice(1) : this.positions);
    return box.getCenter(new THREE.Vector3());
  }
}
