// What the browser tests share: their arguments, the npm packages of build/web, Debian's chromium
// (exit 77, ctest's SKIP, without it), a check() that counts, and run() for the kinetrack CLI.
// Usage of a test: node <test>.mjs <build/web (node_modules)> <kinetrack binary> <shared data dir> <work dir>
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

export function harness() {
  const [webDir, kinetrack, shared, work] = process.argv.slice(2).map((p) => resolve(p));
  const require = createRequire(join(webDir, "package.json"));
  const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
  if (!chromium) {
    console.log("SKIP: chromium is not installed (scripts/setup.sh installs it)");
    process.exit(77);
  }
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const tally = { passes: 0, failures: 0 };
  return {
    webDir, kinetrack, shared, work, require, chromium, tally,
    puppeteer: require("puppeteer-core"),
    check(ok, what) {
      if (ok) { ++tally.passes; console.log(`ok   ${what}`); } else { ++tally.failures; console.log(`FAIL ${what}`); }
    },
    run(args) {
      const r = spawnSync(kinetrack, args, { encoding: "utf8" });
      if (r.status !== 0) throw new Error(`kinetrack ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
      return r.stdout;
    },
    /// Prints the tally and exits 0 when nothing failed.
    finish() {
      console.log(`${tally.passes} passed, ${tally.failures} failed`);
      process.exit(tally.failures === 0 ? 0 : 1);
    },
  };
}
