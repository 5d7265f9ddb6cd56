import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitCsvRecord } from '../src/load/csv-record.js';
import { RecordAssembler, type UnparsableReason } from '../src/load/record-assembler.js';

test('splitCsvRecord follows RFC 4180', () => {
  const fields = (text: string) => {
    const result = splitCsvRecord(text);
    assert.equal(result.status, 'complete', text);
    return result.status === 'complete' ? result.fields : [];
  };
  assert.deepEqual(fields('1,2,3'), ['1', '2', '3']);
  assert.deepEqual(fields('1,,3,'), ['1', '', '3', '']);
  assert.deepEqual(fields('"a,b","say ""hi""",""'), ['a,b', 'say "hi"', '']);
  assert.deepEqual(fields('"line\nbreak",x'), ['line\nbreak', 'x']);
  assert.deepEqual(fields('""""'), ['"']);
  assert.deepEqual(fields(''), ['']);
  assert.equal(splitCsvRecord('1,"open').status, 'open');
  assert.equal(splitCsvRecord('1,"a"b').status, 'malformed');
  assert.equal(splitCsvRecord('1,a"b').status, 'malformed');
});

test('RecordAssembler joins quoted newlines and quarantines only the line of a quote that never closes', () => {
  const records: Array<[number, number, string[]]> = [];
  const unparsable: Array<[number, UnparsableReason]> = [];
  const assembler = new RecordAssembler((fields) => fields.length === 3, {
    record: (fields, firstLine, lastLine) => records.push([firstLine, lastLine, fields]),
    unparsable: (line, _raw, reason) => unparsable.push([line, reason]),
  });
  const lines = ['1,"two', 'lines",x', '2,"never closed,y', '3,plain,z', '4,"a"b,c', '5,"open at the end', '6,last,line'];
  lines.forEach((text, index) => assembler.line(text, index + 2));
  assembler.end();
  assert.deepEqual(records, [
    [2, 3, ['1', 'two\nlines', 'x']],
    [5, 5, ['3', 'plain', 'z']],
    [8, 8, ['6', 'last', 'line']],
  ]);
  assert.deepEqual(unparsable, [
    [4, 'unterminated quote'],
    [6, 'malformed quoting'],
    [7, 'unterminated quote'],
  ]);
});
