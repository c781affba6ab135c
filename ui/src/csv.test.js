// node --test: the CSV export.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rows, toCSV } from './csv.js';

test('totals, every key and the buckets, within the window, quoted where needed', () => {
  const ivs = [
    { sample: 59, data: { value: 9 } },
    { sample: 60, data: { value: 7, data: [{ key: 'a,"b"', value: 5 }, { key: 'c', value: 2 }] } },
    { sample: 61, data: { value: 3, buckets: [{ min: 10, max: 20, count: 3 }] } },
  ];
  const csv = toCSV(rows('syscall.ops[execname]', 'second', ivs, 60, 62));
  assert.equal(csv, 'time,granularity,dataset,key,bucket_min,bucket_max,value\r\n' +
    '1970-01-01T00:01:00Z,second,syscall.ops[execname],,,,7\r\n' +
    '1970-01-01T00:01:00Z,second,syscall.ops[execname],"a,""b""",,,5\r\n' +
    '1970-01-01T00:01:00Z,second,syscall.ops[execname],c,,,2\r\n' +
    '1970-01-01T00:01:01Z,second,syscall.ops[execname],,,,3\r\n' +
    '1970-01-01T00:01:01Z,second,syscall.ops[execname],,10,20,3\r\n');
});
