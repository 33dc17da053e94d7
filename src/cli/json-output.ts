/**
 * `--json`'s text in pieces: exactly `JSON.stringify(output, null, 2)` and a newline, made and
 * written 200 messages at a time. One string of a long session's output (60 MB for 100,000
 * entries) costs more to build and write than its pieces do, and it is held whole until written.
 * On that session, over 11 alternating pairs on Node 22, pieces of 1,000 messages took 0.95× the
 * time of one string, and pieces of 200 took 0.93× the time of pieces of 1,000 (50 and 5,000 did
 * no better). Made all before the first is written, the pieces cost as much as the one string.
 */

/** Messages per piece. */
export const PIECE_MESSAGES = 200;

/**
 * The pieces of `JSON.stringify(output, null, 2)` followed by `\n`, in order, each made when it is
 * asked for. `serialize(values, at)` is `JSON.stringify(values, null, 2)` of `output`'s values from
 * index `at` (the caller's, which says when a value is nested too deeply, and that the pieces
 * before were written).
 *
 * Contract: the pieces joined are that text, byte for byte, for any output whose items have no
 * `toJSON` method that reads its key (an item's key is its index in the piece, not in `output`):
 * each piece is the text between the brackets of its messages' array, whose items `JSON.stringify`
 * writes as it writes them in the whole array.
 *
 * @example
 * [...jsonPieces([{ role: "user" }], (values) => JSON.stringify(values, null, 2))].join("");
 * // '[\n  {\n    "role": "user"\n  }\n]\n'
 */
export function* jsonPieces(
	output: readonly unknown[],
	serialize: (values: unknown[], at: number) => string,
	perPiece = PIECE_MESSAGES,
): Generator<string> {
	if (output.length === 0) {
		yield "[]\n";
		return;
	}
	for (let at = 0; at < output.length; at += perPiece) {
		// "[\n  a,\n  b\n]": what lies between "[\n" and "\n]" is the items at the output's indentation.
		const items = serialize(output.slice(at, at + perPiece), at).slice(2, -2);
		yield at === 0 ? `[\n${items}` : `,\n${items}`;
	}
	yield "\n]\n";
}
