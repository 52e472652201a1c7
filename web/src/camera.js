// Camera and ground helpers of the page: fitting a box into the view, presets, the ground height.
import * as THREE from "three";

/// Turns `camera` (orbiting `controls.target`) to see `box` whole: the orbit centre at its centre,
/// the distance so that its bounding sphere fills the view (small robots and tall people alike).
export function fitBox(camera, controls, box) {
  if (box.isEmpty()) return;
  const sphere = box.getBoundingSphere(new THREE.Sphere());
  const radius = Math.max(sphere.radius, 0.05);
  const halfFov = Math.min(camera.fov, camera.fov * camera.aspect) * Math.PI / 360;
  const distance = radius / Math.sin(halfFov) * 1.1;
  const dir = camera.position.clone().sub(controls.target).normalize();
  controls.target.copy(sphere.center);
  camera.position.copy(sphere.center).addScaledVector(dir, distance);
  camera.near = Math.max(distance / 200, 0.001);
  camera.far = distance * 50 + 50;
  camera.updateProjectionMatrix();
  controls.update();
}

/// Camera presets, looking at the orbit centre: front (from +x), side (from the model's left), top, 3/4.
export function cameraPreset(camera, controls, name) {
  const dirs = { front: [1, 0, 0.15], side: [0, 1, 0.15], top: [0.001, 0, 1], iso: [1, -1, 0.6] };
  if (!dirs[name]) return;
  const d = controls.target.distanceTo(camera.position);
  const dir = new THREE.Vector3().fromArray(dirs[name]).normalize();
  camera.position.copy(controls.target).addScaledVector(dir, d);
  controls.update();
}

// The ground: the lowest link origin of `positions` (flat x, y, z triples) along the model's up
// direction. Trackers place the base where the input says (BVH and target files often at z = 0
// with the feet below), so the grid is drawn at the feet rather than at z = 0; positions stay the
// tracker's world coordinates. Returns {height, frame} (the frame of the lowest point).
export function groundOf(positions, up, linksPerFrame) {
  const u = up || [0, 0, 1];
  let h = Infinity, at = 0;
  for (let k = 0; k + 2 < positions.length; k += 3) {
    const v = positions[k] * u[0] + positions[k + 1] * u[1] + positions[k + 2] * u[2];
    if (Number.isFinite(v) && v < h) { h = v; at = k; }
  }
  return Number.isFinite(h) ? { height: h, frame: linksPerFrame ? Math.floor(at / 3 / linksPerFrame) : 0 } : { height: 0, frame: 0 };
}

