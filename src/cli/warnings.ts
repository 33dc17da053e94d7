/** The warnings of a CLI run: each problem as a CLI user reads it, and how many are printed. */
import type { ConvertToLlmError } from "../errors.js";
import { ErrorCode } from "../errors.js";
import { plural } from "../view/render.js";
import { oneLine } from "../view/style.js";

/** Warnings printed before "… and N more". */
const MAX_WARNINGS = 10;

/** Writes `warnings` to stderr, the first {@link MAX_WARNINGS} of them, then how many more there were. */
export function writeWarnings(
	io: { stderr: { write(text: string): unknown } },
	warnings: readonly string[],
	explained: boolean,
): void {
	const shownCount = Math.min(warnings.length, MAX_WARNINGS);
	for (let i = 0; i < shownCount; i++) io.stderr.write(`convert-to-llm: warning: ${oneLine(warnings[i])}\n`);
	if (warnings.length > shownCount) {
		const hint = explained ? "" : " (run with --explain to see each message's fate)";
		io.stderr.write(`convert-to-llm: … and ${plural(warnings.length - shownCount, "more warning")}${hint}\n`);
	}
}

/** A problem as a CLI user reads it: a role no converter handles names the option that adds one. */
export function warningText(error: ConvertToLlmError): string {
	if (error.code !== ErrorCode.UNKNOWN_ROLE) return error.message;
	const at = error.message.indexOf(" It was dropped; register one with registry.register(");
	if (at === -1) return error.message;
	return `${error.message.slice(0, at)} It was dropped; load a plugin that converts this role with --plugin <module> (see docs/custom-roles.md).`;
}
