/**
 * How the pi 1.x suites compare our output with pi's and say where they differ: deep equality
 * (node's `isDeepStrictEqual`: own keys, `undefined` keys, prototypes, `-0`, `NaN`) AND equal
 * `JSON.stringify` bytes, the first differing path, and a class for each mismatch, so that a run
 * with many mismatches reads as a few kinds with one example each.
 */
import { isDeepStrictEqual } from "node:util";

/** At most this many characters of a value go into a failure message. */
const SHOWN = 1800;

/** `JSON.stringify`, with `undefined` shown, cut to `max` characters. */
export function show(value: unknown, max = SHOWN): string {
	const text =
		value === undefined
			? "undefined"
			: JSON.stringify(value, (_key, inner: unknown) => (inner === undefined ? "<undefined>" : inner));
	return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** Whether two values are the same for the suites: deep-equal and byte-identical as JSON. */
export function same(ours: unknown, theirs: unknown): boolean {
	return isDeepStrictEqual(ours, theirs) && JSON.stringify(ours) === JSON.stringify(theirs);
}

/** The first path at which `ours` and `theirs` differ, with both values there; `undefined` when `same`. */
export function firstDifference(
	ours: unknown,
	theirs: unknown,
	path = "$",
): { path: string; ours: unknown; pi: unknown } | undefined {
	if (same(ours, theirs)) return undefined;
	if (Array.isArray(ours) && Array.isArray(theirs)) {
		for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
			if (i >= ours.length || i >= theirs.length) return { path: `${path}[${i}]`, ours: ours[i], pi: theirs[i] };
			const inner = firstDifference(ours[i], theirs[i], `${path}[${i}]`);
			if (inner) return inner;
		}
	} else if (isRecord(ours) && isRecord(theirs) && !Array.isArray(ours) && !Array.isArray(theirs)) {
		const keys = [...new Set([...Object.keys(theirs), ...Object.keys(ours)])];
		for (const key of keys) {
			if (Object.hasOwn(ours, key) !== Object.hasOwn(theirs, key)) {
				return { path: `${path}.${key}`, ours: describeKey(ours, key), pi: describeKey(theirs, key) };
			}
			const inner = firstDifference(ours[key], theirs[key], `${path}.${key}`);
			if (inner) return inner;
		}
		if (JSON.stringify(Object.keys(ours)) !== JSON.stringify(Object.keys(theirs))) {
			return { path: `${path} (key order)`, ours: Object.keys(ours), pi: Object.keys(theirs) };
		}
		if (Object.getPrototypeOf(ours) !== Object.getPrototypeOf(theirs)) {
			return { path: `${path} (prototype)`, ours: protoName(ours), pi: protoName(theirs) };
		}
	}
	return { path, ours, pi: theirs };
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object";
}

function describeKey(record: Record<string, unknown>, key: string): unknown {
	return Object.hasOwn(record, key) ? record[key] : "<absent>";
}

function protoName(value: object): string {
	const proto = Object.getPrototypeOf(value);
	return proto === null ? "null prototype" : proto === Object.prototype ? "Object.prototype" : "other prototype";
}

type Message = { role?: unknown };

/**
 * The messages of `longer` that are not in `shorter`, when `shorter` is `longer` with some messages
 * left out (a subsequence, compared with `same`); `undefined` otherwise.
 */
function leftOut(shorter: readonly unknown[], longer: readonly unknown[]): unknown[] | undefined {
	const missing: unknown[] = [];
	let i = 0;
	for (const message of longer) {
		if (i < shorter.length && same(shorter[i], message)) i++;
		else missing.push(message);
	}
	return i === shorter.length && missing.length > 0 ? missing : undefined;
}

const roles = (messages: readonly unknown[]): string =>
	[...new Set(messages.map((m) => String((m as Message)?.role)))].sort().join(", ");

/**
 * What kind of mismatch this is, for the tallies. "system dropped": ours is pi's output without
 * its system messages (what a registry without a `system` role does); "ours leaves out pi's <roles>"
 * / "ours adds <roles>": one output is the other with some messages left out; "deep-equal, JSON
 * differs": only the bytes differ (a key order, an `undefined`); else "other".
 */
export function classify(ours: unknown, theirs: unknown): string {
	if (Array.isArray(theirs) && Array.isArray(ours)) {
		const missing = leftOut(ours, theirs);
		if (missing !== undefined)
			return roles(missing) === "system" ? "system dropped" : `ours leaves out pi's ${roles(missing)}`;
		const extra = leftOut(theirs, ours);
		if (extra !== undefined) return `ours adds ${roles(extra)}`;
	}
	if (isDeepStrictEqual(ours, theirs)) return "deep-equal, JSON differs";
	return "other";
}

/** Mismatch counts by class, each with its first example. */
export class MismatchLog {
	readonly counts = new Map<string, number>();
	readonly examples = new Map<string, string>();

	/** Records one mismatch of `kind`; `example` is only called for the first of its kind. */
	add(kind: string, example: () => string): void {
		this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
		if (!this.examples.has(kind)) this.examples.set(kind, example());
	}

	get total(): number {
		let total = 0;
		for (const count of this.counts.values()) total += count;
		return total;
	}

	/** The classes, most frequent first. */
	private ranked(): [string, number][] {
		return [...this.counts].sort((a, b) => b[1] - a[1]);
	}

	/** `{"system dropped":12,"other":1}`: the `limit` most frequent classes, and how many others. */
	summary(limit = 10): string {
		const ranked = this.ranked();
		const shown = JSON.stringify(Object.fromEntries(ranked.slice(0, limit)));
		return ranked.length > limit ? `${shown} (+${ranked.length - limit} more classes)` : shown;
	}

	/** The `limit` most frequent classes with their count and first example. */
	report(limit = 10): string {
		const ranked = this.ranked();
		const lines = ranked
			.slice(0, limit)
			.map(([kind, count]) => `  ${kind}: ${count}\n    first example: ${this.examples.get(kind)}`);
		if (ranked.length > limit) lines.push(`  (+${ranked.length - limit} more classes)`);
		return lines.join("\n");
	}
}

/** The lines of a mismatch report: the input, both outputs and the first difference. */
export function mismatchText(
	label: string,
	input: unknown,
	ours: unknown,
	theirs: unknown,
	names: { ours: string; theirs: string } = { ours: "ours", theirs: "pi 1.6.0" },
): string {
	const diff = firstDifference(ours, theirs);
	const pad = Math.max(names.ours.length, names.theirs.length, "input".length) + 1;
	const line = (name: string, value: unknown): string => `      ${`${name}:`.padEnd(pad)} ${show(value)}`;
	return [
		label,
		line("input", input),
		line(names.theirs, theirs),
		line(names.ours, ours),
		diff
			? `      first difference at ${diff.path}: ${names.theirs} ${show(diff.pi, 400)}, ${names.ours} ${show(diff.ours, 400)}`
			: "",
	].join("\n");
}
