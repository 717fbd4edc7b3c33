/**
 * Which project a new signal belongs to. The dedupe key (normalised title) links signals to one
 * real-world project only within a time window of the project's latest signal: the same title a
 * year later (a yearly tender) is a new project. Pure: the caller supplies the times and new ids.
 */
export interface ProjectSeen {
  id: string;
  dedupeKey: string;
  lastSeenAt: Date;
}

export interface ProjectLinks<T> {
  /** The project of each item. */
  projectOf: Map<T, string>;
  /** Projects to create (their lastSeenAt is their latest item's time). */
  created: ProjectSeen[];
  /** Existing projects whose latest signal moved later. */
  moved: ProjectSeen[];
}

export function linkProjects<T extends { dedupeKey: string; at: Date }>(
  items: T[],
  existing: ProjectSeen[],
  windowMs: number,
  newId: () => string,
): ProjectLinks<T> {
  const byKey = new Map<string, ProjectSeen[]>();
  const copies = existing.map((p) => ({ ...p }));
  for (const p of copies) byKey.set(p.dedupeKey, [...(byKey.get(p.dedupeKey) ?? []), p]);
  const created: ProjectSeen[] = [];
  const moved = new Set<ProjectSeen>();
  const projectOf = new Map<T, string>();
  // Oldest first, so a batch that spans years opens one project per period, in order.
  for (const item of [...items].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    const candidates = byKey.get(item.dedupeKey) ?? [];
    let best: ProjectSeen | undefined;
    for (const p of candidates) {
      const distance = Math.abs(p.lastSeenAt.getTime() - item.at.getTime());
      if (distance <= windowMs && (!best || distance < Math.abs(best.lastSeenAt.getTime() - item.at.getTime()))) best = p;
    }
    if (!best) {
      best = { id: newId(), dedupeKey: item.dedupeKey, lastSeenAt: item.at };
      created.push(best);
      byKey.set(item.dedupeKey, [...candidates, best]);
    } else if (item.at > best.lastSeenAt) {
      best.lastSeenAt = item.at;
      if (!created.includes(best)) moved.add(best);
    }
    projectOf.set(item, best.id);
  }
  return { projectOf, created, moved: [...moved] };
}

/** Keeps the first of several items with the same external id (a feed may list one twice). */
export function uniqueByExternalId<T extends { externalId: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => (seen.has(i.externalId) ? false : (seen.add(i.externalId), true)));
}
