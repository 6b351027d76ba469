// Open descriptors of a tree's folders, so that a call file is opened by its name in a folder
// already open (Linux: `/proc/self/fd/<folder>/<name>`, what openat(2) does) rather than by its
// whole path and a readlink(2) of the result to prove no link was followed on the way: one system
// call fewer per new call, and a shorter lookup. A folder is kept only once it is in use (its
// second file): a tree of many small folders gains nothing from them, and each kept folder is a
// descriptor. It is kept only when opening its plain path reached that very path (the same proof
// the file opens give, made once), and the file is opened without following a final link, so
// nothing read through it lies outside the tree. What a kept folder holds is what that folder
// holds now: a folder deleted since (a rebuild's swap removes the old tree) reads as missing, and
// the caller then goes the way of a plain path. Let go of when the tree's manifest is read again
// (a rebuilt tree is being loaded) and when the source closes.
import { closeSync, constants, openSync, readlinkSync } from 'node:fs';

/** Where an open descriptor's path can be read back, and what a path through it opens. */
const DESCRIPTOR_LINKS = '/proc/self/fd/';
const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** At most this many folders are held open (a descriptor each). */
const MAX_KEPT_FOLDERS = 64;
/** A folder whose plain path did not prove to be itself (a link on the way): never kept. */
const NOT_KEPT = -1;

export class KeptFolders {
  /** Tree-relative folder → its descriptor (or NOT_KEPT); in the order they were kept. */
  private readonly kept = new Map<string, number>();
  /** Folders asked for once: kept on the second ask. */
  private readonly seenOnce = new Set<string>();

  /** `realRoot`: the tree's folder, its links resolved. */
  constructor(private readonly realRoot: string) {}

  /**
   * The path that opens `name` inside the tree folder `folder` through its kept descriptor, or
   * undefined when that folder is not kept (yet, or ever): the caller opens the plain path then.
   * `name` must be one plain segment (no `/`, not `.` or `..`), checked here too.
   */
  pathInside(folder: string, name: string): string | undefined {
    if (name === '' || name === '.' || name === '..' || name.includes('/')) return undefined;
    let descriptor = this.kept.get(folder);
    if (descriptor === undefined) {
      if (!this.seenOnce.delete(folder)) {
        if (this.seenOnce.size >= MAX_KEPT_FOLDERS * 4) this.seenOnce.clear();
        this.seenOnce.add(folder);
        return undefined;
      }
      descriptor = this.keep(folder);
    }
    return descriptor === NOT_KEPT ? undefined : `${DESCRIPTOR_LINKS}${descriptor}/${name}`;
  }

  /** Closes every kept folder: the next asks open them again. */
  forget(): void {
    for (const descriptor of this.kept.values()) if (descriptor !== NOT_KEPT) closeQuietly(descriptor);
    this.kept.clear();
    this.seenOnce.clear();
  }

  private keep(folder: string): number {
    const plain = `${this.realRoot}/${folder}`;
    let descriptor = NOT_KEPT;
    try {
      descriptor = openSync(plain, FOLDER_FLAGS);
      if (readlinkSync(`${DESCRIPTOR_LINKS}${descriptor}`) !== plain) {
        closeQuietly(descriptor);
        descriptor = NOT_KEPT;
      }
    } catch {
      // Missing, not a folder, a final link, no /proc: its files go the plain way.
      if (descriptor !== NOT_KEPT) closeQuietly(descriptor);
      return NOT_KEPT;
    }
    if (this.kept.size >= MAX_KEPT_FOLDERS) {
      const [oldest, oldestDescriptor] = this.kept.entries().next().value as [string, number];
      this.kept.delete(oldest);
      if (oldestDescriptor !== NOT_KEPT) closeQuietly(oldestDescriptor);
    }
    this.kept.set(folder, descriptor);
    return descriptor;
  }
}

function closeQuietly(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {}
}
