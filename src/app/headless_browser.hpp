#pragma once
// Private to kinetrack_app: a page rendered to a PNG by a headless Chromium (Debian's
// `chromium`, or $KINETRACK_CHROMIUM), with SwiftShader's software WebGL, as the browser tests run
// it. Used by `kinetrack view --png`.
#include <string>

namespace kinetrack::app::detail {

struct Screenshot {
  std::string url;  ///< file:///…/index.html?…
  std::string png;  ///< written
  int width = 1280, height = 720;
  double budget_ms = 20000;  ///< virtual time the page may take to load and draw
  double timeout_s = 120;    ///< wall-clock limit on the browser process
};

/// The browser to run: $KINETRACK_CHROMIUM, else the first of chromium, chromium-browser,
/// google-chrome on PATH; empty when none.
std::string findChromium();

/// Runs the browser; throws InvalidArgument when no browser is found (naming the packages),
/// ParseError(png) when it fails, times out or writes no image (with its last output lines).
void screenshot(const Screenshot& shot);

}  // namespace kinetrack::app::detail
