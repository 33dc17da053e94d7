/**
 * The session reader against each pi line's own `SessionManager.open` (pi 0.73.1 in this process,
 * pi 1.6.0 in a Node 22 child) on files with odd lines: text that is not JSON, blank lines, `null`,
 * `false`, `0`, `""`, truthy JSON that is not an object (`1`, `"x"`, `true`, `[]`), objects without a
 * type, lines before the header, an odd last line, a byte order mark at the start and a no-break space
 * at the end (which pi 0.73.1 trims and pi 1.x does not), in version 1, 2 and 3 files, at the last
 * entry, `leafId: null`, an unknown leaf and `""`. Hand-written files and generated ones (a fixed seed).
 *
 * Every reading is one of: the same context as pi's (messages, thinking level, model, and the
 * converted Message[]); pi fails to open the file and the reader says so (a problem that names it,
 * or an InvalidSessionError where the file is no session for pi either); or, for pi 0.73.1 only, a
 * line pi 1.x skips (`null`, `false`, `0`, `""`, a last line with a trailing no-break space) and
 * 0.73.1 keeps, with the reader's problem saying what 0.73.1 does (and 0.73.1's context being the
 * reader's of the file without that trailing space). Anything else is a mismatch, and there must be
 * none.
 */
import { isDeepStrictEqual } from "node:util";
import * as pi073 from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidSessionError } from "../../src/errors.js";
import { convertToLlm } from "../../src/preset.js";
import { readSession } from "../../src/session/index.js";
import { openWith, type PiContext, type PiOpened } from "../support/pi-open.mjs";
import { PI1_START_TIMEOUT, type Pi1Child, startPi1 } from "../support/pi1/client.js";
import { mulberry32 as random } from "../support/random.js";

type Leaf = string | null | undefined;
interface OddFile {
	name: string;
	text: string;
	leafIds: Leaf[];
	/** The reader's own facts about the file, to tell the expected departures. */
	version: number;
	hasNull: boolean;
	falsyBeforeHeader: boolean;
	/** The first JSON line is `null` (pi 0.73.1 then fails on its header check). */
	firstIsNull: boolean;
	hasFalsy: boolean;
	lastKeptFalsy: boolean;
	v1Primitive: boolean;
	/** The first line that is not blank is a session header once trimmed as pi 0.73.1 trims it, and not JSON as it is (pi 1.x refuses the file). */
	edgeStartHeader: boolean;
	/** The last line that is not blank is JSON once trimmed as pi 0.73.1 trims it, and not as it is (pi 1.x skips it). */
	edgeEnd: boolean;
}

const T = "2025-01-31T12:00:00.000Z";
const FALSY = ["null", "false", "0", '""'];
const TRUTHY = ["1", "-2.5", '"x"', "true", "[]", "[1,2]", '[{"type":"message"}]'];
const JUNK = ["{not json", "garbage", "}", "   ", "", "\t", "\u00a0"];
/** What pi 0.73.1 trims and pi 1.x does not: a byte order mark at the start, a no-break space at the end. */
const EDGE_START = "\ufeff";
const EDGE_END = "\u00a0";

/** A linear session of `count` messages (and a compaction, a model change), as lines. */
function baseLines(version: number, count: number, next: () => number): { lines: string[]; ids: string[] } {
	const header = JSON.stringify({
		type: "session",
		...(version === 1 ? {} : { version }),
		id: "odd",
		timestamp: T,
		cwd: "/p",
	});
	const lines = [header];
	const ids: string[] = [];
	let parent: string | null = null;
	for (let i = 0; i < count; i++) {
		const id = `e${i.toString(16).padStart(7, "0")}`;
		const link = version === 1 ? {} : { id, parentId: parent };
		const roll = next();
		let entry: Record<string, unknown>;
		if (roll < 0.4)
			entry = { type: "message", ...link, timestamp: T, message: { role: "user", content: `u${i}`, timestamp: i } };
		else if (roll < 0.75) {
			entry = {
				type: "message",
				...link,
				timestamp: T,
				message: {
					role: "assistant",
					content: [{ type: "text", text: `a${i}` }],
					api: "x",
					provider: "p",
					model: `m${i}`,
					usage: {},
					stopReason: "stop",
					timestamp: i,
				},
			};
		} else if (roll < 0.85) entry = { type: "model_change", ...link, timestamp: T, provider: "p", modelId: `mc${i}` };
		else if (roll < 0.92) entry = { type: "thinking_level_change", ...link, timestamp: T, thinkingLevel: "high" };
		else {
			entry =
				version === 1
					? {
							type: "compaction",
							timestamp: T,
							summary: `s${i}`,
							firstKeptEntryIndex: 1 + Math.floor(next() * lines.length),
							tokensBefore: 1,
						}
					: {
							type: "compaction",
							...link,
							timestamp: T,
							summary: `s${i}`,
							firstKeptEntryId: ids[Math.floor(next() * ids.length)] ?? id,
							tokensBefore: 1,
						};
		}
		lines.push(JSON.stringify(entry));
		if (version !== 1) ids.push(id);
		parent = id;
	}
	return { lines, ids };
}

/** `JSON.parse(text)`, or `undefined` (no JSON value is `undefined`) when it throws. */
function parsed(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

function describeFile(name: string, version: number, before: string[], body: string[], leafIds: Leaf[]): OddFile {
	const lines = [...before, ...body];
	const nonBlank = lines.filter((line) => line.trim() !== "");
	const first = nonBlank[0] ?? "";
	const last = nonBlank.at(-1) ?? "";
	const startValue = parsed(first) === undefined ? parsed(first.trimStart()) : undefined;
	// pi 0.73.1's reading of each line: it trims the whole text, so the first and last line too.
	const read = lines.map((line) => {
		try {
			return { ok: true, value: JSON.parse(line.trim()) as unknown };
		} catch {
			return { ok: false, value: undefined };
		}
	});
	const kept = read.filter((p) => p.ok);
	const isFalsy = (p: { ok: boolean; value: unknown }) => p.ok && !p.value;
	const headerAt = read.findIndex((p) => p.ok && p.value);
	return {
		name,
		text: `${lines.join("\n")}\n`,
		leafIds,
		version,
		hasNull: read.some((p) => p.ok && p.value === null),
		falsyBeforeHeader: read.slice(0, Math.max(0, headerAt)).some(isFalsy),
		firstIsNull: kept[0]?.value === null,
		hasFalsy: read.some(isFalsy),
		lastKeptFalsy: kept.length > 0 && !kept.at(-1)?.value,
		v1Primitive:
			version === 1 && read.slice(headerAt + 1).some((p) => p.ok && p.value && typeof p.value !== "object"),
		edgeStartHeader:
			typeof startValue === "object" && startValue !== null && (startValue as { type?: unknown }).type === "session",
		edgeEnd: nonBlank.length > 1 && parsed(last) === undefined && parsed(last.trimEnd()) !== undefined,
	};
}

function generated(count: number, seed: number): OddFile[] {
	const next = random(seed);
	const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
	const files: OddFile[] = [];
	for (let n = 0; n < count; n++) {
		const version = pick([1, 2, 3, 3, 3]);
		const { lines, ids } = baseLines(version, 2 + Math.floor(next() * 10), next);
		const before: string[] = [];
		const early = next();
		if (early < 0.3) before.push(pick(JUNK));
		else if (early < 0.4) before.push(pick(FALSY));
		const body = [lines[0] as string];
		for (const line of lines.slice(1)) {
			const roll = next();
			if (roll < 0.15) body.push(pick(JUNK));
			else if (roll < 0.25) body.push(pick(TRUTHY));
			else if (roll < 0.3) body.push(pick(FALSY));
			else if (roll < 0.33) body.push("{}");
			body.push(line);
		}
		const tail = next();
		if (tail < 0.3) body.push(pick(TRUTHY));
		else if (tail < 0.4) body.push(pick(FALSY));
		else if (tail < 0.5) body.push(pick(JUNK));
		// Whitespace JSON does not allow, where pi 0.73.1 trims it: the file's start and end.
		const edges = next();
		if (edges < 0.1) before.unshift(`${EDGE_START}${before.shift() ?? body.shift()}`);
		else if (edges < 0.2) body.push(`${body.pop()}${EDGE_END}`);
		const leafIds: Leaf[] = [undefined, null, "nope", ""];
		if (ids.length > 0) leafIds.push(pick(ids));
		files.push(describeFile(`generated #${n} (v${version})`, version, before, body, leafIds));
	}
	return files;
}

const user = (id: string, parentId: string | null, text: string) =>
	JSON.stringify({
		type: "message",
		id,
		parentId,
		timestamp: T,
		message: { role: "user", content: text, timestamp: 1 },
	});
const header = (version?: number) =>
	JSON.stringify({ type: "session", ...(version ? { version } : {}), id: "h", timestamp: T, cwd: "/p" });
const v1user = (text: string) =>
	JSON.stringify({ type: "message", timestamp: T, message: { role: "user", content: text, timestamp: 1 } });

const HAND_WRITTEN: OddFile[] = [
	describeFile("a number as the last line", 3, [], [header(3), user("a", null, "one"), "1"], [undefined, "nope", "a"]),
	describeFile("a string as the last line", 3, [], [header(3), user("a", null, "one"), '"x"'], [undefined, ""]),
	describeFile("true as the last line", 3, [], [header(3), user("a", null, "one"), "true"], [undefined]),
	describeFile("an empty array as the last line", 3, [], [header(3), user("a", null, "one"), "[]"], [undefined, "a"]),
	describeFile(
		"arrays and numbers between entries",
		3,
		[],
		[header(3), user("a", null, "one"), "[]", "7", user("b", "a", "two")],
		[undefined, "a", "b"],
	),
	describeFile("0 as the last line", 3, [], [header(3), user("a", null, "one"), "0"], [undefined, "a"]),
	describeFile(
		"null between entries",
		3,
		[],
		[header(3), user("a", null, "one"), "null", user("b", "a", "two")],
		[undefined],
	),
	describeFile(
		"1,200 malformed lines before the header",
		3,
		Array.from({ length: 1200 }, (_, i) => `junk ${i}`),
		[header(3), user("a", null, "one")],
		[undefined],
	),
	describeFile("null before the header", 3, ["null"], [header(3), user("a", null, "one")], [undefined]),
	describeFile("a number before the header", 3, ["5"], [header(3), user("a", null, "one")], [undefined]),
	describeFile(
		"a v1 array line before a compaction's firstKeptEntryIndex",
		1,
		[],
		[
			header(),
			v1user("one"),
			"[]",
			v1user("two"),
			v1user("three"),
			JSON.stringify({ type: "compaction", timestamp: T, summary: "s", firstKeptEntryIndex: 3, tokensBefore: 1 }),
			v1user("four"),
		],
		[undefined],
	),
	describeFile(
		"a v1 compaction that keeps from an array line",
		1,
		[],
		[
			header(),
			v1user("one"),
			v1user("two"),
			"[1]",
			v1user("three"),
			JSON.stringify({ type: "compaction", timestamp: T, summary: "s", firstKeptEntryIndex: 3, tokensBefore: 1 }),
			"[]",
		],
		[undefined, "nope"],
	),
	describeFile("a v1 number line", 1, [], [header(), v1user("one"), "2", v1user("two")], [undefined]),
	describeFile(
		"a byte order mark before the header",
		3,
		[],
		[`${EDGE_START}${header(3)}`, user("a", null, "one"), user("b", "a", "two")],
		[undefined, "a"],
	),
	describeFile(
		"a byte order mark before a v1 header",
		1,
		[],
		[`${EDGE_START}${header()}`, v1user("one"), v1user("two")],
		[undefined],
	),
	describeFile(
		"a no-break space after the last line",
		3,
		[],
		[header(3), user("a", null, "one"), `${user("b", "a", "two")}${EDGE_END}`],
		[undefined, "a", "b"],
	),
	describeFile(
		"a no-break space after the last line, then blank lines",
		3,
		[],
		[header(3), user("a", null, "one"), `${user("b", "a", "two")}${EDGE_END}`, "", " "],
		[undefined],
	),
	describeFile(
		"a no-break space after the only entry",
		3,
		[],
		[header(3), `${user("a", null, "one")}${EDGE_END}`],
		[undefined, "a"],
	),
	describeFile(
		"a byte order mark before null",
		3,
		[`${EDGE_START}null`],
		[header(3), user("a", null, "one")],
		[undefined],
	),
	describeFile(
		"a byte order mark before false",
		3,
		[`${EDGE_START}false`],
		[header(3), user("a", null, "one")],
		[undefined],
	),
	describeFile(
		"a byte order mark and a no-break space around the file",
		3,
		[],
		[`${EDGE_START}${header(3)}`, user("a", null, "one"), `${user("b", "a", "two")}${EDGE_END}`],
		[undefined],
	),
];

/** One reading of ours, as comparable facts, or the error it threw. */
function ours(file: OddFile, leafId: Leaf) {
	try {
		const result = readSession(file.text, { leafId });
		return {
			messages: result.messages,
			thinkingLevel: result.thinkingLevel,
			model: result.model,
			converted: convertToLlm(result.messages),
			problems: result.problems.map((p) => p.message).join(" | "),
		};
	} catch (error) {
		if (!(error instanceof InvalidSessionError)) throw error;
		return { error: error.message };
	}
}

type Verdict = "same" | "pi fails, said" | "0.73.1 departs, said" | "mismatch";

function judge(line: "0.73.1" | "1.6.0", file: OddFile, opened: PiOpened, leafIndex: number): Verdict {
	const leafId = file.leafIds[leafIndex];
	const mine = ours(file, leafId);
	const theirs: PiContext | undefined = "error" in opened.opened ? undefined : opened.contexts?.[leafIndex];
	const piError = "error" in opened.opened ? opened.opened.error : theirs?.error;
	const said = "problems" in mine ? (mine.problems ?? "") : "";
	if (line === "0.73.1" && file.edgeEnd) {
		// pi 0.73.1 reads the file as the reader reads it without the last line's trailing whitespace.
		if (!said.includes("pi 0.73.1 trims the end of the file and reads that line")) return "mismatch";
		const trimmed = { ...file, text: file.text.trimEnd(), edgeEnd: false };
		return judge(line, trimmed, opened, leafIndex) === "mismatch" ? "mismatch" : "0.73.1 departs, said";
	}
	if (line === "1.6.0" && file.edgeStartHeader) {
		return piError?.includes("not a valid pi session") &&
			said.includes("pi 1.x does not read that line, and refuses the file")
			? "pi fails, said"
			: "mismatch";
	}
	if (line === "0.73.1" && file.hasFalsy) {
		const problems = said;
		const failsOnNull = problems.includes("pi 0.73.1 fails to open a session with a null line");
		if (file.falsyBeforeHeader && !file.firstIsNull) {
			const empty = "entries" in opened.opened && opened.opened.entries === 0;
			return empty && problems.includes("pi 0.73.1 takes it for the header") ? "0.73.1 departs, said" : "mismatch";
		}
		if (file.hasNull) return piError !== undefined && failsOnNull ? "0.73.1 departs, said" : "mismatch";
		if (file.version === 1)
			return piError !== undefined && problems.includes("pi 0.73.1 fails to open this version 1 file")
				? "0.73.1 departs, said"
				: "mismatch";
		const explicit = typeof leafId === "string" && leafId !== "" && leafId !== "nope";
		if (file.lastKeptFalsy && !explicit && leafId !== null) {
			return theirs?.messages?.length === 0 && problems.includes("as the last line sends an empty context")
				? "0.73.1 departs, said"
				: "mismatch";
		}
	}
	if ("error" in mine) {
		// Not a session for the reader: pi 1.6.0 refuses it, pi 0.73.1 reads no entries (and truncates).
		if (line === "1.6.0") return piError?.includes("not a valid pi session") ? "pi fails, said" : "mismatch";
		return "entries" in opened.opened && opened.opened.entries === 0 ? "pi fails, said" : "mismatch";
	}
	if (piError !== undefined) {
		return file.v1Primitive && mine.problems.includes("pi fails to open this version 1 file")
			? "pi fails, said"
			: "mismatch";
	}
	const same =
		isDeepStrictEqual(mine.messages, theirs?.messages) &&
		isDeepStrictEqual(mine.converted, theirs?.converted) &&
		mine.thinkingLevel === theirs?.thinkingLevel &&
		isDeepStrictEqual(mine.model, theirs?.model);
	return same ? "same" : "mismatch";
}

describe("session reader on odd lines, against each pi line's SessionManager.open", () => {
	let pi1: Pi1Child | undefined;
	beforeAll(async () => {
		pi1 = await startPi1();
	}, PI1_START_TIMEOUT);
	afterAll(async () => {
		await pi1?.close();
	});

	const files = [...HAND_WRITTEN, ...generated(300, 14)];

	it.each(["0.73.1", "1.6.0"] as const)(
		"should read every file as pi %s does, or say where pi departs",
		async (line) => {
			const request = files.map(({ text, leafIds }) => ({ text, leafIds }));
			const opened: PiOpened[] =
				line === "0.73.1"
					? openWith(pi073, request)
					: await (pi1 as Pi1Child).call("oddSession.open", { files: request });
			const counts: Record<Verdict, number> = {
				same: 0,
				"pi fails, said": 0,
				"0.73.1 departs, said": 0,
				mismatch: 0,
			};
			const mismatches: string[] = [];
			let readings = 0;
			files.forEach((file, i) => {
				file.leafIds.forEach((leafId, k) => {
					readings++;
					const verdict = judge(line, file, opened[i] as PiOpened, k);
					counts[verdict]++;
					if (verdict === "mismatch" && mismatches.length < 5) {
						mismatches.push(
							`${file.name} at leaf ${JSON.stringify(leafId)}: ours ${JSON.stringify(ours(file, leafId)).slice(0, 400)} / pi ${JSON.stringify(opened[i]).slice(0, 400)}`,
						);
					}
				});
			});
			console.log(
				`[odd-lines differential] pi ${line}: ${files.length} files (${HAND_WRITTEN.length} hand-written), ${readings} readings: ${counts.same} same, ${counts["pi fails, said"]} where pi fails to open and the reader says so, ${counts["0.73.1 departs, said"]} where pi 0.73.1 reads a line otherwise (keeps a line pi 1.x skips, or trims the file's last line) and the reader says what 0.73.1 does, ${counts.mismatch} mismatches`,
			);
			expect(mismatches).toEqual([]);
			expect(counts.same).toBeGreaterThan(readings / 2);
		},
	);
});
