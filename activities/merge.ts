type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The names two or more groups of the tuple define (never when none repeats). */
type Repeated<G extends readonly object[]> = G extends readonly [infer Head, ...infer Rest extends readonly object[]]
  ? (keyof Head & keyof UnionToIntersection<Rest[number]>) | Repeated<Rest>
  : never;

/**
 * Merges the activity factories' groups into the one object a worker registers. Spreading them
 * would let a later group silently replace an earlier group's activity of the same name; here a
 * repeated name is a compile error (the argument list becomes `never`) and, should a type be
 * widened, an error at worker start.
 */
export function mergeActivities<const G extends readonly object[]>(...groups: [Repeated<G>] extends [never] ? G : never): UnionToIntersection<G[number]> {
  const merged: Record<string, unknown> = {};
  for (const group of groups as readonly object[]) {
    for (const [name, activity] of Object.entries(group)) {
      if (name in merged) throw new Error(`two activity factories define the activity ${name}`);
      merged[name] = activity;
    }
  }
  return merged as UnionToIntersection<G[number]>;
}
