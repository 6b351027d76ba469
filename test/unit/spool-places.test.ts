// Where a tree writer's spooled files are, by slot (spool-places.ts): files appended in slot order,
// past slots never spooled, gaps, files of 64 KiB and more, copies pointing back at earlier bytes,
// slots spooled again and slots cleared are each found at their own place, and nowhere once cleared.
import { describe, expect, it } from 'vitest';
import { SpoolPlaces } from '../../src/tree-writer/spool-places.js';

describe('SpoolPlaces', () => {
  it('finds every file of a spool written in slot order with gaps, long files, copies and respools', () => {
    const places = new SpoolPlaces();
    const expected = new Map<number, { offset: number; length: number }>();
    let end = 0;
    for (let slot = 0; slot < 20_000; slot++) {
      if (slot % 11 === 3) continue; // written as a file of the tree, not spooled
      if (slot % 17 === 5 && slot > 100) {
        // A copy: the bytes of an earlier file, nothing appended.
        const first = expected.get(slot - 40) ?? { offset: 0, length: 1 };
        places.set(slot, first.offset, first.length);
        expected.set(slot, first);
        continue;
      }
      if (slot % 29 === 0) end += 1 + (slot % 300); // bytes no slot accounts for
      const length = slot % 97 === 0 ? 70_000 + slot : slot % 200;
      places.set(slot, end, length);
      expected.set(slot, { offset: end, length });
      end += length;
    }
    // An earlier slot spooled again at the end, and one cleared.
    places.set(500, end, 33);
    expected.set(500, { offset: end, length: 33 });
    places.clear(501);
    expected.delete(501);
    for (let slot = 0; slot < 20_001; slot++) {
      const where = expected.get(slot);
      expect(places.at(slot)).toEqual(where);
      expect(places.lengthAt(slot)).toBe(where?.length);
      expect(places.has(slot)).toBe(where !== undefined);
    }
  });

  it('finds a copy of every file, cleared and placed again, past the slots of a large build', () => {
    // A content build spools each document's file, then its raw-name copy pointing back at it.
    const places = new SpoolPlaces();
    let end = 0;
    for (let slot = 0; slot < 40_000; slot += 2) {
      places.set(slot, end, 100 + (slot % 77));
      places.set(slot + 1, end, 100 + (slot % 77));
      end += 100 + (slot % 77);
    }
    places.clear(9_001);
    places.set(9_001, 2 ** 36, 70_000);
    places.clear(9_003);
    let start = 0;
    for (let slot = 0; slot < 40_000; slot += 2) {
      const place = { offset: start, length: 100 + (slot % 77) };
      start += place.length;
      expect(places.at(slot)).toEqual(place);
      if (slot + 1 === 9_001) expect(places.at(slot + 1)).toEqual({ offset: 2 ** 36, length: 70_000 });
      else if (slot + 1 === 9_003) expect(places.at(slot + 1)).toBeUndefined();
      else expect(places.at(slot + 1)).toEqual(place);
    }
    expect(places.lengthAt(9_001)).toBe(70_000);
    expect(places.lengthAt(9_003)).toBeUndefined();
  });

  it('keeps an offset past 4 GiB, and a slot spooled again after being cleared', () => {
    const places = new SpoolPlaces();
    places.set(0, 0, 5);
    places.set(3, 2 ** 40 + 17, 9);
    expect(places.at(3)).toEqual({ offset: 2 ** 40 + 17, length: 9 });
    expect(places.at(1)).toBeUndefined();
    places.clear(0);
    expect(places.at(0)).toBeUndefined();
    places.set(0, 2 ** 40 + 26, 4);
    expect(places.at(0)).toEqual({ offset: 2 ** 40 + 26, length: 4 });
    expect(places.at(3)).toEqual({ offset: 2 ** 40 + 17, length: 9 });
  });
});
