/**
 * `--json`'s text in pieces (src/cli/json-output.ts) against `JSON.stringify(output, null, 2)`, its
 * oracle, for any output and any number of messages per piece.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonPieces, PIECE_MESSAGES } from "../../src/cli/json-output.js";

const serialize = (values: unknown[]): string => JSON.stringify(values, null, 2);
const joined = (output: readonly unknown[], perPiece?: number): string =>
	[...jsonPieces(output, serialize, perPiece)].join("");

describe("jsonPieces", () => {
	it("should join to JSON.stringify(output, null, 2) and a newline, whatever the piece size", () => {
		fc.assert(
			fc.property(
				fc.array(fc.jsonValue(), { maxLength: 30 }),
				fc.integer({ min: 1, max: 8 }),
				(output, perPiece) => {
					expect(joined(output, perPiece)).toBe(`${JSON.stringify(output, null, 2)}\n`);
				},
			),
			{ numRuns: 2000 },
		);
	});

	it("should write an empty output as [], and a longer one a piece per PIECE_MESSAGES messages, then the bracket", () => {
		expect(joined([])).toBe("[]\n");
		const output = Array.from({ length: 2 * PIECE_MESSAGES + 1 }, (_, i) => ({ role: "user", content: `m${i}` }));
		const pieces = [...jsonPieces(output, serialize)];
		expect(pieces).toHaveLength(4);
		expect(pieces.join("")).toBe(`${JSON.stringify(output, null, 2)}\n`);
	});

	it("should write undefined and functions as null, as JSON.stringify writes them in an array", () => {
		const output = [undefined, () => 1, { role: "user", skipped: undefined }, null];
		expect(joined(output, 1)).toBe(`${JSON.stringify(output, null, 2)}\n`);
	});
});
