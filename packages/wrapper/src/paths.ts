// String handling for request paths, in time linear in their length: these run on every request
// before any limit, so a regex that backtracks (/\/+$/ is quadratic on "////…/x") is an attack.

/** Drops trailing slashes, keeping a lone leading one: "/a//" → "/a", "///" → "/". */
export function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f) end--;
  return end === path.length ? path : path.slice(0, end);
}
