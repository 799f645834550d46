/** A small tmpfs as a server's DATA_DIR, to run out of space for real (mounting needs root, as the tests run). */
import { execFileSync } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

let fillers = 0;

/** Mounts a tmpfs of `size` (e.g. "1m") on `dir`, readable by its owner only. */
export const mountTmpfs = (dir, size) => execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);

/** Unmounts `dir`, lazily, whether or not it is still mounted. */
export function unmountTmpfs(dir) {
  try {
    execFileSync("umount", ["-l", dir], { stdio: "ignore" });
  } catch {
    // already gone
  }
}

/** Fills `dir` to about `leave` bytes free, or to the last byte, with a file of its own: its path, to remove. */
export function fill(dir, leave = 0) {
  const filler = join(dir, `filler-${fillers++}`);
  const fd = openSync(filler, "w");
  const free = () => Number(execFileSync("df", ["-B1", "--output=avail", dir]).toString().split("\n")[1]);
  if (leave > 0) while (free() > leave) writeSync(fd, Buffer.alloc(16_384, 1));
  else
    for (const size of [65_536, 4_096, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch {
        // ENOSPC at this size: a smaller one
      }
    }
  closeSync(fd);
  return filler;
}
