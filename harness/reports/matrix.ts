// The "Authorization matrix" section as data the Markdown and HTML renderers lay out alike:
// one block per caller (operations down, objects across), each cell its answer and verdict, and
// the failed and warned cells listed with their request and curl line.
import type { MatrixCell, MatrixVerdict } from '../../core/model.ts';
import type { AuthorizationMatrix } from '../result.ts';

export const MATRIX_TITLE = 'Authorization matrix';

const MARK: Record<MatrixVerdict, string> = { pass: 'ok', fail: 'FAIL', warn: 'WARN', recorded: 'recorded', skip: 'not sent' };

export type MatrixEntry = MatrixCell & { check: string };

/** What a cell shows: its answer and verdict (`404 resource_not_found, ok`), or why it was not sent. */
export function cellText(cell: MatrixEntry): string {
  return cell.answer === undefined ? MARK.skip : `${cell.answer}, ${MARK[cell.verdict]}`;
}

export interface CallerBlock {
  caller: string;
  check: string;
  objects: string[];
  /** One row per operation; a cell is absent where the operation has no such object. */
  rows: Array<{ operation: string; cells: Array<MatrixEntry | undefined> }>;
}

export function callerBlocks(matrix: AuthorizationMatrix): CallerBlock[] {
  const callers = [...new Set(matrix.columns.map((c) => c.caller))];
  return callers.map((caller) => {
    const objects = matrix.columns.filter((c) => c.caller === caller).map((c) => c.object);
    const own = matrix.cells.filter((c) => c.caller === caller);
    return {
      caller,
      check: own[0]?.check ?? '',
      objects,
      rows: matrix.operations.map((operation) => ({
        operation,
        cells: objects.map((object) => own.find((c) => c.operation === operation && c.object === object)),
      })),
    };
  });
}

/** The failed and warned cells, in matrix order, each with a stable anchor. */
export function brokenCells(matrix: AuthorizationMatrix): Array<{ anchor: string; cell: MatrixEntry }> {
  return matrix.cells
    .map((cell, i) => ({ anchor: `matrix-cell-${i + 1}`, cell }))
    .filter(({ cell }) => cell.verdict === 'fail' || cell.verdict === 'warn');
}

/** One line counting the cells by verdict. */
export function matrixSummary(matrix: AuthorizationMatrix): string {
  const count = (v: MatrixVerdict) => matrix.cells.filter((c) => c.verdict === v).length;
  return `${matrix.operations.length} operations, ${matrix.cells.length} cells: ${count('pass')} as expected, ${count('fail')} failed, ${count('warn')} warned, ${count('recorded')} recorded (a reading the document leaves open), ${count('skip')} not sent.`;
}

/** The anchor of a broken cell, for linking from the grid. */
export function anchorOf(matrix: AuthorizationMatrix, cell: MatrixEntry): string | undefined {
  return brokenCells(matrix).find((b) => b.cell === cell)?.anchor;
}
