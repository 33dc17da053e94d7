/**
 * A report of a conversion that redacts secrets holds no secret either: every string the report will
 * hold, and each whole text before it is cut or split into a diff's lines, goes through the very
 * `redactSecrets` plugin the conversion used (its memory of what it found, its placeholders), on a
 * registry of its own with pi-ai's roles passed through, as one history of user messages. A secret
 * found in any of them is replaced in all of them. Fails closed: when the scan fails, no report.
 */
import { modelRoles } from "../builtin-converters/index.js";
import { createRegistry, type Plugin } from "../registry/index.js";
import { errorText } from "../values.js";
import type { TextPass } from "./report-types.js";

/** A report that cannot be written because its text could not be scanned for secrets. */
export class ReportRedactionError extends Error {
	override readonly name = "ReportRedactionError";
}

/**
 * What the report redacts with: `plugin`, the redaction the conversion used; `undefined` when the
 * conversion redacts but the front end could not name its plugin (then no report is written).
 */
export interface ReportRedaction {
	plugin: Plugin | undefined;
}

/**
 * A {@link TextPass} that records each text it is given (and changes none), and then, scanned,
 * the pass that replaces what the redaction found in them.
 */
export function textRecorder(): { pass: TextPass; redacted(redaction: ReportRedaction): Promise<TextPass> } {
	const seen = new Set<string>();
	return {
		pass(text) {
			seen.add(text);
			return text;
		},
		async redacted(redaction) {
			const texts = [...seen];
			seen.clear();
			const changed = await redactTexts(texts, redaction);
			return (text) => changed.get(text) ?? text;
		},
	};
}

/** The texts `redaction` changes, each with what it becomes (those it leaves as they are are not listed). */
export async function redactTexts(texts: readonly string[], redaction: ReportRedaction): Promise<Map<string, string>> {
	const { plugin } = redaction;
	if (plugin === undefined) {
		throw new ReportRedactionError(
			"the report was not written: the conversion redacts secrets, but the report could not reach its redaction to redact its own text.",
		);
	}
	const registry = createRegistry().use(modelRoles).use(plugin);
	const history = texts.map((text) => ({ role: "user" as const, content: text, timestamp: 0 }));
	let output: readonly unknown[];
	try {
		const conversion = await registry.runAsync(history);
		const problem = conversion.problems[0];
		if (conversion.failed || problem !== undefined) throw problem ?? new Error("the scan failed");
		output = conversion.output;
	} catch (error) {
		throw new ReportRedactionError(
			`the report was not written: its text could not be scanned for secrets (${errorText(error)}), and a report of a redacted conversion must hold none.`,
		);
	}
	if (output.length !== texts.length) {
		throw new ReportRedactionError(
			`the report was not written: the scan for secrets gave back ${output.length} of its ${texts.length} texts, and a report of a redacted conversion must hold none.`,
		);
	}
	const changed = new Map<string, string>();
	for (let i = 0; i < texts.length; i++) {
		const content = (output[i] as { content?: unknown } | undefined)?.content;
		if (typeof content !== "string") {
			throw new ReportRedactionError(
				"the report was not written: the scan for secrets changed a text into something else, and a report of a redacted conversion must hold none.",
			);
		}
		const text = texts[i] as string;
		if (content !== text) changed.set(text, content);
	}
	return changed;
}
