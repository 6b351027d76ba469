// Which kept term records hold the postings of documents an edit made anew
// (tree-writer/search-changed-postings.ts): read through the skip table, the answers are those of
// decoding every posting, for records of one block and of many, changed numbers inside blocks,
// on their edges and past the last one.
import { describe, expect, it } from 'vitest';
import { encodeImpactPostings, POSTING_BLOCK_SIZE } from '../../src/core/search/postings.js';
import { ChangedNumbers, holdsChanged, holdsExactly } from '../../src/tree-writer/search-changed-postings.js';
import { random } from '../helpers/random.js';

/** Every (number, impact) of a body, decoded one posting after the other. */
function decodeAll(body: Uint8Array): { numbers: number[]; impacts: number[] } {
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = body[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  const count = varint();
  for (let block = 0; block < Math.ceil(count / POSTING_BLOCK_SIZE); block += 1) {
    varint();
    varint();
    at += 1;
  }
  const numbers: number[] = [];
  const impacts: number[] = [];
  let number = 0;
  for (let index = 0; index < count; index += 1) {
    number += varint();
    numbers.push(number);
    impacts.push(body[at++]!);
  }
  return { numbers, impacts };
}

describe('changed postings of kept term records', () => {
  it('answers as decoding every posting does, whatever blocks the changed numbers fall in', () => {
    const next = random(39);
    const documentCount = 5000;
    for (let round = 0; round < 400; round += 1) {
      // Lists of one block to many, sparse and dense, starting at 0 or not.
      const size = 1 + Math.floor(next() * (round % 3 === 0 ? 100 : 1200));
      const density = 0.05 + next() * 0.95;
      const numbers: number[] = [];
      for (let number = round % 2; numbers.length < size && number < documentCount; number += 1)
        if (next() < density) numbers.push(number);
      const impacts = numbers.map(() => Math.floor(next() * 256));
      const body = encodeImpactPostings(numbers, impacts);
      // A record body sits after other bytes in its record: read in place.
      const record = new Uint8Array(7 + body.length);
      record.set(body, 7);
      const changedList = new Set<number>();
      const changedCount = 1 + Math.floor(next() * 4);
      while (changedList.size < changedCount) {
        const pick = next();
        // Numbers of the list (a block's first or last among them), and numbers beside or past it.
        const number =
          pick < 0.4
            ? numbers[Math.floor(next() * numbers.length)]!
            : pick < 0.55
              ? numbers[Math.floor(next() * Math.ceil(numbers.length / POSTING_BLOCK_SIZE)) * POSTING_BLOCK_SIZE]!
              : pick < 0.7
                ? numbers[Math.min(numbers.length - 1, POSTING_BLOCK_SIZE - 1)]!
                : Math.floor(next() * documentCount);
        changedList.add(number);
      }
      const changed = new ChangedNumbers([...changedList], documentCount);
      const all = decodeAll(body);
      const expectedHolds = all.numbers.some((number) => changedList.has(number));
      expect(holdsChanged(record, 7, record.length, changed)).toBe(expectedHolds);
      // What the record holds of the changed numbers, as it is, then with one impact or number off.
      const held = { numbers: [] as number[], impacts: [] as number[] };
      all.numbers.forEach((number, position) => {
        if (!changedList.has(number)) return;
        held.numbers.push(number);
        held.impacts.push(all.impacts[position]!);
      });
      expect(holdsExactly(record, 7, record.length, changed, held)).toBe(true);
      if (held.numbers.length > 0) {
        const otherImpact = { numbers: held.numbers, impacts: held.impacts.map((impact) => (impact + 1) % 256) };
        expect(holdsExactly(record, 7, record.length, changed, otherImpact)).toBe(false);
        const fewer = { numbers: held.numbers.slice(1), impacts: held.impacts.slice(1) };
        expect(holdsExactly(record, 7, record.length, changed, fewer)).toBe(false);
      }
      const absent = [...changedList].filter((number) => !all.numbers.includes(number));
      if (absent.length > 0) {
        const more = [...held.numbers.map((number, at) => [number, held.impacts[at]!]), [absent[0]!, 3]].sort(
          (left, right) => left[0]! - right[0]!,
        );
        const withAbsent = { numbers: more.map((pair) => pair[0]!), impacts: more.map((pair) => pair[1]!) };
        expect(holdsExactly(record, 7, record.length, changed, withAbsent)).toBe(false);
      }
    }
  });

  it('finds a changed number by range only where one lies', () => {
    const changed = new ChangedNumbers([900, 4, 130], 1000);
    expect(changed.anyIn(0, 3)).toBe(false);
    expect(changed.anyIn(0, 4)).toBe(true);
    expect(changed.anyIn(5, 129)).toBe(false);
    expect(changed.anyIn(130, 130)).toBe(true);
    expect(changed.anyIn(131, 899)).toBe(false);
    expect(changed.anyIn(131, 5000)).toBe(true);
    expect(changed.anyIn(901, 5000)).toBe(false);
    expect([...changed.marked.keys()].filter((number) => changed.marked[number] === 1)).toEqual([4, 130, 900]);
  });
});
