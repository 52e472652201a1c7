// The model's visual geometry: one group per link, moved to the link's pose every frame, holding
// its meshes (URDF/MJCF meshes, OpenSim bones) and primitives, placed and scaled as the model
// file says. The page draws the poses kinetrack computed; it has no kinematics of its own.
import * as THREE from "three";

function primitive(g) {
  const [a, b, c] = g.size;
  switch (g.shape) {
    case "sphere": return new THREE.SphereGeometry(a, 20, 14);
    case "ellipsoid": { const s = new THREE.SphereGeometry(1, 20, 14); s.scale(a, b, c); return s; }
    case "box": return new THREE.BoxGeometry(2 * a, 2 * b, 2 * c);
    case "cylinder": return new THREE.CylinderGeometry(a, a, 2 * b, 20).rotateX(Math.PI / 2); // axis z
    case "capsule": return new THREE.CapsuleGeometry(a, 2 * b, 6, 16).rotateX(Math.PI / 2);
    default: return null;
  }
}

export class ModelGeometry {
  constructor(parent, links, geometry) {
    this.group = new THREE.Group();
    this.group.name = "geometry";
    parent.add(this.group);
    this.linkGroups = links.map((l) => {
      const g = new THREE.Group();
      g.userData.link = l.name;
      this.group.add(g);
      return g;
    });
    const buffers = geometry.meshes.map((m) => {
      const b = new THREE.BufferGeometry();
      b.setAttribute("position", new THREE.BufferAttribute(m.vertices, 3));
      b.setIndex(new THREE.BufferAttribute(m.indices, 1));
      b.computeVertexNormals();
      return b;
    });
    this.count = 0;
    this.triangles = 0;
    for (const g of geometry.geoms) {
      const shape = g.mesh >= 0 ? buffers[g.mesh] : primitive(g);
      if (!shape || !this.linkGroups[g.link]) continue;
      const [r, gr, b, a] = g.rgba;
      // Lambert: a third of the standard material's cost in a software renderer, and bones and
      // robot shells look the same under the page's two lights.
      const material = new THREE.MeshLambertMaterial({
        color: new THREE.Color(r, gr, b),
        transparent: a < 1, opacity: a, side: THREE.FrontSide, // closed meshes: their back faces are never seen
      });
      const mesh = new THREE.Mesh(shape, material);
      mesh.position.fromArray(g.position);
      mesh.quaternion.fromArray(g.quaternion);
      if (g.mesh >= 0) mesh.scale.fromArray(g.size);
      mesh.userData.link = links[g.link].name;
      mesh.userData.geom = g.name;
      this.linkGroups[g.link].add(mesh);
      this.count += 1;
      this.triangles += (shape.index ? shape.index.count : shape.attributes.position.count) / 3;
    }
  }

  /// positions (xyz) and orientations (xyzw) of every link, from link offset `first`.
  setPoses(positions, orientations, first) {
    this.linkGroups.forEach((g, i) => {
      const k = first + i;
      g.position.set(positions[3 * k], positions[3 * k + 1], positions[3 * k + 2]);
      g.quaternion.set(orientations[4 * k], orientations[4 * k + 1], orientations[4 * k + 2], orientations[4 * k + 3]);
    });
  }

  /// poses: [x,y,z,qw,qx,qy,qz] per link (the streaming protocol's frame.links).
  setProtocolPoses(poses) {
    poses.forEach((p, i) => {
      const g = this.linkGroups[i];
      if (!g) return;
      g.position.set(p[0], p[1], p[2]);
      g.quaternion.set(p[4], p[5], p[6], p[3]);
    });
  }

  set visible(v) { this.group.visible = v; }
  get visible() { return this.group.visible; }

  dispose(parent) { parent.remove(this.group); }
}
