/**
 * A file's start as read by a worker ({@link ParsedStart}), in a form that crosses threads cheaply:
 * most of its values are slim message entries (slim.ts), which structured clone copies slowly (two
 * objects and a symbol each; about 4 µs), so each is sent as five codes into a string table. The
 * other values (the header, entries that are not messages, values that are not objects) are few
 * and go as they are.
 */
import type { ParsedStart } from "./line-parser.js";
import { isSlim, slimMessageEntry } from "./slim.js";

/** A {@link ParsedStart}, encoded; `codes`, `ends` and `lines` are transferable. */
export interface EncodedStart {
	/** Five codes per value after the header: see {@link encodeStart}. */
	codes: Int32Array;
	/**
	 * The string table, as one string and where each string ends in it: structured clone copies
	 * one long string much faster than a quarter of a million short ones.
	 */
	strings: string;
	ends: Int32Array;
	/** The values sent as they are (the header first). */
	others: unknown[];
	lines: Int32Array;
	problems: ParsedStart["problems"];
	counts: ParsedStart["counts"];
}

/** A value sent as it is: `codes[5k + 1]` is its place in `others`. */
const OTHER = -1;
/** A slim entry with other fields, sent as it is (structured clone drops its mark: it is made slim again). */
const SLIM_OTHER = -2;
/** A field that is `null`, `undefined`, or (a parent) the id of the value before. */
const NULL = -1;
const UNDEFINED = -2;
const PREVIOUS_ID = -3;

/**
 * Encodes `start`. Per value after the header, five codes: a slim entry whose fields are strings,
 * `null` or `undefined` is its id, parent, role, provider and model (an index into `strings`, or
 * {@link NULL}, {@link UNDEFINED}; the parent may be {@link PREVIOUS_ID}); any other value is
 * `OTHER` and its index in `others`.
 */
export function encodeStart(start: ParsedStart): EncodedStart {
	const { raw } = start;
	const codes = new Int32Array((raw.length - 1) * 5);
	const strings: string[] = [];
	const others: unknown[] = [raw[0]];
	const known = new Map<string, number>();
	// Roles, providers and models repeat: each is sent once.
	const shared = (value: unknown): number | undefined => {
		if (value === undefined) return UNDEFINED;
		if (typeof value !== "string") return undefined;
		let index = known.get(value);
		if (index === undefined) {
			index = strings.push(value) - 1;
			known.set(value, index);
		}
		return index;
	};
	let previousId: unknown;
	for (let i = 1; i < raw.length; i++) {
		const value = raw[i];
		const at = (i - 1) * 5;
		const slim = isSlim(value);
		const fields = slim ? slimFields(value, previousId, strings, shared) : undefined;
		if (fields === undefined) {
			codes[at] = slim ? SLIM_OTHER : OTHER;
			codes[at + 1] = others.push(value) - 1;
			previousId = undefined;
		} else {
			codes.set(fields, at);
			previousId = (value as { id: unknown }).id;
		}
	}
	const ends = new Int32Array(strings.length);
	let end = 0;
	for (let k = 0; k < strings.length; k++) {
		end += (strings[k] as string).length;
		ends[k] = end;
	}
	return {
		codes,
		strings: strings.join(""),
		ends,
		others,
		lines: Int32Array.from(start.lines),
		problems: start.problems,
		counts: start.counts,
	};
}

function slimFields(
	entry: Record<string, unknown>,
	previousId: unknown,
	strings: string[],
	shared: (value: unknown) => number | undefined,
): number[] | undefined {
	const { id, parentId } = entry;
	const { role, provider, model } = entry.message as Record<string, unknown>;
	if (typeof id !== "string") return undefined;
	let parent: number | undefined;
	if (parentId === null) parent = NULL;
	else if (parentId === undefined) parent = UNDEFINED;
	else if (typeof parentId === "string") {
		parent = parentId === previousId ? PREVIOUS_ID : strings.push(parentId) - 1;
	} else return undefined;
	const roleCode = shared(role);
	const providerCode = shared(provider);
	const modelCode = shared(model);
	if (roleCode === undefined || providerCode === undefined || modelCode === undefined) return undefined;
	return [strings.push(id) - 1, parent, roleCode, providerCode, modelCode];
}

function slimAgain(entry: Record<string, unknown>): Record<string, unknown> {
	const { role, provider, model } = entry.message as Record<string, unknown>;
	return slimMessageEntry(entry.id, entry.parentId, role, provider, model);
}

/** The {@link ParsedStart} `encoded` holds (its slim entries made again, as slim.ts makes them). */
export function decodeStart(encoded: EncodedStart): ParsedStart {
	const { codes, others, ends } = encoded;
	const strings: string[] = new Array(ends.length);
	for (let k = 0, start = 0; k < ends.length; k++) {
		strings[k] = encoded.strings.slice(start, ends[k]);
		start = ends[k] as number;
	}
	const count = codes.length / 5;
	const raw: unknown[] = new Array(count + 1);
	raw[0] = others[0];
	const field = (code: number): unknown =>
		code >= 0 ? strings[code] : code === NULL ? null : code === UNDEFINED ? undefined : code;
	let previousId: unknown;
	for (let k = 0; k < count; k++) {
		const at = k * 5;
		if (codes[at] === OTHER || codes[at] === SLIM_OTHER) {
			const value = others[codes[at + 1] as number] as Record<string, unknown>;
			raw[k + 1] = codes[at] === OTHER ? value : slimAgain(value);
			previousId = undefined;
			continue;
		}
		const id = strings[codes[at] as number];
		const parentCode = codes[at + 1] as number;
		const parentId = parentCode === PREVIOUS_ID ? previousId : field(parentCode);
		raw[k + 1] = slimMessageEntry(
			id,
			parentId,
			field(codes[at + 2] as number),
			field(codes[at + 3] as number),
			field(codes[at + 4] as number),
		);
		previousId = id;
	}
	// A loop, not `Array.from`, which takes five times as long.
	const lines: number[] = new Array(encoded.lines.length);
	for (let i = 0; i < lines.length; i++) lines[i] = encoded.lines[i] as number;
	return {
		raw,
		lines,
		problems: encoded.problems,
		counts: encoded.counts,
	};
}
