import { describe, expect, it } from 'vitest';
import { toCsv } from '../../web/src/ui/csv.js';

describe('CSV export', () => {
  it('quotes what needs quoting, keeps numbers, and defuses cells a spreadsheet would run as formulas', () => {
    const csv = toCsv(['id', 'name', 'note'], [
      [1, 'Kim, "the" caller', 'line one\nline two'],
      [2, '=HYPERLINK("http://evil")', '-1+2'],
      [3, null, '@SUM(A1)'],
    ]);
    expect(csv).toBe(
      'id,name,note\r\n' +
        '1,"Kim, ""the"" caller","line one\nline two"\r\n' +
        `2,"'=HYPERLINK(""http://evil"")",'-1+2\r\n` +
        "3,,'@SUM(A1)\r\n",
    );
  });
});
