#pragma once
// A serial chain of identical rigid links on revolute joints: the test body of the parallel
// dynamics literature (Yamane & Nakamura's Table 1: chains of 8, 16, 32 links), built in.
#include "kinetrack/model/model.hpp"

namespace kinetrack {

struct SerialChainOptions {
  int links = 8;                    ///< moving links (≥ 1)
  BaseType base = BaseType::Fixed;  ///< fixed to the world at link 0, or free-floating
  double link_length = 0.1;         ///< m, joint to joint along the link's z axis
  double link_mass = 1.0;           ///< kg, a uniform rod of radius link_length / 10
};

/// Links "link1" … "linkN" on joints "joint1" … "jointN" (axes cycling y, x, z so the chain is
/// not planar), after a root "base" (massless when fixed, a link of the same rod when floating).
/// Throws InvalidArgument for links < 1 or a non-positive length or mass.
Model makeSerialChain(const SerialChainOptions& options = {});

}  // namespace kinetrack
